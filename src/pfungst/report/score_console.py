"""Console rendering of a :class:`~pfungst.evaluate.score_result.ScoreResult`: accuracy against chance, counts."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from pfungst.evaluate.score_result import ScoreResult

__all__ = ["render_score"]


def render_score(result: ScoreResult, console: Console) -> None:
    """Print the accuracy with its interval and chance, answer statuses, chosen positions, and cache counts.

    Example:
        >>> import io
        >>> from pfungst.data import Benchmark, Item
        >>> from pfungst.models.requests import Loglikelihood
        >>> from pfungst.evaluate.runner import score_benchmark
        >>> class Shortest:
        ...     fingerprint, capabilities = "shortest", frozenset({"loglikelihood"})
        ...     def loglikelihood(self, requests):
        ...         return [Loglikelihood(-len(r.continuation), 1, len(r.continuation), True) for r in requests]
        >>> result = score_benchmark(Benchmark("toy", (Item("a", "1 + 1 =", ("2", "11"), 0),)), Shortest(),
        ...                          cache=False)
        >>> console = Console(file=io.StringIO(), width=100)
        >>> render_score(result, console)
        >>> print(console.file.getvalue().splitlines()[1])
        accuracy 1.000 [0.207, 1.000] (95% Wilson interval), chance 0.500, n = 1
    """
    settings = result.settings
    console.print(
        f"[bold]score of {escape(result.benchmark['name'])}[/bold]: {len(result.items)} items, "
        f"rule {escape(result.rule)}, format {escape(str(settings['format']))}, "
        f"model {escape(_short_model(result.model))}"
    )
    accuracy = result.accuracy
    ci = accuracy.ci
    interval = ""
    if ci is not None and not math.isnan(ci.low):
        interval = f" [{ci.low:.3f}, {ci.high:.3f}] ({ci.level:.0%} Wilson interval)"
    console.print(f"accuracy {accuracy.value:.3f}{interval}, chance {accuracy.baseline:.3f}, n = {accuracy.n}")
    if result.rule == "generate":
        answered = len(result.items) - result.n_refused - result.n_unparseable
        console.print(
            f"answers: {answered} parsed, {result.n_refused} refused, {result.n_unparseable} unparseable "
            "(refused and unparseable count as wrong)"
        )
    console.print(f"chosen positions: {_positions(result)}")
    counts = result.counts
    console.print(
        f"requests {counts.requests} ({counts.unique_requests} distinct): {counts.hits} from the cache, "
        f"{counts.misses} asked of the model in {counts.model_calls} calls, {counts.seconds:.1f} s"
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


def _short_model(fingerprint: str) -> str:
    """The model file's name for a llama.cpp fingerprint (``llamacpp:<path>:<size>:<sha256>``), else all of it."""
    parts = fingerprint.split(":")
    if fingerprint.startswith("llamacpp:") and len(parts) >= 4:
        return Path(":".join(parts[1:-2])).name
    return fingerprint
