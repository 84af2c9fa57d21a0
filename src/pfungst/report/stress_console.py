"""Console rendering of a stress run and of a leaderboard's rank stability. Renders result objects; computes nothing.

Every figure, interval, baseline and test comes from the result. Each analysis is drawn by the renderer registered
for its result's type in :data:`_RENDERERS`; an analysis of any other type is printed field by field from its
``to_dict()``, so a new analysis shows up (plainly) before it has a renderer of its own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pfungst.report.audit_console import _interval, _p
from pfungst.report.console import _estimate_line
from pfungst.report.score_console import _short_model
from pfungst.stats import Estimate
from pfungst.stress.metrics import AnswerMoved, CircularMetrics, PairedDifference, SelectionBias, VariantAccuracy
from pfungst.stress.multiprompt import MultiPromptStats
from pfungst.stress.pride import PrideResult
from pfungst.stress.ranks import ModelRank, RankStability
from pfungst.stress.spread import FormatAccuracy, FormatSpread, SpreadSearch
from pfungst.stress.stress_result import StressResult

__all__ = ["render_ranks", "render_stress"]

_COLLAPSE_ABOVE = 6
"""A perturbation with more variants than this is shown as one row: the least and the most accurate variant."""
_BAR_WIDTH = 20
"""Characters of a recall bar at recall 1."""
_GENERIC_WIDTH = 80
"""Characters of one field's JSON shown for an analysis without a renderer."""


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
    if result.accuracies:
        console.print(_accuracy_table(result.accuracies, result.settings))
    for analysis in result.analyses:
        console.print(f"[bold]{escape(analysis.name)}[/bold] ({escape(analysis.subject)})")
        _RENDERERS.get(type(analysis.value), _render_generic)(analysis.value, console)
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
    groups: dict[str, list[VariantAccuracy]] = {}
    for entry in accuracies:
        groups.setdefault(entry.perturbation, []).append(entry)
    for perturbation, entries in groups.items():
        if len(entries) > _COLLAPSE_ABOVE:
            table.add_row(escape(perturbation), *_collapsed_cells(entries, unanswered))
            continue
        for number, entry in enumerate(entries):
            cells = [
                escape(_variant_name(entry, settings)),
                _interval(entry.accuracy),
                _number(entry.accuracy.baseline),
                str(entry.accuracy.n),
            ]
            table.add_row(
                escape(perturbation) if number == 0 else "", *cells, *([str(entry.n_unanswered)] if unanswered else [])
            )
    return table


def _variant_name(entry: VariantAccuracy, settings: dict[str, Any]) -> str:
    """The variant, with its rule and format where they are not the run's main ones (and not already its name)."""
    name = entry.variant
    if entry.rule not in (settings.get("rule"), entry.variant):
        name += f" ({entry.rule})"
    if entry.format not in (settings.get("format"), entry.variant):
        name += f", {entry.format}"
    return name


def _collapsed_cells(entries: list[VariantAccuracy], unanswered: bool) -> list[str]:
    defined = [entry for entry in entries if not math.isnan(entry.accuracy.value)] or entries
    low = min(defined, key=lambda entry: entry.accuracy.value)
    high = max(defined, key=lambda entry: entry.accuracy.value)
    cells = [
        escape(f"{len(entries)} variants: {low.variant} .. {high.variant}"),
        f"{low.accuracy.value:.3f} .. {high.accuracy.value:.3f}",
        _span([entry.accuracy.baseline for entry in entries], _number),
        _span([entry.accuracy.n for entry in entries], str),
    ]
    return cells + ([_span([entry.n_unanswered for entry in entries], str)] if unanswered else [])


def _span(values: Sequence[Any], show: Callable[[Any], str]) -> str:
    """One value when all are alike, else the lowest .. the highest."""
    shown = sorted(set(values))
    return show(shown[0]) if len(shown) == 1 else f"{show(shown[0])} .. {show(shown[-1])}"


def _number(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3f}"


def _estimate_table(rows: Sequence[tuple[str, Estimate]], baseline: str = "chance") -> Table:
    """One row per figure: value [interval], the baseline it must beat and its p-value (each when any has one), n."""
    table = Table(show_edge=False, box=None, padding=(0, 1, 0, 2))
    table.add_column("")
    table.add_column("value [CI]", justify="right")
    compared = any(not math.isnan(estimate.baseline) for _, estimate in rows)
    if compared:
        table.add_column(baseline, justify="right")
    table.add_column("n", justify="right")
    tested = any(not math.isnan(estimate.pvalue) for _, estimate in rows)
    if tested:
        table.add_column("p", justify="right")
    for label, estimate in rows:
        table.add_row(
            escape(label),
            _interval(estimate),
            *([_number(estimate.baseline)] if compared else []),
            str(estimate.n),
            *([_p(estimate.pvalue)] if tested else []),
        )
    return table


