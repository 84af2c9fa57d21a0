"""Console rendering of a stress run and of a leaderboard's rank stability. Renders result objects; computes nothing.

Every figure, interval, baseline and test comes from the result. Each analysis prints the blocks its result renders
to (the same tables and facts as the HTML and Markdown reports) through :func:`~pfungst.report.console_blocks.
render_blocks`; a result without ``blocks()`` is shown field by field from its ``to_dict()``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pfungst.report.audit_console import _interval, _p
from pfungst.report.console_blocks import render_blocks
from pfungst.report.score_console import _short_model
from pfungst.stress.metrics import VariantAccuracy
from pfungst.stress.ranks import ModelRank, RankStability
from pfungst.stress.stress_result import StressResult

__all__ = ["render_ranks", "render_stress"]

_COLLAPSE_ABOVE = 6
"""A perturbation with more variants than this is shown as one row: the least and the most accurate variant."""


def render_stress(result: StressResult, console: Console) -> None:
    """Print a stress run: header, accuracy per variant, each analysis, costs and counts, warnings.

    Example:
        >>> import io
        >>> from pfungst.stress.metrics import variant_accuracies
        >>> from pfungst.evaluate.outcome import Outcome
        >>> from pfungst.evaluate.score_result import ScoreCounts
        >>> outcomes = [Outcome(f"q{i}", "identity", "identity", "letter", "mmlu", (0, 1), ("A", "B"), i % 2, 0, 0,
        ...                     "ok", (0.0, -1.0)) for i in range(4)]
        >>> result = StressResult(model="toy", accuracies=variant_accuracies(outcomes), analyses=(), costs=(),
        ...                       outcomes=tuple(outcomes), counts=ScoreCounts(8, 8, 0, 8, 1, 0.5), warnings=(),
        ...                       benchmark={"name": "toy", "n_items": 4}, settings={"rule": "letter",
        ...                       "format": "mmlu"}, seed=0, environment={})
        >>> console = Console(file=io.StringIO(), width=100)
        >>> render_stress(result, console)
        >>> print(console.file.getvalue().splitlines()[0])
        stress of toy: 4 items, model toy, seed 0, rule letter, base format mmlu
    """
    _render_header(result, console)
    render_blocks(result.verdict.blocks(), console)
    if result.accuracies:
        console.print(_accuracy_table(result.accuracies, result.settings))
    for analysis in result.analyses:
        console.print(f"[bold]{escape(analysis.name)}[/bold] ({escape(analysis.subject)})")
        render_blocks(analysis.blocks(), console)
    if result.costs:
        console.print(_cost_table(result))
    counts = result.counts
    console.print(
        f"requests {counts.requests} ({counts.unique_requests} distinct): {counts.hits} from the cache, "
        f"{counts.misses} asked of the model in {counts.model_calls} calls, {counts.seconds:.1f} s"
    )
    for warning in result.warnings:
        console.print(f"warning: {escape(warning)}", style="yellow")


def _render_header(result: StressResult, console: Console) -> None:
    settings, benchmark = result.settings, result.benchmark
    console.print(
        f"[bold]stress of {escape(str(benchmark.get('name', '?')))}[/bold]: "
        f"{benchmark.get('n_items', '?')} items, model {escape(_short_model(result.model))}, "
        f"seed {result.seed}, rule {escape(str(settings.get('rule', '?')))}, "
        f"base format {escape(str(settings.get('format', '?')))}"
    )


def _accuracy_table(accuracies: Sequence[VariantAccuracy], settings: dict[str, Any]) -> Table:
    table = Table(title="accuracy per variant (Wilson intervals)", title_justify="left", show_edge=False)
    for column in ("perturbation", "variant", "accuracy", "chance", "n"):
        table.add_column(column, justify="left" if column in ("perturbation", "variant") else "right")
    unanswered = any(entry.n_unanswered for entry in accuracies)
    if unanswered:
        table.add_column("no answer", justify="right")
    clustered = any(not math.isnan(entry.design_effect) for entry in accuracies)
    if clustered:
        table.title = "accuracy per variant (cluster-robust intervals where the items cluster)"
        table.add_column("design effect", justify="right")
    groups: dict[str, list[VariantAccuracy]] = {}
    for entry in accuracies:
        groups.setdefault(entry.perturbation, []).append(entry)
    for perturbation, entries in groups.items():
        if len(entries) > _COLLAPSE_ABOVE:
            table.add_row(escape(perturbation), *_collapsed_cells(entries, unanswered, clustered))
            continue
        for number, entry in enumerate(entries):
            cells = [
                escape(_variant_name(entry, settings)),
                _interval(entry.accuracy),
                _number(entry.accuracy.baseline),
                str(entry.accuracy.n),
            ]
            cells += [str(entry.n_unanswered)] if unanswered else []
            cells += [_number(entry.design_effect)] if clustered else []
            table.add_row(escape(perturbation) if number == 0 else "", *cells)
    return table


def _variant_name(entry: VariantAccuracy, settings: dict[str, Any]) -> str:
    """The variant, with its rule and format where they are not the run's main ones (and not already its name)."""
    name = entry.variant
    if entry.rule not in (settings.get("rule"), entry.variant):
        name += f" ({entry.rule})"
    if entry.format not in (settings.get("format"), entry.variant):
        name += f", {entry.format}"
    return name


