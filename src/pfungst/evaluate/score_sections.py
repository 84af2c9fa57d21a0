"""Blocks of a score (:class:`~pfungst.evaluate.score_result.ScoreResult`): accuracy against chance, answers, cost.

Nothing is computed here but counts of the per-item records the result holds (chosen positions).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any

from pfungst.blocks import (
    ESTIMATE_COLUMNS,
    Block,
    Facts,
    Section,
    Table,
    Text,
    estimate_row,
    format_estimate,
    format_number,
    methods_note,
    short_model,
)
from pfungst.data.summary_sections import benchmark_facts
from pfungst.results import Overview

if TYPE_CHECKING:
    from pfungst.evaluate.score_result import ScoreResult

__all__ = ["request_facts", "score_chapter", "score_overview", "score_sections"]


def score_chapter(result: ScoreResult) -> tuple[Section, ...]:
    """The score's chapter (model and benchmark, the benchmark's facts), then its sections."""
    title = f"Model score: {short_model(result.model)} on {result.benchmark.get('name', '?')}"
    return (Section(title, (benchmark_facts(result.benchmark, result.provenance.data),)), *score_sections(result))


def score_overview(result: ScoreResult) -> Overview:
    """The score's board row and headline: accuracy against chance, and whether its interval clears chance."""
    accuracy = result.accuracy
    chance = "n/a" if math.isnan(accuracy.baseline) else f"{accuracy.baseline:.3f}"
    headline = f"accuracy {format_estimate(accuracy)}, chance {chance}"
    above = accuracy.ci is not None and accuracy.ci.low > accuracy.baseline
    verdict = "above chance" if above else "not above chance"
    name, model = str(result.benchmark.get("name", "?")), short_model(result.model)
    return Overview(result.benchmark, model, headline, ((name, model, verdict, headline, "info" if above else "warn"),))


def score_sections(result: ScoreResult) -> tuple[Section, ...]:
    """Accuracy against chance with its interval (Wilson, or cluster-robust where the items cluster), refusals,
    unparseable answers, positions and requests.

    Example:
        >>> import pfungst
        >>> from pfungst.data import Benchmark, Item
        >>> from pfungst.models.requests import Loglikelihood
        >>> class Shortest:
        ...     fingerprint, capabilities = "shortest", frozenset({"loglikelihood"})
        ...     def loglikelihood(self, requests):
        ...         return [Loglikelihood(-len(r.continuation), 1, len(r.continuation), True) for r in requests]
        >>> result = pfungst.score(Benchmark("toy", (Item("a", "1 + 1 =", ("2", "11"), 0),)), Shortest(), cache=False)
        >>> print(score_sections(result)[0].blocks[0].text)
        accuracy 1.000 [0.207, 1.000] (95% Wilson interval), chance 0.500, n = 1
    """
    settings, accuracy = result.provenance.settings, result.accuracy
    interval = ""
    if accuracy.ci is not None and not math.isnan(accuracy.ci.low):
        kind = "Wilson" if accuracy.method == "wilson" else "cluster-robust"
        interval = f" [{accuracy.ci.low:.3f}, {accuracy.ci.high:.3f}] ({accuracy.ci.level:.0%} {kind} interval)"
    blocks: list[Block] = [
        Text(f"accuracy {accuracy.value:.3f}{interval}, chance {accuracy.baseline:.3f}, n = {accuracy.n}"),
        Table("Accuracy", ESTIMATE_COLUMNS, (estimate_row("accuracy", accuracy),), note=methods_note([accuracy])),
        Facts(
            (
                ("scoring rule", str(settings.get("rule", "?"))),
                ("format", str(settings.get("format", "?"))),
                ("refused", format_number(result.n_refused)),
                ("unparseable", format_number(result.n_unparseable)),
                *(() if math.isnan(result.design_effect) else (("design effect", f"{result.design_effect:.2f}"),)),
            )
        ),
    ]
    if result.rule == "generate":
        answered = result.n_items - result.n_refused - result.n_unparseable
        blocks.append(
            Text(
                f"answers: {answered} parsed, {result.n_refused} refused, {result.n_unparseable} unparseable "
                "(refused and unparseable count as wrong)"
            )
        )
    if result.n_skipped:
        blocks.append(
            Text(f"skipped: {result.n_skipped} items did not fit the model's context window (they count as wrong)")
        )
    if result.items:
        blocks.append(Text(f"chosen positions: {_positions(result)}"))
    blocks.append(request_facts(result.counts))
    return (Section(f"Accuracy ({settings.get('rule', '?')})", tuple(blocks), level=3),)


def request_facts(counts: Any) -> Facts:
    """What a run asked of its model: requests (distinct), cache hits and misses, model calls, seconds."""
    return Facts(
        (
            ("requests", f"{format_number(counts.requests)} ({format_number(counts.unique_requests)} distinct)"),
            (
                "cache",
                f"{format_number(counts.hits)} hits, {format_number(counts.misses)} asked of "
                f"the model in {format_number(counts.model_calls)} calls",
            ),
            ("seconds", format_number(counts.seconds, 1)),
        )
    )


def _positions(result: ScoreResult) -> str:
    """How often each option position was chosen (letters A, B, ...), the rest as 'none'."""
    counts = Counter(record.chosen for record in result.items)
    parts = [f"{_letter(position)} {counts[position]}" for position in sorted(p for p in counts if p >= 0)]
    if counts[-1]:
        parts.append(f"none {counts[-1]}")
    return ", ".join(parts)


def _letter(position: int) -> str:
    return chr(ord("A") + position) if position < 26 else str(position + 1)
