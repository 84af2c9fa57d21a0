"""Report sections of the model side: a stress run, a leaderboard's rank stability, a score run.

Each function takes a result dict and returns level-3 :class:`~pfungst.blocks.Section` objects. Each analysis of a
stress run is read back as its typed result (:meth:`~pfungst.stress.analysis.Analysis.from_dict`) and drawn by that
result's own ``blocks()``; a kind no installed perturbation knows is shown field by field. Nothing is computed here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
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
    methods_note,
)
from pfungst.stress.analysis import Analysis

__all__ = ["rank_sections", "score_sections", "stress_sections"]

_COLLAPSE_ABOVE = 6
"""A perturbation with more variants than this is plotted as its least and most accurate variant (the table keeps
every variant)."""


def stress_sections(data: Mapping[str, Any]) -> tuple[Section, ...]:
    """Accuracy per perturbation, variant, rule and format; each analysis; costs, request counts and warnings.

    Example:
        >>> acc = {"value": 0.5, "ci": {"low": 0.2, "high": 0.8, "level": 0.95}, "baseline": 0.25, "method": "wilson",
        ...        "n": 6}
        >>> stress = {"model": "m", "accuracies": [{"perturbation": "identity", "variant": "identity",
        ...           "rule": "letter", "format": "mmlu", "accuracy": acc, "n_unanswered": 0}], "analyses": []}
        >>> [section.title for section in stress_sections(stress)]
        ['Accuracy per perturbation, variant, scoring rule and format']
    """
    sections = [Section("Accuracy per perturbation, variant, scoring rule and format", _accuracy_blocks(data), level=3)]
    for entry in data.get("analyses") or []:
        analysis = Analysis.from_dict(entry)
        sections.append(Section(analysis.title, analysis.blocks(), level=3))
    tail = _run_blocks(data)
    if tail:
        sections.append(Section("Cost and requests", tail, level=3))
    return tuple(sections)


def rank_sections(data: Mapping[str, Any]) -> tuple[Section, ...]:
    """Leaderboard places per variant with bootstrap intervals, Kendall's tau and W, the largest shift, pairs.

    Example:
        >>> ranks = {"models": ["a", "b"], "variants": ["identity"], "ranks": [], "taus": [],
        ...          "concordance": {"value": None, "method": "Kendall's W: undefined with 1 variant", "n": 2}}
        >>> [section.title for section in rank_sections(ranks)]
        ['Rank stability']
    """
    ranks = data.get("ranks") or []
    blocks: list[Block] = [_rank_facts(data), _places_table(data, ranks)]
    if ranks:
        blocks.append(
            Figure(
                "intervals",
                "Accuracy of each model per variant",
                {
                    "labels": [f"{r.get('model')} | {r.get('variant')}" for r in ranks],
                    "estimates": [r.get("accuracy") for r in ranks],
                    "axis": "accuracy",
                },
            )
        )
    taus = data.get("taus") or []
    if taus:
        blocks.append(_tau_table(taus))
    pairs = data.get("pairwise") or []
    if pairs:
        blocks.append(_pairwise_table(pairs))
    return (Section("Rank stability", tuple(blocks), level=3),)


def _places_table(data: Mapping[str, Any], ranks: Sequence[Mapping[str, Any]]) -> Table:
    """The places of every model per variant, with the accuracy and rank intervals."""
    rows = tuple(
        (
            str(r.get("variant")),
            str(r.get("model")),
            format_estimate(r.get("accuracy")),
            f"{format_number(r.get('rank'), 1)} {_rank_interval(r.get('rank_ci'))}",
        )
        for r in ranks
    )
    return Table(
        f"Places per variant (1 = most accurate; rank intervals from {format_number(data.get('n_bootstrap'))} "
        f"bootstrap resamples)",
        ("variant", "model", "accuracy [CI]", "rank [CI]"),
        rows,
        text_columns=2,
        note=methods_note([r.get("accuracy") for r in ranks]),
    )


def _tau_table(taus: Sequence[Mapping[str, Any]]) -> Table:
    """Kendall's tau-b between the rankings of every pair of variants."""
    return Table(
        "Rank agreement between variants (Kendall's tau-b)",
        ("variant A", "variant B", "tau", "p", "models"),
        tuple((str(t.get("variant_a")), str(t.get("variant_b")), *_tau_cells(t.get("tau") or {})) for t in taus),
        text_columns=2,
        note=methods_note([t.get("tau") for t in taus]),
    )


