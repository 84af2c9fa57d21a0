"""FormatSpread (Sclar et al., ICLR 2024): how far accuracy moves between prompt formats that mean the same thing.

:func:`format_spread` measures the spread (best minus worst format accuracy) when every format has answered the same
items, with a paired bootstrap interval. :func:`search_spread` estimates it under a budget of item evaluations with
Thompson sampling, as the paper does: the first half of the budget hunts the best format, the second half the worst.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.stats import ConfidenceInterval, Estimate, bootstrap_interval, wilson_interval
from pfungst.stress.spread_result import FormatAccuracy, FormatSpread, SpreadSearch

__all__ = [
    "CorrectnessTable",
    "FormatAccuracy",
    "FormatSpread",
    "SpreadSearch",
    "correctness_table",
    "format_spread",
    "search_spread",
]

_GROUPINGS = ("format", "variant", "rule", "perturbation")


class CorrectnessTable(NamedTuple):
    """Whether each item was answered correctly under each prompt, items paired across prompts."""

    names: tuple[str, ...]
    """The prompts (formats, variants, ...) in first-seen order."""
    item_ids: tuple[str, ...]
    """The items, in first-seen order; every prompt answered each of them once."""
    correct: np.ndarray
    """Boolean matrix, one row per name and one column per item."""


def correctness_table(outcomes: Sequence[Outcome], *, by: str = "format") -> CorrectnessTable:
    """Arrange outcomes as a prompt x item matrix of correct answers, checking that items are paired.

    Args:
        outcomes: One outcome per (prompt, item).
        by: The outcome field that names the prompt: ``format``, ``variant``, ``rule`` or ``perturbation``.

    Raises:
        ConfigError: ``by`` is not one of those fields, fewer than two prompts, a (prompt, item) pair occurs twice,
            or the prompts did not all answer the same items.

    Example:
        >>> from pfungst.evaluate.outcome import Outcome
        >>> def answer(fmt, item, chosen):
        ...     return Outcome(item, "formats", fmt, "letter", fmt, (0, 1), ("A", "B"), 0, chosen, chosen, "ok",
        ...                    (0.0, -1.0))
        >>> table = correctness_table([answer("f1", "q1", 0), answer("f2", "q1", 1)])
        >>> table.names, table.correct.tolist()
        (('f1', 'f2'), [[True], [False]])
    """
    if by not in _GROUPINGS:
        raise ConfigError(f"cannot group outcomes by {by!r}; expected one of {', '.join(_GROUPINGS)}")
    cells: dict[str, dict[str, bool]] = {}
    for outcome in outcomes:
        row = cells.setdefault(str(getattr(outcome, by)), {})
        if outcome.item_id in row:
            raise ConfigError(
                f"item '{outcome.item_id}' occurs twice for {by} '{getattr(outcome, by)}'; expected one outcome per "
                f"({by}, item). Filter the outcomes to one rule and one variant first."
            )
        row[outcome.item_id] = outcome.correct
    if len(cells) < 2:
        raise ConfigError(f"found {len(cells)} distinct {by} value(s); comparing prompts needs at least 2")
    names = tuple(cells)
    item_ids = tuple(dict.fromkeys(item for row in cells.values() for item in row))
    for name in names:
        missing = [item for item in item_ids if item not in cells[name]]
        if missing:
            raise ConfigError(
                f"{by} '{name}' has no outcome for {len(missing)} item(s) others answered (first: '{missing[0]}'); "
                "a paired comparison needs every prompt on the same items. Keep only the items all prompts answered."
            )
    matrix = np.array([[cells[name][item] for item in item_ids] for name in names], dtype=bool)
    return CorrectnessTable(names, item_ids, matrix)


def format_spread(
    outcomes: Sequence[Outcome], *, seed: int, n_bootstrap: int = 1000, level: float = 0.95
) -> FormatSpread:
    """Accuracy per prompt format and the spread between the best and the worst, on the same items.

    Args:
        outcomes: One outcome per (format, item); every format must have answered the same items.
        seed: Seed of the bootstrap.
        n_bootstrap: Bootstrap resamples of the items.
        level: Coverage of the intervals.

    Raises:
        ConfigError: See :func:`correctness_table`.

    Example:
        >>> from pfungst.evaluate.outcome import Outcome
        >>> def answer(fmt, item, chosen):
        ...     return Outcome(item, "formats", fmt, "letter", fmt, (0, 1), ("A", "B"), 0, chosen, chosen, "ok",
        ...                    (0.0, -1.0))
        >>> outcomes = [answer("plain", f"q{i}", 0) for i in range(4)]
        >>> outcomes += [answer("fancy", f"q{i}", int(i < 3)) for i in range(4)]
        >>> result = format_spread(outcomes, seed=0)
        >>> result.best, result.worst, result.spread.value
        ('plain', 'fancy', 0.75)
    """
    table = correctness_table(outcomes, by="format")
    n_items = len(table.item_ids)
    accuracies = [
        FormatAccuracy(name, _wilson_estimate(int(row.sum()), n_items, level), n_items)
        for name, row in zip(table.names, table.correct, strict=True)
    ]
    accuracies.sort(key=lambda entry: (-entry.accuracy.value, entry.format))
    matrix = table.correct.astype(float)

    def statistic(index: np.ndarray) -> float:
        means = matrix[:, index].mean(axis=1)
        return float(means.max() - means.min())

    ci = bootstrap_interval(statistic, n_items, n_resamples=n_bootstrap, seed=seed, level=level)
    spread = Estimate(
        value=accuracies[0].accuracy.value - accuracies[-1].accuracy.value,
        method="best minus worst format accuracy; paired bootstrap over items",
        n=n_items,
        ci=ci,
    )
    return FormatSpread(tuple(accuracies), spread, accuracies[0].format, accuracies[-1].format, len(accuracies))


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
    best_entry, worst_entry = _format_accuracy(best, counts[best], level), _format_accuracy(worst, counts[worst], level)
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


def _wilson_estimate(successes: int, n: int, level: float) -> Estimate:
    value = successes / n if n else float("nan")
    return Estimate(value=value, method="accuracy; Wilson interval", n=n, ci=wilson_interval(successes, n, level))


def _format_accuracy(name: str, count: list[int], level: float) -> FormatAccuracy:
    return FormatAccuracy(name, _wilson_estimate(count[0], count[1], level), count[1])


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
