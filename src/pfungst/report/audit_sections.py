"""Report sections of the data side: a benchmark's summary (``pfungst inspect``) and its audit (``pfungst audit``).

Each function takes a result dict and returns level-3 :class:`~pfungst.blocks.Section` objects; the document
puts them under one chapter per benchmark. Nothing is computed: every figure is read from the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pfungst.blocks import (
    ESTIMATE_COLUMNS,
    Block,
    Facts,
    Figure,
    Section,
    Table,
    Text,
    estimate_row,
    format_estimate,
    format_number,
    format_pvalue,
    generic_blocks,
    methods_note,
)

__all__ = ["audit_sections", "benchmark_facts", "summary_sections"]

_STATISTIC_NAMES = {"kappa": "Cohen's kappa", "chance_corrected_accuracy": "chance-corrected accuracy"}


def benchmark_facts(benchmark: Mapping[str, Any]) -> Facts:
    """Name, size, option kind, labels and option counts of a ``Benchmark.to_dict()``.

    Example:
        >>> benchmark_facts({"name": "toy", "n_items": 4, "option_kind": "per_item"}).pairs[:2]
        (('benchmark', 'toy'), ('items', '4'))
    """
    pairs = [("benchmark", str(benchmark.get("name", "?"))), ("items", format_number(benchmark.get("n_items")))]
    if benchmark.get("option_kind"):
        pairs.append(("options", str(benchmark["option_kind"]).replace("_", " ")))
    if benchmark.get("labels"):
        pairs.append(("labels", ", ".join(str(label) for label in benchmark["labels"])))
    if benchmark.get("option_counts"):
        counts = ", ".join(f"{k} options: {v} items" for k, v in benchmark["option_counts"].items())
        pairs.append(("option counts", counts))
    return Facts(tuple(pairs))


def summary_sections(data: Mapping[str, Any]) -> tuple[Section, ...]:
    """The gold-answer histogram with its uniformity test, the majority baseline, lengths and named fields.

    Example:
        >>> summary = {"benchmark": {"name": "toy", "n_items": 4}, "gold_counts": {"A": 3, "B": 1},
        ...            "gold_uniformity": {"value": 1.0, "pvalue": 0.32, "method": "chi-squared", "n": 4},
        ...            "majority": {"value": 0.75, "ci": None, "method": "share", "n": 4}}
        >>> [section.title for section in summary_sections(summary)]
        ['Gold answers']
    """
    counts: Mapping[str, int] = data["gold_counts"]
    total = sum(counts.values())
    rows = tuple((str(key), str(count), f"{count / total:.1%}" if total else "n/a") for key, count in counts.items())
    uniformity, majority = data["gold_uniformity"], data["majority"]
    blocks: list[Block] = [
        Table("Gold answer per position or label", ("gold", "items", "share"), rows),
        Figure(
            "bars",
            "Gold answers per position or label",
            {"labels": list(counts), "values": list(counts.values()), "axis": "items"},
        ),
        Table(
            "Tests",
            ESTIMATE_COLUMNS,
            (
                estimate_row("gold uniformity (chi-squared)", uniformity),
                estimate_row("majority answer share", majority),
            ),
            note=methods_note([uniformity, majority]),
        ),
    ]
    lengths = [
        (name, data[key])
        for name, key in (
            ("question characters", "text_chars"),
            ("question words", "text_words"),
            ("option characters", "option_chars"),
        )
        if data.get(key)
    ]
    if lengths:
        blocks.append(
            Table(
                "Lengths",
                ("length", "mean", "median", "min", "max"),
                tuple(
                    (
                        name,
                        format_number(s.get("mean"), 1),
                        format_number(s.get("median"), 1),
                        format_number(s.get("min")),
                        format_number(s.get("max")),
                    )
                    for name, s in lengths
                ),
            )
        )
    if data.get("field_names"):
        blocks.append(
            Table(
                "Named fields",
                ("field", "items"),
                tuple((str(k), format_number(v)) for k, v in data["field_names"].items()),
            )
        )
    return (Section("Gold answers", tuple(blocks), level=3),)


def audit_sections(data: Mapping[str, Any]) -> tuple[Section, ...]:
    """The verdict, kappa per feature set with intervals, heuristic baselines, cues and the best probe's features.

    Example:
        >>> kappa = {"value": 0.02, "ci": {"low": -0.05, "high": 0.09, "level": 0.95}, "method": "m", "n": 40}
        >>> audit = {"verdict": {"label": "no evidence", "feature_set": "1-grams", "statistic": "kappa",
        ...                      "estimate": kappa, "threshold": 0.2}, "probes": [{"feature_set": "1-grams",
        ...                                                                       "kappa": kappa}]}
        >>> [section.title for section in audit_sections(audit)]
        ['Verdict', 'Surface-feature probes']
    """
    verdict = data["verdict"]
    tone = "bad" if verdict.get("label") == "predictable" else "good"
    statistic = _STATISTIC_NAMES.get(verdict.get("statistic", ""), str(verdict.get("statistic")))
    verdict_blocks: list[Block] = [
        Text(str(verdict.get("explanation") or verdict.get("label")), tone=tone),
        Table(
            "Verdict statistic",
            ESTIMATE_COLUMNS,
            (estimate_row(statistic, verdict.get("estimate")),),
            note=methods_note([verdict.get("estimate")]),
        ),
    ]
    sections = [
        Section("Verdict", tuple(verdict_blocks), level=3),
        Section("Surface-feature probes", _probe_blocks(data), level=3),
    ]
    if data.get("heuristics"):
        sections.append(Section("Heuristic baselines", _heuristic_blocks(data["heuristics"]), level=3))
    if data.get("cues"):
        sections.append(Section("Cue words", _cue_blocks(data["cues"]), level=3))
    best = next((p for p in data["probes"] if p.get("feature_set") == verdict.get("feature_set")), None)
    if best and best.get("top_features"):
        rows = tuple(
            (
                str(f.get("class", "")),
                str(f.get("feature", "")),
                format_number(f.get("weight")),
                format_number(f.get("rank")),
            )
            for f in best["top_features"]
        )
        sections.append(
            Section(
                f"Most predictive features of {best['feature_set']}",
                (
                    Table(
                        "Top features (largest weights)", ("class", "feature", "weight", "rank"), rows, text_columns=2
                    ),
                ),
                level=3,
            )
        )
    return tuple(sections)


def _probe_blocks(data: Mapping[str, Any]) -> tuple[Block, ...]:
    verdict = data["verdict"]
    statistic = str(verdict.get("statistic", "kappa"))
    probes = data["probes"]
    rows = []
    for probe in probes:
        marker = " (best)" if probe.get("feature_set") == verdict.get("feature_set") else ""
        rows.append(
            (
                f"{probe.get('feature_set')}{marker}",
                str(probe.get("level", "")),
                str(probe.get("final_classifier", "")),
                format_estimate(probe.get("kappa")),
                format_pvalue((probe.get("kappa") or {}).get("pvalue")),
                format_estimate(probe.get("chance_corrected_accuracy")),
                format_estimate(probe.get("accuracy")),
                format_estimate(probe.get("majority_baseline")),
                format_number(probe.get("n_items")),
            )
        )
    columns = (
        "feature set",
        "level",
        "classifier",
        "kappa [CI]",
        "p (kappa)",
        "chance-corrected accuracy [CI]",
        "accuracy [CI]",
        "majority baseline [CI]",
        "items",
    )
    note = methods_note([p.get(key) for p in probes for key in ("kappa", "chance_corrected_accuracy", "accuracy")])
    name = _STATISTIC_NAMES.get(statistic, statistic)
    figure = Figure(
        "intervals",
        f"{name} per feature set (out-of-fold, 95% intervals)",
        {
            "labels": [str(p.get("feature_set")) for p in probes],
            "estimates": [p.get(statistic) for p in probes],
            "references": [[0.0, "chance"], [verdict.get("threshold"), "verdict threshold"]],
            "axis": name,
        },
    )
    return (
        Table(
            "Probes: one classifier per feature set, out-of-fold predictions for every item",
            columns,
            tuple(rows),
            text_columns=3,
            note=note,
        ),
        figure,
    )


def _heuristic_blocks(heuristics: Mapping[str, Any]) -> tuple[Block, ...]:
    results = heuristics.get("results") or []
    rows = tuple(
        (
            str(r.get("name")),
            str(r.get("description", "")),
            format_estimate(r.get("accuracy")),
            format_number((r.get("accuracy") or {}).get("baseline")),
            format_pvalue((r.get("accuracy") or {}).get("pvalue")),
            format_estimate(r.get("kappa")),
            format_estimate(r.get("chance_corrected_accuracy")),
            format_number(r.get("coverage")),
            format_number(r.get("tie_rate")),
        )
        for r in results
    )
    columns = (
        "heuristic",
        "rule",
        "accuracy [CI]",
        "baseline",
        "p",
        "kappa [CI]",
        "chance-corrected accuracy [CI]",
        "coverage",
        "ties",
    )
    note = methods_note([r.get(key) for r in results for key in ("accuracy", "kappa", "chance_corrected_accuracy")])
    blocks: list[Block] = [Table("No-training baselines", columns, rows, text_columns=2, note=note)]
    if heuristics.get("hans_counts"):
        blocks.extend(generic_blocks({"HANS heuristics per label": heuristics["hans_counts"]}))
    return tuple(blocks)


def _cue_blocks(cues: Mapping[str, Any]) -> tuple[Block, ...]:
    entries = cues.get("cues") or []
    rows = tuple(
        (
            str(c.get("cue")),
            str(c.get("label")),
            format_number(c.get("count")),
            format_number(c.get("hits")),
            format_number(c.get("productivity")),
            format_number(c.get("coverage")),
            format_number(c.get("base_rate")),
            format_pvalue(c.get("pvalue")),
            format_pvalue(c.get("qvalue")),
        )
        for c in entries
    )
    caption = (
        f"Top {len(entries)} of {format_number(cues.get('n_tested'))} cues tested "
        f"(productivity: share of the items with the cue whose answer it points to)"
    )
    columns = ("cue", "label", "items", "hits", "productivity", "coverage", "base rate", "p", "q (BH)")
    return (Table(caption, columns, rows, text_columns=2, note=str(cues.get("method", ""))),)