def _pairwise_table(pairs: Sequence[Mapping[str, Any]]) -> Table:
    """Paired accuracy differences between models within a variant."""
    return Table(
        "Paired accuracy differences (first minus second)",
        ("variant", "first", "second", "difference [CI]", "p", "items"),
        tuple(
            (
                str(p.get("variant")),
                str(p.get("first")),
                str(p.get("second")),
                format_estimate(p.get("difference")),
                format_pvalue((p.get("difference") or {}).get("pvalue")),
                format_number((p.get("difference") or {}).get("n")),
            )
            for p in pairs
        ),
        text_columns=3,
        note=methods_note([p.get("difference") for p in pairs]),
    )


def score_sections(data: Mapping[str, Any]) -> tuple[Section, ...]:
    """Accuracy against chance with its Wilson interval, refusals, unparseable answers and request counts.

    Example:
        >>> score = {"accuracy": {"value": 0.5, "ci": None, "method": "wilson", "n": 4}, "settings": {"rule": "pmi"}}
        >>> score_sections(score)[0].title
        'Accuracy (pmi)'
    """
    settings = data.get("settings") or {}
    accuracy = data.get("accuracy")
    blocks: list[Block] = [
        Table("Accuracy", ESTIMATE_COLUMNS, (estimate_row("accuracy", accuracy),), note=methods_note([accuracy])),
        Facts(
            (
                ("scoring rule", str(settings.get("rule", "?"))),
                ("format", str(settings.get("format", "?"))),
                ("refused", format_number(data.get("n_refused"))),
                ("unparseable", format_number(data.get("n_unparseable"))),
            )
        ),
    ]
    blocks.extend(_run_blocks(data))
    return (Section(f"Accuracy ({settings.get('rule', '?')})", tuple(blocks), level=3),)


def _accuracy_blocks(data: Mapping[str, Any]) -> tuple[Block, ...]:
    entries = data.get("accuracies") or []
    rows: tuple[tuple[str, ...], ...] = tuple(
        (
            str(e.get("perturbation")),
            str(e.get("variant")),
            str(e.get("rule")),
            str(e.get("format")),
            format_estimate(e.get("accuracy")),
            format_number((e.get("accuracy") or {}).get("baseline")),
            format_number(e.get("n_unanswered")),
            format_number((e.get("accuracy") or {}).get("n")),
        )
        for e in entries
    )
    columns: tuple[str, ...] = ("perturbation", "variant", "rule", "format", "accuracy [CI]", "chance", "unanswered")
    columns += ("n",)
    if any(e.get("design_effect") is not None for e in entries):  # items cluster: cluster-robust intervals
        columns += ("design effect",)
        rows = tuple((*row, format_number(e.get("design_effect"))) for row, e in zip(rows, entries, strict=True))
    blocks: list[Block] = [
        Table(
            "Accuracy of every variant",
            columns,
            rows,
            text_columns=4,
            note=methods_note([e.get("accuracy") for e in entries]),
        )
    ]
    shown = _plotted(entries)
    if shown:
        baselines = {(e.get("accuracy") or {}).get("baseline") for e in shown}
        references = [[baselines.pop(), "chance"]] if len(baselines) == 1 and None not in baselines else []
        blocks.append(
            Figure(
                "intervals",
                "Accuracy per variant (95% Wilson intervals)",
                {
                    "labels": [_accuracy_label(e) for e in shown],
                    "estimates": [e.get("accuracy") for e in shown],
                    "references": references,
                    "axis": "accuracy",
                },
            )
        )
    return tuple(blocks)


