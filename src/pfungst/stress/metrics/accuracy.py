"""Accuracy of each stress variant, read off its outcomes: the figure every other stress metric is compared with.

Outcomes are grouped by perturbation, variant, scoring rule and prompt format; each group gets a Wilson interval and
the chance rate it must beat (the mean of ``1 / K`` over its items). Where the items cluster (an MMLU subject, a
BIG-bench subtask, a ``group``: :func:`pfungst.data.clusters.item_clusters`) the interval is cluster-robust instead
(Miller 2024, :mod:`pfungst.stats.clustered`) and the design effect (clustered / naive variance) is reported.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import accuracy_estimate
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import ConfidenceInterval, Estimate, clustered_mean, wilson_interval

__all__ = ["VariantAccuracy", "proportion_estimate", "variant_accuracies"]


def proportion_estimate(successes: int, n: int, *, baseline: float = math.nan, level: float = 0.95) -> Estimate:
    """A share ``successes / n`` with its Wilson interval and the ``baseline`` it must beat.

    With ``n = 0`` the share is undefined: its value is NaN and it has no interval (``ci`` is None).

    Args:
        successes: How many of the ``n`` observations count.
        n: How many observations there are.
        baseline: What the share would be by chance (NaN when none applies).
        level: Coverage of the two-sided interval.

    Example:
        >>> estimate = proportion_estimate(9, 10, baseline=0.25)
        >>> estimate.value, estimate.method, round(estimate.ci.low, 3)
        (0.9, 'wilson', 0.596)
    """
    if n <= 0:
        return Estimate(value=math.nan, method="wilson", n=0, baseline=baseline)
    return Estimate(
        value=successes / n, method="wilson", n=n, ci=wilson_interval(successes, n, level), baseline=baseline
    )


@dataclass(frozen=True)
class VariantAccuracy:
    """Accuracy of one perturbation variant under one scoring rule and one prompt format."""

    perturbation: str
    """The family of change (``identity``, ``cyclic``, ``answer-moved``, ...)."""
    variant: str
    """The member of that family (``shift 2``, ``slot C``, ...)."""
    rule: str
    """The scoring rule's name."""
    format: str
    """The prompt format's name."""
    accuracy: Estimate
    """Share of outcomes answered correctly (unanswered ones count as wrong), Wilson interval, baseline chance (the
    mean of ``1 / K`` over the outcomes' items)."""
    n_unanswered: int
    """Outcomes whose status is not ``ok`` (refused or unparseable generations)."""
    design_effect: float = math.nan
    """Clustered / naive variance of the accuracy where the items cluster (the interval is then cluster-robust);
    NaN where they do not (independent items, Wilson interval)."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> VariantAccuracy:
        """The entry that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "perturbation": self.perturbation,
            "variant": self.variant,
            "rule": self.rule,
            "format": self.format,
            "accuracy": self.accuracy.to_dict(),
            "n_unanswered": self.n_unanswered,
            "design_effect": None if math.isnan(self.design_effect) else self.design_effect,
        }

    def __repr__(self) -> str:
        return (
            f"VariantAccuracy({self.perturbation}/{self.variant}, {self.rule}, {self.format}: "
            f"{self.accuracy.value:.3f} of {self.accuracy.n}, chance {self.accuracy.baseline:.3f})"
        )


def variant_accuracies(
    outcomes: Sequence[Outcome], *, level: float = 0.95, clusters: Mapping[str, str] | None = None
) -> tuple[VariantAccuracy, ...]:
    """Accuracy per (perturbation, variant, rule, format), in the order each group is first seen.

    Args:
        outcomes: Outcomes of any mix of variants, rules and formats.
        level: Coverage of the intervals.
        clusters: Item id -> cluster (:func:`pfungst.data.clusters.item_clusters`); where given, a group whose
            items span at least two clusters gets a cluster-robust interval and its design effect.

    Returns:
        One :class:`VariantAccuracy` per group; empty for no outcomes.

    Example:
        >>> def answer(variant, chosen):
        ...     return Outcome(item_id="q1", perturbation="cyclic", variant=variant, rule="letter", format="mmlu",
        ...                    order=(0, 1), labels=("A", "B"), gold=0, chosen=chosen, chosen_position=chosen,
        ...                    status="ok", scores=(0.0, 0.0))
        >>> [(a.variant, a.accuracy.value, a.accuracy.baseline)
        ...  for a in variant_accuracies([answer("shift 0", 0), answer("shift 1", 1)])]
        [('shift 0', 1.0, 0.5), ('shift 1', 0.0, 0.5)]
    """
    groups: dict[tuple[str, str, str, str], list[Outcome]] = {}
    for outcome in outcomes:
        key = (outcome.perturbation, outcome.variant, outcome.rule, outcome.format)
        groups.setdefault(key, []).append(outcome)
    return tuple(_accuracy(key, group, level, clusters) for key, group in groups.items())


def _accuracy(
    key: tuple[str, str, str, str], group: list[Outcome], level: float, clusters: Mapping[str, str] | None
) -> VariantAccuracy:
    perturbation, variant, rule, format_name = key
    accuracy = accuracy_estimate(sum(o.correct for o in group), [o.n_options for o in group], level)
    effect = math.nan
    labels = [clusters.get(o.item_id) for o in group] if clusters else []
    if labels and None not in labels and len(set(labels)) >= 2:
        robust = clustered_mean(
            [float(o.correct) for o in group], labels, level, baseline=accuracy.baseline, what="accuracy"
        )
        accuracy, effect = _within_shares(robust.estimate), robust.design_effect
    return VariantAccuracy(
        perturbation=perturbation,
        variant=variant,
        rule=rule,
        format=format_name,
        accuracy=accuracy,
        n_unanswered=sum(o.status != "ok" for o in group),
        design_effect=effect,
    )


def _within_shares(estimate: Estimate) -> Estimate:
    """A cluster-robust t interval of an accuracy cut to [0, 1]: a share lies there, and the cut loses no coverage
    (few clusters can put the t interval's ends outside it)."""
    ci = estimate.ci
    if ci is None:
        return estimate
    return replace(estimate, ci=ConfidenceInterval(max(ci.low, 0.0), min(ci.high, 1.0), ci.level))
