"""Sections of the model side: a stress run, several models compared, a leaderboard's rank stability.

Each function takes a result object (:class:`~pfungst.stress.stress_result.StressResult`,
:class:`~pfungst.stress.comparison.StressComparison`, :class:`~pfungst.stress.rank_result.RankStability`) and returns
:class:`~pfungst.blocks.Section` objects. Each analysis of a stress run is drawn by its own result's ``blocks()``; a
kind no installed package reads is shown field by field. Nothing is computed here.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pfungst.blocks import (
    Block,
    Facts,
    Figure,
    Section,
    Table,
    Text,
    format_estimate,
    format_number,
    format_pvalue,
    methods_note,
    short_model,
)
from pfungst.evaluate.score_sections import request_facts
from pfungst.results import BoardRow, Overview
from pfungst.stress.perturbations.params import spec_text

if TYPE_CHECKING:
    from pfungst.stats import ConfidenceInterval
    from pfungst.stress.comparison import StressComparison
    from pfungst.stress.metrics import VariantAccuracy
    from pfungst.stress.rank_result import PairwiseComparison, RankStability, VariantAgreement
    from pfungst.stress.stress_result import StressResult

__all__ = [
    "comparison_overview",
    "comparison_sections",
    "rank_chapter",
    "rank_sections",
    "ranks_overview",
    "stress_chapter",
    "stress_overview",
    "stress_sections",
]

_COLLAPSE_ABOVE = 6
"""A perturbation with more variants than this is plotted as its least and most accurate variant (the table keeps
every variant)."""


def stress_chapter(result: StressResult, model: str = "") -> tuple[Section, ...]:
    """A stress run's chapter: the verdict in one sentence, the run's facts, the verdict's checks, then its parts."""
    benchmark, settings = result.benchmark, result.provenance.settings
    facts = Facts(
        (
            ("model", result.model),
            ("benchmark", str(benchmark.get("name", "?"))),
            ("items", format_number(result.n_items)),
            ("seed", format_number(result.provenance.seed)),
            ("scoring rule", str(settings.get("rule", "?"))),
            ("base format", str(settings.get("format", "?"))),
            ("perturbations", ", ".join(spec_text(p) for p in settings.get("perturbations") or [])),
        )
    )
    found = result.verdict.blocks()
    opening = (*found[:1], facts, *found[1:])  # the finding in one sentence first, its checks after the facts
    title = f"Model stress: {model or short_model(result.model)} on {benchmark.get('name', '?')}"
    return (Section(title, opening), *stress_sections(result))


def stress_overview(result: StressResult, model: str = "") -> Overview:
    """A stress run's board row (the verdict it wrote and its deciding figure) and headline (plain accuracy)."""
    model = model or short_model(result.model)
    return Overview(result.benchmark, model, _plain_accuracy(result), (_stress_row(result, model),))


def comparison_sections(comparison: StressComparison) -> tuple[Section, ...]:
    """Each model's stress chapter, then the rank stability between them."""
    names = _names(comparison)
    chapters = [
        section
        for result, name in zip(comparison.results, names, strict=True)
        for section in stress_chapter(result, name)
    ]
    benchmark = comparison.results[0].benchmark if comparison.results else {}
    return (*chapters, *_ranks_chapter(comparison.rank_stability, str(benchmark.get("name") or "")))


def comparison_overview(comparison: StressComparison) -> Overview:
    """One board row per model; the headline is the agreement of the rankings (Kendall's W)."""
    names = _names(comparison)
    rows = tuple(_stress_row(result, name) for result, name in zip(comparison.results, names, strict=True))
    records = tuple(
        (f"results[{number}] ({name})", result.provenance)
        for number, (result, name) in enumerate(zip(comparison.results, names, strict=True))
    )
    benchmark = comparison.results[0].benchmark if comparison.results else {}
    models = ", ".join(comparison.rank_stability.models)
    return Overview(benchmark, models, _concordance(comparison.rank_stability), rows, records)


def ranks_overview(ranks: RankStability) -> Overview:
    """A rank stability's headline: the agreement of the rankings (Kendall's W); it has no board row of its own."""
    return Overview({}, "", _concordance(ranks), ())


def rank_chapter(ranks: RankStability) -> tuple[Section, ...]:
    """A rank stability on its own: its chapter, then its sections."""
    return _ranks_chapter(ranks, "")


