"""Statistics used everywhere: every figure pfungst prints is an :class:`Estimate` with its interval or test.

Field names follow one convention (``value``, ``ci`` with ``low`` / ``high``, ``pvalue``, ``baseline``,
``method``, ``n``), modelled on SciPy's result objects.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as _scipy_stats

__all__ = [
    "ConfidenceInterval",
    "Estimate",
    "bootstrap_interval",
    "chance_corrected_accuracy",
    "chisquare_test",
    "cohen_kappa",
    "majority_baseline",
    "permutation_pvalue",
    "wilson_interval",
]


@dataclass(frozen=True)
class ConfidenceInterval:
    """A two-sided interval at ``level`` (0.95 unless stated)."""

    low: float
    high: float
    level: float = 0.95

    def to_dict(self) -> dict[str, float | None]:
        """A JSON-safe dict (a NaN bound, from an interval without data, becomes None)."""
        return {
            "low": None if math.isnan(self.low) else self.low,
            "high": None if math.isnan(self.high) else self.high,
            "level": self.level,
        }


@dataclass(frozen=True)
class Estimate:
    """A figure with what it takes to read it: interval, p-value, the baseline it must beat, and how it was made."""

    value: float
    """The point estimate (or the test statistic, for a test)."""
    method: str
    """How it was computed, e.g. ``"wilson"``, ``"chi-squared test of uniform gold positions"``."""
    n: int
    """Number of observations it rests on."""
    ci: ConfidenceInterval | None = None
    """Confidence interval of ``value``; None for a pure test statistic."""
    pvalue: float = math.nan
    """P-value of the method's null hypothesis; NaN when no test applies."""
    baseline: float = math.nan
    """What ``value`` must beat (chance, majority class); NaN when none applies."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (NaN becomes None)."""

        def clean(x: float) -> float | None:
            return None if isinstance(x, float) and math.isnan(x) else x

        return {
            "value": clean(self.value),
            "ci": self.ci.to_dict() if self.ci else None,
            "pvalue": clean(self.pvalue),
            "baseline": clean(self.baseline),
            "method": self.method,
            "n": self.n,
        }


def wilson_interval(successes: int, n: int, level: float = 0.95) -> ConfidenceInterval:
    """Wilson score interval for a proportion (well-behaved near 0 and 1, unlike the normal approximation).

    Example:
        >>> ci = wilson_interval(45, 100)
        >>> round(ci.low, 3), round(ci.high, 3)
        (0.356, 0.548)
    """
    if n <= 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    z = float(_scipy_stats.norm.ppf(0.5 + level / 2))
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return ConfidenceInterval(max(0.0, centre - half), min(1.0, centre + half), level)


def chisquare_test(observed: Sequence[float], expected: Sequence[float], what: str) -> Estimate:
    """Pearson's chi-squared goodness-of-fit test of ``observed`` counts against ``expected`` counts.

    ``expected`` is rescaled to the observed total. Categories expected to be empty are left out.

    Example:
        >>> round(chisquare_test([30, 10], [20, 20], "gold positions").pvalue, 4)
        0.0016
    """
    pairs = [(o, e) for o, e in zip(observed, expected, strict=True) if e > 0]
    n = int(sum(o for o, _ in pairs))
    if len(pairs) < 2 or n == 0:
        return Estimate(value=math.nan, method=f"chi-squared test: {what}", n=n)
    total_expected = sum(e for _, e in pairs)
    f_obs = [o for o, _ in pairs]
    f_exp = [e * n / total_expected for _, e in pairs]
    result = _scipy_stats.chisquare(f_obs, f_exp)
    return Estimate(value=float(result.statistic), method=f"chi-squared test: {what}", n=n, pvalue=float(result.pvalue))


