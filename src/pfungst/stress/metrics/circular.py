"""Answers that survive rearranging the options: MMBench's CircularEval and Zheng et al.'s fluctuation rate.

Each item is asked under several arrangements of its options (for example its cyclic rotations). An item counts
for circular accuracy (Liu et al. 2024, MMBench) only if the model is right under every arrangement; consistency
asks only that it picks the same original option every time; fluctuation (Zheng et al., ICLR 2024) is how often
the answer moves away from the one given in the original order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from pfungst.blocks import Block, Facts, Figure, format_number
from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate, bootstrap_interval
from pfungst.stress.estimates import estimates_table
from pfungst.stress.metrics.accuracy import proportion_estimate
from pfungst.stress.metrics.grouping import group_by_item

__all__ = ["CircularMetrics", "circular_metrics"]


@dataclass(frozen=True)
class CircularMetrics:
    """Accuracy and stability of answers across arrangements of the same items (one rule and format)."""

    KIND: ClassVar[str] = "circular"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Circular versus plain"
    """The result's heading in reports."""

    arrangements: tuple[int, int]
    """Fewest and most arrangements asked per item (equal when every item had the same number)."""
    plain: Estimate
    """Accuracy in the original order (identity arrangement) only; Wilson, baseline chance (mean ``1 / K``)."""
    mean: Estimate
    """Accuracy over all arrangements pooled; percentile bootstrap over items, baseline chance."""
    circular: Estimate
    """Share of items right under every arrangement (CircularEval); Wilson, baseline the chance of that when
    guessing uniformly, the mean over items of ``(1/K) ** n_arrangements``."""
    consistency: Estimate
    """Share of items where the same original option was chosen under every arrangement (unanswered ones break
    it); Wilson, baseline the mean over items of ``K * (1/K) ** n_arrangements``."""
    fluctuation: Estimate
    """Mean over items of the share of their other arrangements whose chosen original option differs from the one
    chosen in the original order (an unanswered arrangement counts as a choice of its own); percentile bootstrap over
    items, baseline uniform guessing's ``1 - 1/K``; items asked only in the original order are left out (NaN without an
    interval when every item was)."""
    n_items: int
    """Items the figures rest on (every estimate's ``n`` counts items)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "arrangements": list(self.arrangements),
            "plain": self.plain.to_dict(),
            "mean": self.mean.to_dict(),
            "circular": self.circular.to_dict(),
            "consistency": self.consistency.to_dict(),
            "fluctuation": self.fluctuation.to_dict(),
            "n_items": self.n_items,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> CircularMetrics:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """Arrangements per item; plain, mean and circular accuracy, consistency, fluctuation; a plot of the three."""
        named = [
            ("plain (as published)", self.plain),
            ("mean over arrangements", self.mean),
            ("circular (right in every arrangement)", self.circular),
            ("consistency (same answer in every arrangement)", self.consistency),
            ("fluctuation (share of changed answers)", self.fluctuation),
        ]
        arrangements = ", ".join(str(count) for count in self.arrangements)
        facts = Facts((("arrangements per item", arrangements or "n/a"), ("items", format_number(self.n_items))))
        figure = Figure(
            "intervals",
            "Plain versus circular accuracy",
            {
                "labels": ["plain", "mean over arrangements", "circular"],
                "estimates": [self.plain.to_dict(), self.mean.to_dict(), self.circular.to_dict()],
                "axis": "accuracy",
            },
        )
        return facts, estimates_table("Circular evaluation", named), figure

    def __repr__(self) -> str:
        return (
            f"CircularMetrics(plain={self.plain.value:.3f}, circular={self.circular.value:.3f}, "
            f"consistency={self.consistency.value:.3f}, fluctuation={self.fluctuation.value:.3f}, "
            f"n_items={self.n_items}, arrangements={self.arrangements})"
        )


class _Item(NamedTuple):
    """What one item's arrangements came to."""

    k: int
    n_arrangements: int
    n_right: int
    plain_right: bool
    all_right: bool
    consistent: bool
    fluctuation: float  # NaN when the item was asked only in the original order


