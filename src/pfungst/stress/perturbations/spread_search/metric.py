"""What ``spread-search`` finds (Sclar et al., ICLR 2024): the best and the worst prompt format within a budget of
item evaluations, by Thompson sampling (the first half of the budget hunts the best format, the second the worst)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pfungst.blocks import Block, Facts, Table, format_number
from pfungst.errors import ConfigError
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import ConfidenceInterval, Estimate
from pfungst.stress.estimates import estimates_table
from pfungst.stress.perturbations.format_accuracy import FormatAccuracy, format_accuracy

__all__ = ["SpreadSearch", "search_spread"]


@dataclass(frozen=True)
class SpreadSearch:
    """The outcome of a budgeted Thompson-sampling search for the best and the worst format."""

    KIND: ClassVar[str] = "spread-search"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Format spread search"
    """The result's heading in reports."""

    best: FormatAccuracy
    """The format judged best, with the accuracy of the items it was asked."""
    worst: FormatAccuracy
    """The format judged worst, likewise."""
    spread: Estimate
    """Best minus worst observed accuracy. Its interval, (best low - worst high, best high - worst low) from the two
    Wilson intervals, is conservative: it covers at least at ``level`` when both intervals do."""
    budget: int
    """Item evaluations allowed."""
    evaluations: int
    """Item evaluations spent (at most ``budget``)."""
    pulls: dict[str, tuple[int, int]]
    """Per format: (items answered correctly, items asked)."""
    history: tuple[tuple[str, int, int], ...]
    """Every pull in order: (format, items asked, items answered correctly)."""
    seed: int
    """Seed of the sampling and of the item order."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "best": self.best.to_dict(),
            "worst": self.worst.to_dict(),
            "spread": self.spread.to_dict(),
            "budget": self.budget,
            "evaluations": self.evaluations,
            "pulls": {name: list(counts) for name, counts in self.pulls.items()},
            "history": [list(entry) for entry in self.history],
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> SpreadSearch:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """The best and worst format found and their spread, the evaluations spent, items asked per format."""
        named = [
            (f"best: {self.best.format}", self.best.accuracy),
            (f"worst: {self.worst.format}", self.worst.accuracy),
            ("spread (best - worst)", self.spread),
        ]
        rows = tuple((name, format_number(counts[0]), format_number(counts[1])) for name, counts in self.pulls.items())
        evaluations = f"{format_number(self.evaluations)} of a budget of {format_number(self.budget)}"
        facts = Facts((("evaluations", evaluations), ("seed", format_number(self.seed))))
        return (
            estimates_table("Best and worst format found", named),
            facts,
            Table("Items asked per format", ("format", "right", "asked"), rows),
        )


def search_spread(
    formats: Sequence[str],
    n_items: int,
    ask: Callable[[str, Sequence[int]], Sequence[bool]],
    *,
    budget: int,
    batch: int = 10,
    seed: int,
    level: float = 0.95,
) -> SpreadSearch:
    """Find the best and the worst format within ``budget`` item evaluations by Thompson sampling.

    Each format has a Beta(1, 1) prior on its accuracy. In the first half of the budget, every round draws an
    accuracy from each format's posterior and asks the format with the highest draw ``batch`` items it has not seen
    (a seeded order per format); in the second half, the format with the lowest draw. A format that has seen every
    item is not asked again. The best is the format with the highest posterior mean among those asked in the first
    half; the worst the one with the lowest posterior mean among those asked in the second half, other than the best
    (when the second half asked no other format, among all formats asked other than the best).

    Args:
        formats: The format names, at least two.
        n_items: How many items there are (indices ``0 .. n_items - 1``).
        ask: ``ask(format, item_indices)`` answers those items in that format and says whether each was correct.
        budget: Item evaluations allowed, at least ``2 * batch``.
        batch: Items asked per pull.
        seed: Seed of the posterior draws and of each format's item order.
        level: Coverage of the Wilson intervals.

    Raises:
        ConfigError: Fewer than two (distinct) formats, no items, ``batch < 1``, ``budget < 2 * batch``, or ``ask``
            returned the wrong number of answers.

    Example:
        >>> def ask(fmt, items):
        ...     return [fmt == "good" or item % 4 == 0 for item in items]
        >>> result = search_spread(["good", "bad"], 100, ask, budget=60, batch=10, seed=0)
        >>> result.best.format, result.worst.format, result.evaluations
        ('good', 'bad', 60)
    """
    _check_search(formats, n_items, budget, batch)
    rng = np.random.default_rng(seed)
    search = _Search(
        ask, rng, {name: rng.permutation(n_items) for name in formats}, {name: [0, 0] for name in formats}, []
    )
    hunted_best = search.hunt(budget // 2, batch, highest=True)
    hunted_worst = search.hunt(budget - budget // 2, batch, highest=False)
    counts = search.counts
    best = max(hunted_best, key=lambda name: (_posterior_mean(counts[name]), name))
    worst = _pick_worst(best, hunted_worst, counts)
    best_entry = format_accuracy(best, counts[best][0], counts[best][1], level)
    worst_entry = format_accuracy(worst, counts[worst][0], counts[worst][1], level)
    return SpreadSearch(
        best=best_entry,
        worst=worst_entry,
        spread=_difference(best_entry.accuracy, worst_entry.accuracy),
        budget=budget,
        evaluations=sum(trials for _, trials in counts.values()),
        pulls={name: (successes, trials) for name, (successes, trials) in counts.items()},
        history=tuple(search.history),
        seed=seed,
    )


def _check_search(formats: Sequence[str], n_items: int, budget: int, batch: int) -> None:
    if len(set(formats)) < 2 or len(set(formats)) != len(formats):
        raise ConfigError(f"a spread search needs at least 2 distinct formats; got {list(formats)}")
    if n_items < 1:
        raise ConfigError(f"a spread search needs items to ask; got n_items={n_items}")
    if batch < 1:
        raise ConfigError(f"batch must be at least 1 item per pull; got {batch}")
    if budget < 2 * batch:
        raise ConfigError(
            f"budget {budget} is below 2 * batch = {2 * batch}: each half of the search needs at least one pull. "
            "Raise the budget or lower the batch."
        )


@dataclass
class _Search:
    """The running state of a spread search: each format's item order, its (successes, trials), every pull."""

    ask: Callable[[str, Sequence[int]], Sequence[bool]]
    rng: np.random.Generator
    orders: dict[str, np.ndarray]
    counts: dict[str, list[int]]
    history: list[tuple[str, int, int]]

    def hunt(self, allowance: int, batch: int, *, highest: bool) -> list[str]:
        """Spend up to ``allowance`` evaluations on the highest (lowest) posterior draw; return who was pulled."""
        pulled: list[str] = []
        while allowance > 0:
            open_formats = [name for name, order in self.orders.items() if self.counts[name][1] < len(order)]
            if not open_formats:
                break
            draws = [
                self.rng.beta(1 + self.counts[name][0], 1 + self.counts[name][1] - self.counts[name][0])
                for name in open_formats
            ]
            name = open_formats[int(np.argmax(draws) if highest else np.argmin(draws))]
            self._pull(name, min(batch, allowance))
            allowance -= self.history[-1][1]
            if name not in pulled:
                pulled.append(name)
        return pulled

    def _pull(self, name: str, size: int) -> None:
        start = self.counts[name][1]
        items = [int(index) for index in self.orders[name][start : start + size]]
        answers = list(self.ask(name, items))
        if len(answers) != len(items):
            raise ConfigError(
                f"ask('{name}', ...) returned {len(answers)} answers for {len(items)} items; "
                "it must return one bool per item index, in order"
            )
        correct = sum(bool(answer) for answer in answers)
        self.counts[name][0] += correct
        self.counts[name][1] += len(items)
        self.history.append((name, len(items), correct))


def _pick_worst(best: str, hunted: list[str], counts: dict[str, list[int]]) -> str:
    pool = [name for name in hunted if name != best]
    if not pool:  # the second half asked only the best (or nothing): fall back on every other format asked
        pool = [name for name, (_, trials) in counts.items() if trials and name != best] or [best]
    return min(pool, key=lambda name: (_posterior_mean(counts[name]), name))


def _posterior_mean(count: list[int]) -> float:
    successes, trials = count
    return (1 + successes) / (2 + trials)


def _difference(best: Estimate, worst: Estimate) -> Estimate:
    nan = ConfidenceInterval(float("nan"), float("nan"))
    best_ci, worst_ci = best.ci or nan, worst.ci or nan
    ci = ConfidenceInterval(best_ci.low - worst_ci.high, best_ci.high - worst_ci.low, best_ci.level)
    return Estimate(
        value=best.value - worst.value,
        method="best minus worst observed accuracy; conservative interval from the two Wilson intervals",
        n=best.n + worst.n,
        ci=ci,
    )