def cohen_kappa(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Cohen's kappa: agreement beyond what the label and prediction marginals give by chance.

    The same value as ``sklearn.metrics.cohen_kappa_score`` (unweighted), computed with one ``bincount`` so that
    bootstrap and permutation loops stay cheap. Labels may be any hashable values.

    When both sequences are constant and equal, chance agreement is 1 and kappa is 0 / 0; it is defined as 0 here
    (a constant prediction of a constant label carries no information beyond the marginals). An empty input gives
    NaN.

    Example:
        >>> cohen_kappa([0, 0, 0, 0, 1], [0, 0, 0, 0, 0])  # the majority guess: 80% accurate, kappa 0
        0.0
        >>> round(cohen_kappa([0, 1, 1, 2], [0, 1, 2, 2]), 4)
        0.6364
    """
    true, pred = np.asarray(y_true), np.asarray(y_pred)
    if true.shape != pred.shape or true.ndim != 1:
        raise ValueError(f"y_true and y_pred must be 1-D and the same length, not {true.shape} and {pred.shape}")
    if true.size == 0:
        return math.nan
    if true.dtype.kind not in "iu" or pred.dtype.kind not in "iu" or min(true.min(), pred.min()) < 0:
        _, codes = np.unique(np.concatenate([true, pred]), return_inverse=True)
        true, pred = codes[: true.size], codes[true.size :]
    return _kappa_from_codes(true, pred)


def _kappa_from_codes(true: np.ndarray, pred: np.ndarray) -> float:
    k = int(max(true.max(), pred.max())) + 1
    n = true.size
    observed = np.count_nonzero(true == pred) / n
    expected = float(np.dot(np.bincount(true, minlength=k), np.bincount(pred, minlength=k))) / (n * n)
    if expected >= 1.0:
        return 0.0
    return float((observed - expected) / (1.0 - expected))


def chance_corrected_accuracy(accuracy: float, n_classes: float) -> float:
    """Pacchiardi et al. 2024's "kappa": accuracy rescaled so that uniform guessing is 0 and perfection is 1.

    ``(accuracy - 1/K) / (1 - 1/K)``. It ignores label imbalance: on a 90/10 binary task the constant majority
    guess scores 0.8, not 0 (Cohen's kappa, :func:`cohen_kappa`, gives 0). ``n_classes`` may be fractional: for
    items with different numbers of options, pass ``1 / mean(1 / n_options)`` so that ``1/K`` is the chance rate.

    Example:
        >>> round(chance_corrected_accuracy(0.9, 2), 4)
        0.8
        >>> chance_corrected_accuracy(0.25, 4)
        0.0
    """
    if n_classes <= 1:
        raise ValueError(f"chance-corrected accuracy needs at least 2 classes, not {n_classes}")
    chance = 1.0 / n_classes
    return (accuracy - chance) / (1.0 - chance)


def majority_baseline(y: ArrayLike) -> float:
    """The share of the most frequent class: the accuracy of always guessing it (NaN for no labels).

    Example:
        >>> majority_baseline(["yes", "no", "yes", "yes"])
        0.75
    """
    values = np.asarray(y)
    if values.size == 0:
        return math.nan
    _, counts = np.unique(values, return_counts=True)
    return float(counts.max() / values.size)


def bootstrap_interval(
    statistic: Callable[[np.ndarray], float],
    n: int,
    *,
    n_resamples: int = 1000,
    seed: int | Sequence[int] | np.random.SeedSequence,
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
    rng = np.random.default_rng(seed)
    draws = np.array([statistic(rng.integers(0, n, size=n)) for _ in range(n_resamples)], dtype=float)
    draws = draws[~np.isnan(draws)]
    if draws.size == 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    tail = (1.0 - level) / 2
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    return ConfidenceInterval(float(low), float(high), level)


def permutation_pvalue(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    statistic: Callable[[np.ndarray, np.ndarray], float],
    *,
    n_permutations: int = 1000,
    seed: int | Sequence[int] | np.random.SeedSequence,
    alternative: Literal["greater", "less", "two-sided"] = "greater",
) -> float:
    """Monte Carlo permutation p-value of "no association between labels and predictions".

    ``y_true`` is shuffled (along its last axis) ``n_permutations`` times while ``y_pred`` stays fixed, so both
    marginals are kept; the p-value is ``(count + 1) / (n_permutations + 1)`` where ``count`` is the number of
    permutations at least as extreme as the observed statistic (never 0, valid at any number of permutations).
    ``two-sided`` compares absolute values, for statistics centred on 0 under the null (kappa).

    ``y_pred`` may be 2-D (one row per repeat of a cross-validation) when ``statistic`` accepts that. Applied to
    fixed out-of-fold predictions, this tests association of those predictions with the labels; it does not refit
    the classifier on permuted labels.

    Example:
        >>> y = np.array([0, 1] * 20)
        >>> permutation_pvalue(y, y, cohen_kappa, n_permutations=99, seed=0)
        0.01
    """
    true, pred = np.asarray(y_true), np.asarray(y_pred)
    observed = statistic(true, pred)
    rng = np.random.default_rng(seed)
    draws = np.array([statistic(rng.permutation(true), pred) for _ in range(n_permutations)], dtype=float)
    if alternative == "greater":
        count = np.count_nonzero(draws >= observed - 1e-12)
    elif alternative == "less":
        count = np.count_nonzero(draws <= observed + 1e-12)
    elif alternative == "two-sided":
        count = np.count_nonzero(np.abs(draws) >= abs(observed) - 1e-12)
    else:
        raise ValueError(f"alternative must be 'greater', 'less' or 'two-sided', not {alternative!r}")
    return float((count + 1) / (n_permutations + 1))