def circular_metrics(
    outcomes: Sequence[Outcome], *, seed: int, n_bootstrap: int = 1000, level: float = 0.95
) -> CircularMetrics:
    """Plain, mean and circular accuracy, consistency and fluctuation over each item's arrangements.

    Args:
        outcomes: Every arrangement of every item, for one scoring rule and one prompt format (for example the
            ``cyclic`` perturbation, whose shift 0 is the original order). Grouped by ``item_id``.
        seed: Seed of the bootstrap resampling of items.
        n_bootstrap: Bootstrap resamples for the mean accuracy and fluctuation intervals.
        level: Coverage of every interval.

    Raises:
        ConfigError: No outcomes; more than one rule or format; an item lacks its original order or has an
            arrangement twice.

    Example:
        >>> def answer(order):  # a model that always answers at the first position
        ...     return Outcome(item_id="q1", perturbation="cyclic", variant=f"shift {order[0]}", rule="letter",
        ...                    format="mmlu", order=order, labels=("A", "B"), gold=0, chosen=order[0],
        ...                    chosen_position=0, status="ok", scores=(0.0, -1.0))
        >>> metrics = circular_metrics([answer((0, 1)), answer((1, 0))], seed=0)
        >>> metrics.plain.value, metrics.circular.value, metrics.consistency.value, metrics.fluctuation.value
        (1.0, 0.0, 0.0, 1.0)
    """
    groups = _group(outcomes)
    items = [_summarise(item_id, group) for item_id, group in groups.items()]
    n = len(items)
    k = np.array([item.k for item in items], dtype=float)
    n_arrangements = np.array([item.n_arrangements for item in items], dtype=float)
    n_right = np.array([item.n_right for item in items], dtype=float)
    chance = float(np.mean(1.0 / k))
    mean = Estimate(
        value=float(n_right.sum() / n_arrangements.sum()),
        method="accuracy over all arrangements; bootstrap over items",
        n=n,
        ci=bootstrap_interval(
            lambda idx: float(n_right[idx].sum() / n_arrangements[idx].sum()),
            n,
            n_resamples=n_bootstrap,
            seed=seed,
            level=level,
        ),
        baseline=float(np.sum(n_arrangements / k) / n_arrangements.sum()),
    )
    return CircularMetrics(
        arrangements=(int(n_arrangements.min()), int(n_arrangements.max())),
        plain=proportion_estimate(sum(item.plain_right for item in items), n, baseline=chance, level=level),
        mean=mean,
        circular=proportion_estimate(
            sum(item.all_right for item in items), n, baseline=float(np.mean((1.0 / k) ** n_arrangements)), level=level
        ),
        consistency=proportion_estimate(
            sum(item.consistent for item in items),
            n,
            baseline=float(np.mean(k * (1.0 / k) ** n_arrangements)),
            level=level,
        ),
        fluctuation=_fluctuation(items, seed=seed, n_bootstrap=n_bootstrap, level=level),
        n_items=n,
    )


def _group(outcomes: Sequence[Outcome]) -> dict[str, list[Outcome]]:
    return group_by_item(outcomes, "circular_metrics", "every arrangement of each item")


def _summarise(item_id: str, group: list[Outcome]) -> _Item:
    orders = [outcome.order for outcome in group]
    repeated = next((order for number, order in enumerate(orders) if order in orders[:number]), None)
    if repeated is not None:
        raise ConfigError(
            f"item '{item_id}' has the arrangement {list(repeated)} more than once. Pass one outcome per "
            "arrangement (for example, not both the identity perturbation and cyclic shift 0)."
        )
    identity = tuple(range(group[0].n_options))
    base = next((outcome for outcome in group if outcome.order == identity), None)
    if base is None:
        raise ConfigError(
            f"item '{item_id}' has no identity arrangement (options in their original order {list(identity)}) "
            f"among its {len(group)} arrangements. Include the original order, e.g. cyclic shift 0."
        )
    others = [outcome for outcome in group if outcome is not base]
    answered = all(outcome.status == "ok" for outcome in group)
    return _Item(
        k=base.n_options,
        n_arrangements=len(group),
        n_right=sum(outcome.correct for outcome in group),
        plain_right=base.correct,
        all_right=all(outcome.correct for outcome in group),
        consistent=answered and len({outcome.chosen for outcome in group}) == 1,
        fluctuation=(sum(outcome.chosen != base.chosen for outcome in others) / len(others) if others else math.nan),
    )


def _fluctuation(items: list[_Item], *, seed: int, n_bootstrap: int, level: float) -> Estimate:
    shares = np.array([item.fluctuation for item in items if not math.isnan(item.fluctuation)])
    k = np.array([item.k for item in items if not math.isnan(item.fluctuation)], dtype=float)
    n = len(shares)
    return Estimate(
        value=float(shares.mean()) if n else math.nan,
        method="mean share of changed answers; bootstrap over items",
        n=n,
        ci=bootstrap_interval(lambda idx: float(shares[idx].mean()), n, n_resamples=n_bootstrap, seed=seed, level=level)
        if n
        else None,
        baseline=float(np.mean(1.0 - 1.0 / k)) if n else math.nan,
    )