def _render_selection_bias(bias: SelectionBias, console: Console) -> None:
    width = max((len(name) for name in bias.ids), default=1)
    console.print(f"  recall per {bias.by} (share of items with the gold there that chose it):")
    for name, recall in zip(bias.ids, bias.recalls, strict=True):
        shown = escape(f"{name:>{width}}")
        if math.isnan(recall.value):
            console.print(f"    {shown} {'':<{_BAR_WIDTH}} n/a (no gold here)")
            continue
        bar = "█" * round(recall.value * _BAR_WIDTH)
        console.print(
            f"    {shown} {bar:<{_BAR_WIDTH}} {_interval(recall)}, chance {_number(recall.baseline)}, n={recall.n}"
        )
    rstd, ci = bias.rstd, bias.rstd.ci
    interval = f" [{ci.low:.1f}, {ci.high:.1f}]" if ci is not None and not math.isnan(ci.low) else ""
    console.print(f"  RStd {rstd.value:.1f}{interval} (0 = no {bias.by} bias; n={rstd.n} items)")
    chosen = ", ".join(f"{escape(name)} {count}" for name, count in zip(bias.ids, bias.predicted, strict=True))
    expected = _span([round(count, 2) for count in bias.expected], lambda value: f"{value:g}")
    uniformity = bias.uniformity
    test = "" if math.isnan(uniformity.value) else f"; chi-squared {uniformity.value:.2f}, p {_p(uniformity.pvalue)}"
    console.print(f"  chosen {bias.by}s: {chosen} (uniform choice expects {expected} each){test}")
    if bias.predicted and max(bias.predicted) > 0:
        top = escape(bias.ids[bias.predicted.index(max(bias.predicted))])
        console.print(_estimate_line(f"  share choosing the favourite ({top})", bias.top_share))
    if bias.n_unanswered:
        console.print(f"  {bias.n_unanswered} items unanswered (they count as not chosen)")


def _render_circular(metrics: CircularMetrics, console: Console) -> None:
    fewest, most = metrics.arrangements
    arrangements = str(fewest) if fewest == most else f"{fewest}-{most}"
    console.print(f"  {arrangements} arrangements per item, {metrics.n_items} items")
    console.print(
        _estimate_table(
            [
                ("plain (original order)", metrics.plain),
                ("mean over arrangements", metrics.mean),
                ("circular (right in every one)", metrics.circular),
                ("consistency (same answer in all)", metrics.consistency),
                ("fluctuation (answer moved)", metrics.fluctuation),
            ]
        )
    )


def _render_answer_moved(moved: AnswerMoved, console: Console) -> None:
    rows = [(f"gold in slot {slot}", estimate) for slot, estimate in zip(moved.slots, moved.per_slot, strict=True)]
    rows += [("gap (best - worst slot)", moved.gap), ("right in every slot", moved.worst_case)]
    console.print(_estimate_table(rows, baseline="baseline"))
    console.print(f"  {moved.n_items} items")


def _render_paired(paired: PairedDifference, console: Console) -> None:
    console.print(
        _estimate_table(
            [
                (f"accuracy, {paired.first}", paired.first_accuracy),
                (f"accuracy, {paired.second}", paired.second_accuracy),
                ("difference", paired.difference),
            ],
            baseline="baseline",
        )
    )
    only_first, only_second = paired.n_discordant
    console.print(
        f"  p: exact McNemar test; {only_first} items right only with {escape(paired.first)}, "
        f"{only_second} only with {escape(paired.second)}, of {paired.n_items}"
    )


def _render_pride(result: PrideResult, console: Console) -> None:
    console.print(
        _estimate_table(
            [
                ("plain accuracy", result.plain),
                ("debiased, all items", result.debiased),
                ("debiased, the rest (one pass each)", result.debiased_rest),
            ]
        )
    )
    for k, prior in result.prior.by_n_options.items():
        shares = ", ".join(f"{position + 1} {share:.3f}" for position, share in enumerate(prior))
        console.print(f"  prior over positions, K={k} ({result.prior.n_items.get(k, 0)} items): {shares}")
    console.print(
        f"  {result.passes} passes against {result.plain_passes} plain: cost x{result.cost_ratio:.2f}; "
        f"prior from {len(result.estimation_items)} items ({result.fraction:.0%})"
    )


def _format_line(label: str, entry: FormatAccuracy) -> str:
    return f"  {label} {escape(entry.format)}: {_interval(entry.accuracy)} (n={entry.n})"


def _render_format_spread(spread: FormatSpread, console: Console) -> None:
    if spread.formats:
        console.print(_format_line("best", spread.formats[0]))
        console.print(_format_line("worst", spread.formats[-1]))
    console.print(_estimate_line("  spread (best - worst)", spread.spread) + f" over {spread.n_formats} formats")


def _render_spread_search(search: SpreadSearch, console: Console) -> None:
    console.print(_format_line("best", search.best))
    console.print(_format_line("worst", search.worst))
    console.print(
        _estimate_line("  spread (best - worst)", search.spread)
        + f"; {search.evaluations} item evaluations of a budget of {search.budget}"
    )


def _render_multiprompt(stats: MultiPromptStats, console: Console) -> None:
    console.print(
        _estimate_table(
            [
                ("MaxP (best prompt)", stats.maxp),
                ("AvgP (mean over prompts)", stats.avgp),
                ("CPS", stats.cps),
                ("spread (best - worst)", stats.spread),
            ],
            baseline="baseline",
        )
    )
    console.print(f"  {len(stats.prompts)} prompts, {stats.n_items} items")


def _render_generic(value: Any, console: Console) -> None:
    """Any other result: each top-level field of its ``to_dict()`` as (shortened) JSON."""
    to_dict = getattr(value, "to_dict", None)
    if not callable(to_dict):
        console.print(f"  {escape(repr(value))}")
        return
    for key, field in to_dict().items():
        text = json.dumps(field, default=str, ensure_ascii=False)
        if len(text) > _GENERIC_WIDTH:
            text = text[: _GENERIC_WIDTH - 3] + "..."
        console.print(f"  {escape(str(key))}: {escape(text)}", highlight=False)


_RENDERERS: dict[type, Callable[[Any, Console], None]] = {
    SelectionBias: _render_selection_bias,
    CircularMetrics: _render_circular,
    AnswerMoved: _render_answer_moved,
    PairedDifference: _render_paired,
    PrideResult: _render_pride,
    FormatSpread: _render_format_spread,
    SpreadSearch: _render_spread_search,
    MultiPromptStats: _render_multiprompt,
}
"""Result type of an analysis -> what prints it (below its name and subject)."""


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
