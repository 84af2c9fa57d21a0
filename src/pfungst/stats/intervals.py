"""Confidence intervals: Wilson for a proportion, Newcombe for a difference of two, percentile bootstrap for any.

Every interval is a :class:`~pfungst.stats.estimate.ConfidenceInterval`; one without data has NaN bounds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from scipy import stats as _scipy_stats

from pfungst.stats.estimate import ConfidenceInterval

__all__ = [
    "bootstrap_draws",
    "bootstrap_interval",
    "clopper_pearson_interval",
    "newcombe_interval",
    "normal_critical_value",
    "percentile_bounds",
    "wilson_interval",
]

Seed = int | Sequence[int] | np.random.SeedSequence
"""What seeds a resampling: an int, a sequence of ints, or a ``SeedSequence``."""


def normal_critical_value(level: float) -> float:
    """The standard normal quantile ``z`` with ``P(-z < Z < z) = level`` (1.96 at 0.95), for two-sided intervals.

    Example:
        >>> round(normal_critical_value(0.95), 4)
        1.96
    """
    return float(_scipy_stats.norm.ppf(0.5 + level / 2))


def wilson_interval(successes: int, n: int, level: float = 0.95) -> ConfidenceInterval:
    """Wilson score interval for a proportion (well-behaved near 0 and 1, unlike the normal approximation).

    Example:
        >>> ci = wilson_interval(45, 100)
        >>> round(ci.low, 3), round(ci.high, 3)
        (0.356, 0.548)
    """
    if n <= 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    z = normal_critical_value(level)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return ConfidenceInterval(max(0.0, centre - half), min(1.0, centre + half), level)


def clopper_pearson_interval(successes: int, n: int, level: float = 0.95) -> ConfidenceInterval:
    """Clopper-Pearson (exact binomial) interval for a proportion: never narrower than it should be, and exact at
    0 and ``n`` successes (a count of broken items out of a benchmark, where none is a common answer).

    Example:
        >>> ci = clopper_pearson_interval(0, 100)
        >>> round(ci.low, 3), round(ci.high, 4)
        (0.0, 0.0362)
    """
    if n <= 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    tail = (1 - level) / 2
    low = 0.0 if successes <= 0 else float(_scipy_stats.beta.ppf(tail, successes, n - successes + 1))
    high = 1.0 if successes >= n else float(_scipy_stats.beta.ppf(1 - tail, successes + 1, n - successes))
    return ConfidenceInterval(low, high, level)


def newcombe_interval(
    first_successes: int, first_n: int, second_successes: int, second_n: int, level: float = 0.95
) -> ConfidenceInterval:
    """Newcombe's hybrid score interval for ``p1 - p2``, two proportions of independent samples.

    Each proportion gets its Wilson interval; the difference's bounds combine the distances from each estimate to
    its bounds (Newcombe 1998, method 10), clipped to [-1, 1]. NaN bounds when either side has no observations.

    Example:
        >>> ci = newcombe_interval(56, 70, 48, 80)  # Newcombe's worked example: 0.8 - 0.6
        >>> round(ci.low, 4), round(ci.high, 4)
        (0.0524, 0.3339)
    """
    if first_n <= 0 or second_n <= 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    first, second = first_successes / first_n, second_successes / second_n
    first_ci = wilson_interval(first_successes, first_n, level)
    second_ci = wilson_interval(second_successes, second_n, level)
    value = first - second
    low = value - math.hypot(first - first_ci.low, second_ci.high - second)
    high = value + math.hypot(first_ci.high - first, second - second_ci.low)
    return ConfidenceInterval(max(-1.0, low), min(1.0, high), level)


def bootstrap_draws(
    statistic: Callable[[np.ndarray], float | np.ndarray], n: int, *, n_resamples: int, seed: Seed
) -> np.ndarray:
    """The statistic on ``n_resamples`` resamples of ``n`` items drawn with replacement (one row per resample).

    Resample ``r`` is the ``r``-th ``rng.integers(0, n, size=n)`` of ``np.random.default_rng(seed)``, so every
    bootstrap with the same seed sees the same items. ``statistic`` may return a vector (say, one accuracy per
    model): the rows then hold the statistic of all of them on the same items.

    Example:
        >>> values = np.array([0.0, 1.0, 1.0, 1.0])
        >>> bootstrap_draws(lambda idx: float(values[idx].mean()), 4, n_resamples=3, seed=0).shape
        (3,)
    """
    rng = np.random.default_rng(seed)
    return np.array([statistic(rng.integers(0, n, size=n)) for _ in range(n_resamples)], dtype=float)


def percentile_bounds(draws: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of ``draws`` along the first axis (linear).

    Example:
        >>> [round(float(bound), 9) for bound in percentile_bounds(np.arange(101.0), 0.9)]
        [5.0, 95.0]
    """
    tail = (1.0 - level) / 2
    low, high = np.quantile(draws, [tail, 1.0 - tail], axis=0)
    return low, high


def bootstrap_interval(
    statistic: Callable[[np.ndarray], float],
    n: int,
    *,
    n_resamples: int = 1000,
    seed: Seed,
    level: float = 0.95,
) -> ConfidenceInterval:
    """Percentile bootstrap interval of a statistic over ``n`` items, resampled with replacement.

    Args:
        statistic: Maps an array of item indices (with repeats) to the statistic on those items.
        n: Number of items.
        n_resamples: Bootstrap resamples (1000 by default).
        seed: Seed of the resampling; the same seed gives the same resamples (and the same interval).
        level: Coverage of the two-sided interval.

    Resamples whose statistic is NaN (for example a kappa on a resample with a single class) are left out; if all
    are NaN the interval is (NaN, NaN).

    Example:
        >>> values = np.array([0.0, 1.0] * 50)
        >>> ci = bootstrap_interval(lambda idx: float(values[idx].mean()), 100, seed=0)
        >>> bool(ci.low < 0.5 < ci.high), round(ci.high - ci.low, 1)
        (True, 0.2)
    """
    if n <= 0 or n_resamples <= 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    draws = bootstrap_draws(statistic, n, n_resamples=n_resamples, seed=seed)
    draws = draws[~np.isnan(draws)]
    if draws.size == 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    low, high = percentile_bounds(draws, level)
    return ConfidenceInterval(float(low), float(high), level)