def _collapsed_cells(entries: list[VariantAccuracy], unanswered: bool, clustered: bool = False) -> list[str]:
    defined = [entry for entry in entries if not math.isnan(entry.accuracy.value)] or entries
    low = min(defined, key=lambda entry: entry.accuracy.value)
    high = max(defined, key=lambda entry: entry.accuracy.value)
    cells = [
        escape(f"{len(entries)} variants: {low.variant} .. {high.variant}"),
        f"{low.accuracy.value:.3f} .. {high.accuracy.value:.3f}",
        _span([entry.accuracy.baseline for entry in entries], _number),
        _span([entry.accuracy.n for entry in entries], str),
    ]
    cells += [_span([entry.n_unanswered for entry in entries], str)] if unanswered else []
    return cells + ([_span([entry.design_effect for entry in entries], _number)] if clustered else [])


def _span(values: Sequence[Any], show: Callable[[Any], str]) -> str:
    """One value when all are alike, else the lowest .. the highest."""
    shown = sorted(set(values))
    return show(shown[0]) if len(shown) == 1 else f"{show(shown[0])} .. {show(shown[-1])}"


def _number(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3f}"


def _cost_table(result: StressResult) -> Table:
    table = Table(title="cost of each perturbation (against one plain pass)", title_justify="left", show_edge=False)
    for column in ("perturbation", "questions", "requests", "passes ratio", "requests ratio"):
        table.add_column(column, justify="left" if column == "perturbation" else "right")
    for cost in result.costs:
        table.add_row(
            escape(cost.perturbation),
            str(cost.questions),
            str(cost.requests),
            _ratio(cost.passes_ratio),
            _ratio(cost.requests_ratio),
        )
    return table


def _ratio(value: float) -> str:
    return "-" if math.isnan(value) else f"x{value:.2f}"


def render_ranks(ranks: RankStability, console: Console) -> None:
    """Print the leaderboard per variant (accuracy and place with intervals), tau, W, the largest shift, and the
    pairwise comparisons on the identity variant (the first variant when there is none).

    Example:
        >>> import io
        >>> from pfungst.stress.ranks import rank_stability
        >>> plain = {"a": {"q1": True, "q2": True}, "b": {"q1": True, "q2": False}}
        >>> moved = {"a": {"q1": False, "q2": False}, "b": {"q1": True, "q2": True}}
        >>> ranks = rank_stability({m: {"identity": plain[m], "moved": moved[m]} for m in "ab"}, seed=0,
        ...                        n_bootstrap=50)
        >>> console = Console(file=io.StringIO(), width=100)
        >>> render_ranks(ranks, console)
        >>> print(console.file.getvalue().splitlines()[0])
        rank stability: 2 models x 2 variants (seed 0, 50 resamples)
    """
    console.print(
        f"[bold]rank stability[/bold]: {_count(len(ranks.models), 'model')} x "
        f"{_count(len(ranks.variants), 'variant')} (seed {ranks.seed}, {ranks.n_bootstrap} resamples)"
    )
    table = Table(title=f"accuracy [{ranks.level:.0%} CI] and place #rank [CI]", title_justify="left", show_edge=False)
    table.add_column("variant")
    for model in ranks.models:
        table.add_column(escape(_short_model(model)), justify="right")
    places: dict[tuple[str, str], ModelRank] = {(entry.model, entry.variant): entry for entry in ranks.ranks}
    for variant in ranks.variants:
        table.add_row(escape(variant), *(_rank_cell(places.get((model, variant))) for model in ranks.models))
    console.print(table)
    _render_agreement(ranks, console)
    variant = "identity" if "identity" in ranks.variants else ranks.variants[0]
    pairs = [comparison for comparison in ranks.pairwise if comparison.variant == variant]
    if pairs:
        pairwise = Table(title=f"pairwise on {escape(variant)}", title_justify="left", show_edge=False)
        for column in ("first", "second", "difference [CI]", "McNemar p"):
            pairwise.add_column(column, justify="left" if column in ("first", "second") else "right")
        for comparison in pairs:
            pairwise.add_row(
                escape(_short_model(comparison.first)),
                escape(_short_model(comparison.second)),
                _interval(comparison.difference),
                _p(comparison.difference.pvalue),
            )
        console.print(pairwise)


def _rank_cell(entry: ModelRank | None) -> str:
    if entry is None:
        return "-"
    ci = entry.rank_ci
    interval = "" if math.isnan(ci.low) else f" [{ci.low:.3g}, {ci.high:.3g}]"
    return f"{_interval(entry.accuracy)}\n#{entry.rank:.3g}{interval}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _render_agreement(ranks: RankStability, console: Console) -> None:
    defined = [agreement for agreement in ranks.taus if not math.isnan(agreement.tau.value)]
    if defined:
        lowest = min(defined, key=lambda agreement: agreement.tau.value)
        undefined = len(ranks.taus) - len(defined)
        console.print(
            f"Kendall's tau between variants: lowest {lowest.tau.value:.3f} (p {_p(lowest.tau.pvalue)}), "
            f"{escape(lowest.variant_a)} vs {escape(lowest.variant_b)}; {_count(len(ranks.taus), 'pair')}"
            + (f", {undefined} undefined (all models tie)" if undefined else "")
        )
    elif ranks.taus:
        console.print(f"Kendall's tau between variants: undefined for all {len(ranks.taus)} pairs (all models tie)")
    concordance = ranks.concordance
    if math.isnan(concordance.value):
        console.print(escape(concordance.method))
    else:
        console.print(
            f"Kendall's W {concordance.value:.3f}, p {_p(concordance.pvalue)} "
            "(1 = every variant orders the models alike)"
        )
    shift = ranks.largest_shift
    if shift.shift == 0:
        console.print("largest rank shift: none, no model changes place")
    else:
        console.print(
            f"largest rank shift: {escape(_short_model(shift.model))} from #{shift.from_rank:.3g} on "
            f"{escape(shift.from_variant)} to #{shift.to_rank:.3g} on {escape(shift.to_variant)} "
            f"({shift.shift:+.3g})"
        )
