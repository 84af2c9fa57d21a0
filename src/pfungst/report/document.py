"""``build_report``: results in, one :class:`~pfungst.blocks.Report` out, in reading order.

The overview comes first: a one-glance board (one row per benchmark and model: verdict, headline figure with its
interval, a status in colour, symbol and words) and the list of inputs; then the data side (per benchmark: its
summary and its audit), the model side (per model: its stress run or score; per comparison: the rank stability),
the figures of several results side by side (the audit's classifier choices-only probe beside each model's), the
reliance analysis, and the provenance of every input (data file hash, seeds, versions, settings, git revision).
HTML, Markdown, JSON and the console all render this one structure, so they show the same figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pfungst.blocks import Facts, Report, Section, Table, format_number, short_model
from pfungst.reliance.choices_only import choices_only_comparisons
from pfungst.report.audit_sections import audit_sections, benchmark_facts, summary_sections
from pfungst.report.board import board, headline
from pfungst.report.loading import LoadedResult, as_mapping, as_result
from pfungst.report.provenance import provenance_sections
from pfungst.report.reliance_sections import reliance_sections
from pfungst.report.score_sections import score_sections
from pfungst.report.stress_sections import rank_sections, stress_sections
from pfungst.report.suite_sections import suite_sections
from pfungst.report.validity_sections import validity_sections
from pfungst.stress.perturbations.params import spec_text
from pfungst.stress.verdict import StressVerdict

__all__ = ["build_report", "comparison_sections", "result_sections"]


def build_report(results: Iterable[Any], *, title: str | None = None) -> Report:
    """Arrange results (loaded files, result objects or result dicts) as one report; computes nothing.

    Args:
        results: :class:`~pfungst.report.loading.LoadedResult` objects, result objects (``AuditResult``,
            ``StressResult``, ``BenchmarkSummary``, ...) or their ``to_dict()``, in any order.
        title: The report's title; by default one naming the benchmarks.

    Raises:
        ConfigError: an input of an unknown kind or schema.
        ReaderError: a result dict with a value of the wrong type.

    Example:
        >>> from pfungst.data import Benchmark, Item
        >>> from pfungst.data.summary import summarize
        >>> summary = summarize(Benchmark("toy", [Item(str(i), "q", ("x", "y"), i % 2) for i in range(4)]))
        >>> report = build_report([summary])
        >>> report.title, [section.title for section in report.sections if section.level == 2]
        ('pfungst report: toy', ['Overview', 'Benchmark: toy', 'Provenance'])
    """
    loaded = [as_result(result) for result in results]
    sections: list[Section] = [_overview(loaded)]
    sections += [section for result in loaded if result.kind == "suite" for section in suite_sections(result.data)]
    sections += _data_side(loaded)
    sections += _model_side(loaded)
    sections += comparison_sections(loaded)
    for result in loaded:
        if result.kind == "reliance":
            sections += [Section("Reliance on shortcuts", ()), *reliance_sections(result.data)]
        if result.kind == "validity":
            sections += [Section("Item validity: suspected wrong keys", ()), *validity_sections(result.data)]
    sections += provenance_sections(loaded)
    names = dict.fromkeys(str(_benchmark(r).get("name")) for r in loaded if _benchmark(r).get("name"))
    default = "pfungst report" + (f": {', '.join(names)}" if names else "")
    return Report(
        title=title or default, sections=tuple(sections), sources=tuple(result.to_dict() for result in loaded)
    )


def result_sections(result: Any) -> tuple[Section, ...]:
    """One result as sections: a chapter heading with what it is about, then its parts (what the console prints).

    Raises:
        ConfigError: not a result.
    """
    loaded = as_result(result)
    if loaded.kind in ("summary", "audit"):
        benchmark = _benchmark(loaded)
        what = "Audit" if loaded.kind == "audit" else "Benchmark"
        chapter = Section(f"{what}: {benchmark.get('name', '?')}", (benchmark_facts(benchmark),))
        return (chapter, *_data_sections(loaded))
    if loaded.kind == "reliance":
        return (Section("Reliance on shortcuts", ()), *reliance_sections(loaded.data))
    if loaded.kind == "validity":
        return (Section("Item validity: suspected wrong keys", ()), *validity_sections(loaded.data))
    if loaded.kind == "suite":
        return suite_sections(loaded.data)
    return tuple(_model_side([loaded]))


def comparison_sections(loaded: Iterable[Any]) -> list[Section]:
    """The figures of several results side by side: the audit's classifier choices-only probe beside each model's
    choices-only accuracy on the same benchmark (:func:`~pfungst.reliance.choices_only.choices_only_comparisons`
    pairs them; nothing is estimated here). Empty where no audit and stress run pair up."""
    comparisons = choices_only_comparisons(as_result(result).data for result in loaded)
    return [Section(f"{c.TITLE} on {c.benchmark}", c.blocks()) for c in comparisons]


def _overview(loaded: list[LoadedResult]) -> Section:
    rows = tuple((r.source, r.kind, str(_benchmark(r).get("name", "")), _model_name(r), headline(r)) for r in loaded)
    table = Table("Inputs", ("file", "kind", "benchmark", "model", "headline"), rows, text_columns=5)
    return Section("Overview", (board(loaded), table))


def _data_sections(result: LoadedResult) -> tuple[Section, ...]:
    return summary_sections(result.data) if result.kind == "summary" else audit_sections(result.data)


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
            sections += _data_sections(result)
    return sections


def _model_side(loaded: list[LoadedResult]) -> list[Section]:
    sections: list[Section] = []
    for result in loaded:
        if result.kind in ("stress", "stress-comparison", "rank-stability"):
            data = as_mapping(result.data)
        if result.kind == "stress":
            sections += _stress_chapter(data, short_model(str(data.get("model"))))
        elif result.kind == "stress-comparison":
            ranks = data["rank_stability"]
            names = list(ranks.get("models") or [])
            for number, inner in enumerate(data["results"]):
                name = names[number] if len(names) == len(data["results"]) else short_model(inner["model"])
                sections += _stress_chapter(inner, name)
            sections += _ranks_chapter(ranks, _benchmark(result))
        elif result.kind == "rank-stability":
            sections += _ranks_chapter(data, {})
        elif result.kind == "score":
            benchmark = _benchmark(result)
            title = f"Model score: {short_model(result.data.model)} on {benchmark.get('name', '?')}"
            sections += [Section(title, (benchmark_facts(benchmark),)), *score_sections(result.data)]
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
            ("perturbations", ", ".join(spec_text(p) for p in settings.get("perturbations") or [])),
        )
    )
    verdict = data.get("verdict")
    found = StressVerdict.from_dict(verdict).blocks() if isinstance(verdict, Mapping) else ()
    opening = (*found[:1], facts, *found[1:])  # the finding in one sentence first, its checks after the facts
    return [Section(f"Model stress: {model} on {benchmark.get('name', '?')}", opening), *stress_sections(data)]


def _ranks_chapter(data: Mapping[str, Any], benchmark: Mapping[str, Any]) -> list[Section]:
    where = f" on {benchmark['name']}" if benchmark.get("name") else ""
    return [Section(f"Model comparison{where}", ()), *rank_sections(data)]


def _benchmark(result: LoadedResult) -> Mapping[str, Any]:
    data = result.data
    if result.kind in ("stress", "stress-comparison", "rank-stability"):
        data = as_mapping(data)
    elif not isinstance(data, Mapping):
        return getattr(data, "benchmark", None) or {}
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
        return ", ".join(dict.fromkeys(m.model for m in result.data.models))
    if result.kind == "validity":
        return f"{max((len(s.models) for s in result.data.datasets), default=0)} models"
    if result.kind == "score":
        return short_model(result.data.model)
    if result.kind == "stress":
        return short_model(str(as_mapping(result.data).get("model")))
    if result.kind == "stress-comparison":
        return ", ".join(str(m) for m in as_mapping(result.data)["rank_stability"].get("models") or [])
    return ""
