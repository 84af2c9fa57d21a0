"""Cluster-robust standard errors for accuracies and paired differences (Miller 2024, "Adding error bars to evals").

Items of a benchmark often come in clusters (an MMLU subject, a BIG-bench subtask, several questions on one
passage). Items of a cluster are answered alike, so the ``n`` items carry less information than ``n`` independent
ones and the usual interval is too narrow. Following Miller (2024, eq. 4), the variance of a mean score over ``n``
items in clusters ``c`` is

    Var_clustered = (1 / n^2) * sum_c ( sum_{i in c} (s_i - mean) )^2,

against ``Var_naive = (1 / n^2) * sum_i (s_i - mean)^2`` for independent items. Their ratio is the *design effect*
(1 for independent items; ``1 + (m - 1) * rho`` for clusters of size ``m`` with intra-cluster correlation
``rho``). Intervals are Wald intervals with Student t quantiles on ``G - 1`` degrees of freedom (``G`` clusters),
the usual small-sample choice for cluster-robust errors; the variance is multiplied by ``G / (G - 1)`` (the CR1
correction) for the interval but not for the design effect, which is Miller's ratio as written.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as _scipy_stats

from pfungst.errors import ConfigError
from pfungst.serialization import to_jsonable
from pfungst.stats.estimate import ConfidenceInterval, Estimate

__all__ = ["ClusteredEstimate", "clustered_mean", "clustered_paired_difference", "design_effect"]


@dataclass(frozen=True)
class ClusteredEstimate:
    """A mean with its cluster-robust interval, and how much the clustering widened it."""

    estimate: Estimate
    """The mean, its cluster-robust t interval and (for a difference) the two-sided p-value that it is 0."""
    design_effect: float
    """Clustered variance / naive variance (Miller 2024); NaN where the naive variance is 0."""
    n_clusters: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "estimate": self.estimate.to_dict(),
            "design_effect": to_jsonable(self.design_effect),
            "n_clusters": self.n_clusters,
        }


def _codes(values: ArrayLike, clusters: Sequence[object]) -> tuple[np.ndarray, np.ndarray]:
    scores = np.asarray(values, dtype=float)
    if scores.ndim != 1 or len(clusters) != len(scores):
        raise ConfigError(
            f"clustered statistics need one cluster per score, found {len(clusters)} clusters for {scores.size} scores"
        )
    _, codes = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    return scores, codes


def _variances(scores: np.ndarray, codes: np.ndarray) -> tuple[float, float, int]:
    """(clustered, naive) variance of the mean, and the number of clusters."""
    n = len(scores)
    residuals = scores - scores.mean()
    sums = np.bincount(codes, weights=residuals)
    return float((sums**2).sum() / n**2), float((residuals**2).sum() / n**2), len(sums)


def design_effect(values: ArrayLike, clusters: Sequence[object]) -> float:
    """Clustered over naive variance of the mean of ``values`` (module docstring); NaN without spread.

    Example: two clusters answered all-or-nothing are worth two items, not eight.

        >>> design_effect([1, 1, 1, 1, 0, 0, 0, 0], ["a"] * 4 + ["b"] * 4)
        4.0
        >>> design_effect([1, 0, 1, 0, 1, 0, 1, 0], ["a"] * 4 + ["b"] * 4)
        0.0
    """
    scores, codes = _codes(values, clusters)
    clustered, naive, _ = _variances(scores, codes)
    return clustered / naive if naive > 0 else math.nan


def clustered_mean(
    values: ArrayLike,
    clusters: Sequence[object],
    level: float = 0.95,
    *,
    baseline: float = math.nan,
    what: str = "mean",
) -> ClusteredEstimate:
    """The mean of ``values`` with a cluster-robust t interval (CR1, ``G - 1`` degrees of freedom).

    Args:
        values: One score per item (1/0 for right/wrong).
        clusters: One cluster label per item.
        level: Coverage of the interval.
        baseline: What the mean must beat (chance), carried into the estimate.
        what: What the mean is, the opening of the estimate's method.

    Raises:
        ConfigError: the lengths differ, or there are no items.

    Example:
        >>> result = clustered_mean([1, 1, 1, 1, 0, 0, 0, 0, 1, 0], ["a"] * 4 + ["b"] * 4 + ["c", "c"])
        >>> result.estimate.value, result.n_clusters, round(result.design_effect, 2)
        (0.5, 3, 3.2)
    """
    scores, codes = _codes(values, clusters)
    if not len(scores):
        raise ConfigError("clustered_mean needs at least one score")
    clustered, naive, groups = _variances(scores, codes)
    mean = float(scores.mean())
    ci = _interval(mean, clustered, groups, level)
    effect = clustered / naive if naive > 0 else math.nan
    method = f"{what}; cluster-robust t interval (CR1, {groups} clusters, design effect {_format(effect)})"
    estimate = Estimate(value=mean, method=method, n=len(scores), ci=ci, baseline=baseline)
    return ClusteredEstimate(estimate, effect, groups)


def clustered_paired_difference(
    first: ArrayLike, second: ArrayLike, clusters: Sequence[object], level: float = 0.95
) -> ClusteredEstimate:
    """Mean of ``first - second`` over the same items, cluster-robust: interval and two-sided t test that it is 0.

    Example:
        >>> result = clustered_paired_difference([1, 1, 1, 1, 1, 1], [0, 0, 1, 0, 1, 1], ["a", "a", "b", "b", "c", "c"])
        >>> round(result.estimate.value, 3), result.n_clusters
        (0.5, 3)
    """
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.shape != b.shape:
        raise ConfigError(f"a paired difference needs the same items on both sides, found {a.size} and {b.size}")
    result = clustered_mean(a - b, clusters, level, what="paired difference of means")
    estimate, groups = result.estimate, result.n_clusters
    clustered = _variances(*_codes(a - b, clusters))[0] * groups / max(groups - 1, 1)
    if clustered > 0 and groups > 1:
        statistic = estimate.value / math.sqrt(clustered)
        pvalue = float(2 * _scipy_stats.t.sf(abs(statistic), groups - 1))
    else:
        pvalue = math.nan if estimate.value == 0 or groups < 2 else 0.0
    method = estimate.method + "; two-sided cluster-robust t test"
    return ClusteredEstimate(
        Estimate(estimate.value, method, estimate.n, estimate.ci, pvalue), result.design_effect, groups
    )


def _interval(mean: float, clustered: float, groups: int, level: float) -> ConfidenceInterval | None:
    if groups < 2:
        return None
    half = _scipy_stats.t.ppf(0.5 + level / 2, groups - 1) * math.sqrt(clustered * groups / (groups - 1))
    return ConfidenceInterval(mean - half, mean + half, level)


def _format(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}"
