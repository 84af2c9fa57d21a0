"""A difference of two proportions within strata: the Mantel-Haenszel estimate and the Cochran-Mantel-Haenszel test.

Comparing a group with the rest within each stratum (a gold class, say) keeps a difference in how the strata are
spread over the two sides from passing for an effect:

- the estimate is the Mantel-Haenszel weighted mean of the per-stratum differences ``p_group - p_rest`` (weights
  ``n_group * n_rest / n`` per stratum; strata with an empty side carry no weight), with a Wald interval from the
  per-stratum binomial variances;
- the test is the one-sided Cochran-Mantel-Haenszel test (normal approximation, no continuity correction) that
  the group succeeds more often within strata.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as _scipy_stats

from pfungst.stats.estimate import ConfidenceInterval, Estimate
from pfungst.stats.intervals import normal_critical_value

__all__ = ["mantel_haenszel_difference"]

_METHOD = "Mantel-Haenszel weights, Wald interval; one-sided Cochran-Mantel-Haenszel test"


class _Strata(NamedTuple):
    """Per usable stratum: weight, difference and variance; and the CMH sums over them."""

    weights: list[float]
    differences: list[float]
    variances: list[float]
    observed: float
    expected: float
    variance: float
    n: int


def mantel_haenszel_difference(
    group: ArrayLike,
    success: ArrayLike,
    strata: Sequence[object],
    level: float = 0.95,
    *,
    what: str = "difference of success rates (group - rest) within strata",
    stratum: str = "stratum",
) -> Estimate:
    """Success rate of ``group`` minus that of the rest, within strata (Mantel-Haenszel), with a one-sided CMH test.

    Args:
        group: Per observation, whether it belongs to the group.
        success: Per observation, whether it is a success.
        strata: Per observation, its stratum.
        level: Coverage of the interval.
        what: What the difference is: the opening of ``method``.
        stratum: What one stratum is called in ``method`` (``"class"``, say).

    Returns:
        ``value`` the weighted difference, ``ci`` its Wald interval, ``pvalue`` the one-sided CMH p-value,
        ``n`` the observations in strata with both sides, ``baseline`` 0. NaN without such a stratum.

    Example:
        >>> # within each stratum only the group succeeds: a difference of 1
        >>> group = [True, False, True, False] * 10
        >>> estimate = mantel_haenszel_difference(group, group, ["yes", "yes", "no", "no"] * 10)
        >>> estimate.value, estimate.pvalue < 1e-6
        (1.0, True)
    """
    method = f"{what}: {_METHOD}"
    found = _strata(np.asarray(group, bool), np.asarray(success, bool), np.asarray(strata, dtype=object))
    if not found.weights:
        return Estimate(value=math.nan, method=f"{method} (no {stratum} has items on both sides)", n=0, baseline=0.0)
    w = np.asarray(found.weights)
    value = float(np.dot(w, found.differences) / w.sum())
    half = float(normal_critical_value(level) * math.sqrt(float(np.dot(w * w, found.variances))) / w.sum())
    z = (found.observed - found.expected) / math.sqrt(found.variance) if found.variance > 0 else math.nan
    return Estimate(
        value=value,
        method=method,
        n=found.n,
        ci=ConfidenceInterval(max(-1.0, value - half), min(1.0, value + half), level),
        pvalue=float(_scipy_stats.norm.sf(z)) if found.variance > 0 else math.nan,
        baseline=0.0,
    )


def _strata(group: np.ndarray, success: np.ndarray, strata: np.ndarray) -> _Strata:
    weights, differences, variances = [], [], []
    observed = expected = variance = 0.0
    n_used = 0
    for stratum in dict.fromkeys(strata.tolist()):
        mask = strata == stratum
        first, second = success[mask & group], success[mask & ~group]
        n1, n0 = first.size, second.size
        if n1 == 0 or n0 == 0:
            continue
        n, p1, p0 = n1 + n0, float(first.mean()), float(second.mean())
        n_used += n
        weights.append(n1 * n0 / n)
        differences.append(p1 - p0)
        variances.append(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)
        hits = float(first.sum() + second.sum())
        observed += float(first.sum())
        expected += n1 * hits / n
        variance += n1 * n0 * hits * (n - hits) / (n * n * (n - 1)) if n > 1 else 0.0
    return _Strata(weights, differences, variances, observed, expected, variance, n_used)