def _plotted(entries: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Entries to plot: every variant, except that a perturbation with many shows its least and most accurate."""
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for entry in entries:
        groups[(str(entry.get("perturbation")), str(entry.get("rule")), str(entry.get("format")))].append(entry)
    shown: list[Mapping[str, Any]] = []
    for group in groups.values():
        if len(group) <= _COLLAPSE_ABOVE:
            shown.extend(group)
            continue
        valued = [e for e in group if (e.get("accuracy") or {}).get("value") is not None]
        if valued:
            ordered = sorted(valued, key=lambda e: e["accuracy"]["value"])
            shown.extend([ordered[0], ordered[-1]])
    return shown


def _accuracy_label(entry: Mapping[str, Any]) -> str:
    perturbation, variant = str(entry.get("perturbation")), str(entry.get("variant"))
    name = perturbation if perturbation == variant else f"{perturbation}: {variant}"
    return f"{name} ({entry.get('rule')}, {entry.get('format')})"


def _run_blocks(data: Mapping[str, Any]) -> tuple[Block, ...]:
    blocks: list[Block] = []
    costs = data.get("costs") or []
    if costs:
        blocks.append(
            Table(
                "Cost of each perturbation relative to one plain pass",
                ("perturbation", "questions", "requests", "passes ratio", "requests ratio"),
                tuple(
                    (
                        str(c.get("perturbation")),
                        format_number(c.get("questions")),
                        format_number(c.get("requests")),
                        format_number(c.get("passes_ratio"), 2),
                        format_number(c.get("requests_ratio"), 2),
                    )
                    for c in costs
                ),
            )
        )
    counts = data.get("counts")
    if counts:
        blocks.append(
            Facts(
                (
                    (
                        "requests",
                        f"{format_number(counts.get('requests'))} ({format_number(counts.get('unique_requests'))} "
                        f"distinct)",
                    ),
                    (
                        "cache",
                        f"{format_number(counts.get('hits'))} hits, {format_number(counts.get('misses'))} asked of "
                        f"the model in {format_number(counts.get('model_calls'))} calls",
                    ),
                    ("seconds", format_number(counts.get("seconds"), 1)),
                )
            )
        )
    blocks.extend(Text(f"warning: {warning}", tone="bad") for warning in data.get("warnings") or [])
    return tuple(blocks)


def _rank_facts(data: Mapping[str, Any]) -> Facts:
    concordance = data.get("concordance") or {}
    pvalue = format_pvalue(concordance.get("pvalue"))
    w = f"{format_estimate(concordance)}, p {pvalue} ({concordance.get('method', '')})"
    pairs = [
        ("models", ", ".join(str(m) for m in data.get("models") or [])),
        ("variants", format_number(len(data.get("variants") or []))),
        ("concordance (Kendall's W)", w),
    ]
    shift = data.get("largest_shift")
    if shift:
        pairs.append(
            (
                "largest shift",
                f"{shift.get('model')}: place {format_number(shift.get('from_rank'), 1)} on "
                f"{shift.get('from_variant')} -> {format_number(shift.get('to_rank'), 1)} on "
                f"{shift.get('to_variant')}",
            )
        )
    pairs += [("seed", format_number(data.get("seed"))), ("interval level", format_number(data.get("level"), 2))]
    return Facts(tuple(pairs))


def _rank_interval(ci: Mapping[str, Any] | None) -> str:
    if not ci:
        return ""
    return f"[{format_number(ci.get('low'), 1)}, {format_number(ci.get('high'), 1)}]"


def _tau_cells(tau: Mapping[str, Any]) -> tuple[str, str, str]:
    return format_estimate(tau), format_pvalue(tau.get("pvalue")), format_number(tau.get("n"))