def _ranks_chapter(ranks: RankStability, benchmark: str) -> tuple[Section, ...]:
    where = f" on {benchmark}" if benchmark else ""
    return (Section(f"Model comparison{where}", ()), *rank_sections(ranks))


def _names(comparison: StressComparison) -> list[str]:
    """The models' names as the comparison gives them (each result's short model name where they do not match)."""
    names = list(comparison.rank_stability.models)
    if len(names) == len(comparison.results):
        return names
    return [short_model(result.model) for result in comparison.results]


def _stress_row(result: StressResult, model: str) -> BoardRow:
    """A stress run's board row: the verdict the run wrote (position, format, rule) and its deciding figure."""
    verdict = result.verdict
    figure = "; ".join(part for part in (_plain_accuracy(result), verdict.headline) if part)
    return (str(result.benchmark.get("name", "?")), model, verdict.label, figure, verdict.status)


def _plain_accuracy(result: StressResult) -> str:
    plain = next((a for a in result.accuracies if a.perturbation == "identity"), None)
    return f"plain accuracy {format_estimate(plain.accuracy)}" if plain else ""


def _concordance(ranks: RankStability) -> str:
    return f"Kendall's W over variants {format_estimate(ranks.concordance)}"


def stress_sections(result: StressResult) -> tuple[Section, ...]:
    """Accuracy per perturbation, variant, rule and format; each analysis; costs, request counts and warnings."""
    sections = [
        Section("Accuracy per perturbation, variant, scoring rule and format", _accuracy_blocks(result), level=3)
    ]
    sections += [Section(analysis.title, analysis.blocks(), level=3) for analysis in result.analyses]
    return (*sections, Section("Cost and requests", _run_blocks(result), level=3))


def rank_sections(ranks: RankStability) -> tuple[Section, ...]:
    """Leaderboard places per variant with bootstrap intervals, Kendall's tau and W, the largest shift, pairs."""
    blocks: list[Block] = [_rank_facts(ranks), _places_table(ranks)]
    if ranks.ranks:
        blocks.append(
            Figure(
                "intervals",
                "Accuracy of each model per variant",
                {
                    "labels": [f"{r.model} | {r.variant}" for r in ranks.ranks],
                    "estimates": [r.accuracy.to_dict() for r in ranks.ranks],
                    "axis": "accuracy",
                },
            )
        )
    if ranks.taus:
        blocks.append(_tau_table(ranks.taus))
    if ranks.pairwise:
        blocks.append(_pairwise_table(ranks.pairwise))
    return (Section("Rank stability", tuple(blocks), level=3),)


def _places_table(ranks: RankStability) -> Table:
    """The places of every model per variant, with the accuracy and rank intervals."""
    rows = tuple(
        (r.variant, r.model, format_estimate(r.accuracy), f"{format_number(r.rank, 1)} {_rank_interval(r.rank_ci)}")
        for r in ranks.ranks
    )
    return Table(
        f"Places per variant (1 = most accurate; rank intervals from {format_number(ranks.n_bootstrap)} "
        f"bootstrap resamples)",
        ("variant", "model", "accuracy [CI]", "rank [CI]"),
        rows,
        text_columns=2,
        note=methods_note([r.accuracy for r in ranks.ranks]),
    )


def _tau_table(taus: Sequence[VariantAgreement]) -> Table:
    """Kendall's tau-b between the rankings of every pair of variants."""
    return Table(
        "Rank agreement between variants (Kendall's tau-b)",
        ("variant A", "variant B", "tau", "p", "models"),
        tuple(
            (t.variant_a, t.variant_b, format_estimate(t.tau), format_pvalue(t.tau.pvalue), format_number(t.tau.n))
            for t in taus
        ),
        text_columns=2,
        note=methods_note([t.tau for t in taus]),
    )


def _pairwise_table(pairs: Sequence[PairwiseComparison]) -> Table:
    """Paired accuracy differences between models within a variant."""
    return Table(
        "Paired accuracy differences (first minus second)",
        ("variant", "first", "second", "difference [CI]", "p", "items"),
        tuple(
            (
                p.variant,
                p.first,
                p.second,
                format_estimate(p.difference),
                format_pvalue(p.difference.pvalue),
                format_number(p.difference.n),
            )
            for p in pairs
        ),
        text_columns=3,
        note=methods_note([p.difference for p in pairs]),
    )


