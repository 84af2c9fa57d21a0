"""``build_report``: results in, one :class:`~pfungst.blocks.Report` out, in reading order.

An overview of the inputs comes first; then the data side (per benchmark: its summary and its audit), the model side
(per model: its stress run or score; per comparison: the rank stability), the reliance analysis, and the provenance
of every input (data file hash, seeds, versions, settings, git revision). HTML, Markdown and JSON all render this one
structure, so they show the same figures.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pfungst.blocks import (
    Block,
    Code,
    Facts,
    Report,
    Section,
    Table,
    format_estimate,
    format_number,
)
from pfungst.report.audit_sections import audit_sections, benchmark_facts, summary_sections
from pfungst.report.loading import LoadedResult, as_result
from pfungst.report.reliance_sections import reliance_sections
from pfungst.report.score_console import _short_model
from pfungst.report.stress_sections import rank_sections, score_sections, stress_sections

__all__ = ["build_report"]


def build_report(results: Iterable[Any], *, title: str | None = None) -> Report:
    """Arrange results (loaded files, result dicts or result objects) as one report; computes nothing.

    Args:
        results: :class:`~pfungst.report.loading.LoadedResult` objects, result dicts (``to_dict()``), or result
            objects (``AuditResult``, ``StressResult``, ``BenchmarkSummary``, ...), in any order.
        title: The report's title; by default one naming the benchmarks.

    Raises:
        ConfigError: an input of an unknown kind or schema.

    Example:
        >>> summary = {"benchmark": {"name": "toy", "n_items": 4}, "gold_counts": {"A": 3, "B": 1},
        ...            "gold_uniformity": {"value": 1.0, "pvalue": 0.32, "method": "chi-squared", "n": 4},
        ...            "majority": {"value": 0.75, "ci": None, "method": "share", "n": 4}}
        >>> report = build_report([summary])
        >>> report.title, [section.title for section in report.sections if section.level == 2]
        ('pfungst report: toy', ['Overview', 'Benchmark: toy', 'Provenance'])
    """
    loaded = [as_result(result) for result in results]
    sections: list[Section] = [_overview(loaded)]
    sections += _data_side(loaded)
    sections += _model_side(loaded)
    for result in loaded:
        if result.kind == "reliance":
            sections += [Section("Reliance on shortcuts", ()), *reliance_sections(result.data)]
    sections += _provenance(loaded)
    names = dict.fromkeys(str(_benchmark(r).get("name")) for r in loaded if _benchmark(r).get("name"))
    default = "pfungst report" + (f": {', '.join(names)}" if names else "")
    return Report(
        title=title or default, sections=tuple(sections), sources=tuple(result.to_dict() for result in loaded)
    )


def _overview(loaded: list[LoadedResult]) -> Section:
    rows = tuple((r.source, r.kind, str(_benchmark(r).get("name", "")), _model_name(r), _headline(r)) for r in loaded)
    table = Table("Inputs", ("file", "kind", "benchmark", "model", "headline"), rows, text_columns=5)
    return Section("Overview", (table,))


def _data_side(loaded: list[LoadedResult]) -> list[Section]:
    """One chapter per benchmark, in first-seen order: its summary's sections, then its audit's."""
    groups: dict[str, list[LoadedResult]] = {}
    for result in loaded:
        if result.kind in ("summary", "audit"):
            groups.setdefault(_benchmark_key(result), []).append(result)
    sections: list[Section] = []
    for group in groups.values():
        benchmark = _benchmark(group[0])
        sections.append(Section(f"Benchmark: {benchmark.get('name', '?')}", (benchmark_facts(benchmark),)))
        for result in sorted(group, key=lambda r: r.kind != "summary"):
            sections += summary_sections(result.data) if result.kind == "summary" else audit_sections(result.data)
    return sections


def _model_side(loaded: list[LoadedResult]) -> list[Section]:
    sections: list[Section] = []
    for result in loaded:
        if result.kind == "stress":
            sections += _stress_chapter(result.data, _short_model(str(result.data.get("model"))))
        elif result.kind == "stress-comparison":
            ranks = result.data["rank_stability"]
            names = list(ranks.get("models") or [])
            for number, inner in enumerate(result.data["results"]):
                name = names[number] if len(names) == len(result.data["results"]) else _short_model(inner["model"])
                sections += _stress_chapter(inner, name)
            sections += _ranks_chapter(ranks, _benchmark(result))
        elif result.kind == "rank-stability":
            sections += _ranks_chapter(result.data, {})
        elif result.kind == "score":
            model = _short_model(str(result.data.get("model")))
            sections.append(
                Section(
                    f"Model score: {model} on {_benchmark(result).get('name', '?')}",
                    (benchmark_facts(_benchmark(result)),),
                )
            )
            sections += score_sections(result.data)
    return sections


def _stress_chapter(data: Mapping[str, Any], model: str) -> list[Section]:
    settings, benchmark = data.get("settings") or {}, data.get("benchmark") or {}
    facts = Facts(
        (
            ("model", str(data.get("model"))),
            ("benchmark", str(benchmark.get("name", "?"))),
            ("items", format_number(data.get("n_items"))),
            ("seed", format_number(data.get("seed"))),
            ("scoring rule", str(settings.get("rule", "?"))),
            ("base format", str(settings.get("format", "?"))),
            ("perturbations", ", ".join(str(p) for p in settings.get("perturbations") or [])),
        )
    )
    return [Section(f"Model stress: {model} on {benchmark.get('name', '?')}", (facts,)), *stress_sections(data)]


def _ranks_chapter(data: Mapping[str, Any], benchmark: Mapping[str, Any]) -> list[Section]:
    where = f" on {benchmark['name']}" if benchmark.get("name") else ""
    return [Section(f"Model comparison{where}", ()), *rank_sections(data)]


def _provenance(loaded: list[LoadedResult]) -> list[Section]:
    sections = [Section("Provenance", ())]
    for result in loaded:
        sections.append(
            _provenance_section(
                f"{result.kind}: {result.source}",
                result.data,
                [
                    ("result file", result.source),
                    ("result sha256", result.sha256 or "n/a (passed in Python)"),
                    ("schema", result.schema_version),
                ],
            )
        )
        if result.kind == "stress-comparison":
            ranks = result.data["rank_stability"]
            names = list(ranks.get("models") or [])
            for number, inner in enumerate(result.data["results"]):
                name = names[number] if number < len(names) else str(number)
                sections.append(
                    _provenance_section(
                        f"{result.source}: results[{number}] ({name})", inner, [("model", str(inner.get("model")))]
                    )
                )
    return sections


def _provenance_section(title: str, data: Mapping[str, Any], pairs: list[tuple[str, str]]) -> Section:
    benchmark = data.get("benchmark")
    provenance = (benchmark.get("provenance") if isinstance(benchmark, Mapping) else None) or {}
    if provenance:
        pairs += [
            ("data file", str(provenance.get("source", "?"))),
            ("data sha256", str(provenance.get("sha256", "?"))),
            ("data format", str(provenance.get("format", "?"))),
            (
                "rows",
                f"{format_number(provenance.get('rows_read'))} read, "
                f"{format_number(provenance.get('rows_kept'))} kept, "
                f"{format_number(provenance.get('rows_rejected'))} rejected",
            ),
            (
                "duplicates",
                f"{format_number(provenance.get('duplicate_texts'))} texts "
                f"({format_number(provenance.get('conflicting_duplicates'))} conflicting), "
                f"{format_number(provenance.get('duplicate_ids'))} ids",
            ),
        ]
        if provenance.get("steps"):
            pairs.append(("steps", ", ".join(str(step) for step in provenance["steps"])))
    seeds = _seeds(data)
    if seeds:
        pairs.append(("seeds", seeds))
    environment = data.get("environment") or {}
    for key in ("git_revision", "python", "platform", "created"):
        if environment.get(key):
            pairs.append((key.replace("_", " "), str(environment[key])))
    packages = environment.get("packages") or {}
    if packages:
        pairs.append(("packages", ", ".join(f"{name} {version}" for name, version in packages.items())))
    blocks: list[Block] = [Facts(tuple(pairs))]
    settings = data.get("settings") or data.get("config")
    if settings:
        blocks.append(Code(json.dumps(settings, indent=2, ensure_ascii=False, default=str), caption="settings"))
    return Section(title, tuple(blocks), level=3)


def _seeds(data: Mapping[str, Any]) -> str:
    found = {
        "seed": data.get("seed"),
        "settings.seed": (data.get("settings") or {}).get("seed"),
        "rank_stability.seed": (data.get("rank_stability") or {}).get("seed"),
    }
    return ", ".join(f"{key} {value}" for key, value in found.items() if value is not None)


def _benchmark(result: LoadedResult) -> Mapping[str, Any]:
    data = result.data
    if result.kind == "stress-comparison" and data.get("results"):
        return data["results"][0].get("benchmark") or {}
    benchmark = data.get("benchmark")
    return benchmark if isinstance(benchmark, Mapping) else {}


def _benchmark_key(result: LoadedResult) -> str:
    benchmark = _benchmark(result)
    provenance = benchmark.get("provenance") or {}
    return str(provenance.get("sha256") or benchmark.get("name") or result.source)


def _model_name(result: LoadedResult) -> str:
    if result.kind == "reliance":
        return ", ".join(dict.fromkeys(str(m.get("model")) for m in result.data.get("models") or []))
    if result.kind in ("stress", "score"):
        return _short_model(str(result.data.get("model")))
    if result.kind == "stress-comparison":
        return ", ".join(str(m) for m in result.data["rank_stability"].get("models") or [])
    return ""


def _headline(result: LoadedResult) -> str:
    data = result.data
    if result.kind == "audit":
        verdict = data["verdict"]
        statistic = str(verdict.get("statistic", "")).replace("_", " ")
        estimate = format_estimate(verdict.get("estimate"))
        return f"{verdict.get('label')}: {verdict.get('feature_set')}, {statistic} {estimate}"
    if result.kind == "summary":
        return f"majority answer share {format_estimate(data.get('majority'))}"
    if result.kind == "score":
        return f"accuracy {format_estimate(data.get('accuracy'))}"
    if result.kind == "stress":
        plain = next((a for a in data.get("accuracies") or [] if a.get("perturbation") == "identity"), None)
        return f"plain accuracy {format_estimate((plain or {}).get('accuracy'))}" if plain else ""
    if result.kind == "reliance":
        families = data.get("families") or []
        rejected = sum(bool(f.get("rejected")) for f in families)
        return (
            f"{len(data.get('models') or [])} (model, dataset) pairs; {rejected} of {len(families)} families "
            f"rejected (BH)"
        )
    if result.kind in ("stress-comparison", "rank-stability"):
        ranks = data.get("rank_stability", data)
        return f"Kendall's W over variants {format_estimate(ranks.get('concordance'))}"
    return ""