def _accuracy_blocks(result: StressResult) -> tuple[Block, ...]:
    entries = result.accuracies
    rows: tuple[tuple[str, ...], ...] = tuple(
        (
            e.perturbation,
            e.variant,
            e.rule,
            e.format,
            format_estimate(e.accuracy),
            format_number(e.accuracy.baseline),
            format_number(e.n_unanswered),
            format_number(e.accuracy.n),
        )
        for e in entries
    )
    columns: tuple[str, ...] = ("perturbation", "variant", "rule", "format", "accuracy [CI]", "chance", "unanswered")
    columns += ("n",)
    if any(not math.isnan(e.design_effect) for e in entries):  # items cluster: cluster-robust intervals
        columns += ("design effect",)
        rows = tuple((*row, format_number(e.design_effect)) for row, e in zip(rows, entries, strict=True))
    blocks: list[Block] = [
        Table(
            "Accuracy of every variant", columns, rows, text_columns=4, note=methods_note([e.accuracy for e in entries])
        )
    ]
    shown = _plotted(entries)
    if shown:
        baselines = {e.accuracy.to_dict()["baseline"] for e in shown}
        references = [[baselines.pop(), "chance"]] if len(baselines) == 1 and None not in baselines else []
        blocks.append(
            Figure(
                "intervals",
                "Accuracy per variant (95% Wilson intervals)",
                {
                    "labels": [_accuracy_label(e) for e in shown],
                    "estimates": [e.accuracy.to_dict() for e in shown],
                    "references": references,
                    "axis": "accuracy",
                },
            )
        )
    return tuple(blocks)


def _plotted(entries: Sequence[VariantAccuracy]) -> list[VariantAccuracy]:
    """Entries to plot: every variant, except that a perturbation with many shows its least and most accurate."""
    groups: dict[tuple[str, str, str], list[VariantAccuracy]] = defaultdict(list)
    for entry in entries:
        groups[(entry.perturbation, entry.rule, entry.format)].append(entry)
    shown: list[VariantAccuracy] = []
    for group in groups.values():
        if len(group) <= _COLLAPSE_ABOVE:
            shown.extend(group)
            continue
        valued = [e for e in group if not math.isnan(e.accuracy.value)]
        if valued:
            ordered = sorted(valued, key=lambda e: e.accuracy.value)
            shown.extend([ordered[0], ordered[-1]])
    return shown


def _accuracy_label(entry: VariantAccuracy) -> str:
    name = entry.perturbation if entry.perturbation == entry.variant else f"{entry.perturbation}: {entry.variant}"
    return f"{name} ({entry.rule}, {entry.format})"


def _run_blocks(result: StressResult) -> tuple[Block, ...]:
    blocks: list[Block] = []
    if result.costs:
        blocks.append(
            Table(
                "Cost of each perturbation relative to one plain pass",
                ("perturbation", "questions", "requests", "passes ratio", "requests ratio"),
                tuple(
                    (
                        c.perturbation,
                        format_number(c.questions),
                        format_number(c.requests),
                        format_number(c.passes_ratio, 2),
                        format_number(c.requests_ratio, 2),
                    )
                    for c in result.costs
                ),
            )
        )
    blocks.append(request_facts(result.counts))
    blocks.extend(Text(f"warning: {warning}", tone="bad") for warning in result.warnings)
    return tuple(blocks)


def _rank_facts(ranks: RankStability) -> Facts:
    concordance = ranks.concordance
    w = f"{format_estimate(concordance)}, p {format_pvalue(concordance.pvalue)} ({concordance.method})"
    shift = ranks.largest_shift
    pairs = [
        ("models", ", ".join(ranks.models)),
        ("variants", format_number(len(ranks.variants))),
        ("concordance (Kendall's W)", w),
        (
            "largest shift",
            f"{shift.model}: place {format_number(shift.from_rank, 1)} on {shift.from_variant} -> "
            f"{format_number(shift.to_rank, 1)} on {shift.to_variant}",
        ),
        ("seed", format_number(ranks.provenance.seed)),
        ("interval level", format_number(ranks.level, 2)),
    ]
    return Facts(tuple(pairs))


def _rank_interval(ci: ConfidenceInterval | None) -> str:
    if ci is None:
        return ""
    return f"[{format_number(ci.low, 1)}, {format_number(ci.high, 1)}]"
