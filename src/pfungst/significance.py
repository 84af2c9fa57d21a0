"""Significance tests for comparing models and rankings: paired differences, rank agreement, multiple testing.

Every test returns a :class:`pfungst.stats.Estimate` (``value``, ``ci``, ``pvalue``, ``baseline``, ``method``,
``n``), so a comparison reads like every other figure pfungst prints. Correctness inputs are paired per item: the
same items, in the same order, answered by two models (or one model under two variants).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats as _scipy_stats

from pfungst.errors import ConfigError
from pfungst.stats import ConfidenceInterval, Estimate, bootstrap_interval

__all__ = [
    "BHResult",
    "benjamini_hochberg",
    "kendall_tau",
    "kendall_w",
    "mcnemar_exact",
    "paired_bootstrap_difference",
    "paired_t_test",
]

_ALTERNATIVES = ("two-sided", "greater", "less")


def _paired_correctness(first: ArrayLike, second: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Check and convert two paired correctness vectors to 1-D boolean arrays of the same, non-zero length."""
    a, b = np.asarray(first), np.asarray(second)
    if a.ndim != 1 or b.ndim != 1 or a.shape != b.shape:
        raise ConfigError(
            f"paired correctness needs two 1-D sequences of the same length, found shapes {a.shape} "
            f"and {b.shape}. Pass one entry per item, in the same item order for both."
        )
    if a.size == 0:
        raise ConfigError("paired correctness needs at least one item, found none. Score some items first.")
    for name, values in (("first", a), ("second", b)):
        if values.dtype != bool and not np.isin(values, (0, 1)).all():
            raise ConfigError(
                f"{name} must hold correctness as booleans (or 0/1), found values such as "
                f"{values[~np.isin(values, (0, 1))][0]!r}. Pass whether each item was answered "
                "correctly."
            )
    return a.astype(bool), b.astype(bool)


def _mcnemar_pvalue(first: np.ndarray, second: np.ndarray) -> tuple[float, int, int]:
    """Exact two-sided McNemar p-value and the two discordant counts (first only right, second only right)."""
    only_first = int(np.count_nonzero(first & ~second))
    only_second = int(np.count_nonzero(~first & second))
    discordant = only_first + only_second
    if discordant == 0:
        return 1.0, only_first, only_second
    return float(_scipy_stats.binomtest(only_first, discordant, 0.5).pvalue), only_first, only_second


def mcnemar_exact(first: ArrayLike, second: ArrayLike) -> Estimate:
    """Exact McNemar test of "both are equally accurate" on paired per-item correctness.

    Only discordant items carry evidence: under the null, an item that exactly one of the two got right is
    equally likely to be either's. The p-value is the two-sided binomial test of the discordant counts at 1/2
    (1.0 when no item is discordant).

    Args:
        first: Whether the first model answered each item correctly.
        second: Whether the second model answered the same items correctly, in the same order.

    Returns:
        ``value`` accuracy(first) - accuracy(second), ``pvalue`` the exact McNemar p-value, ``baseline`` 0,
        ``n`` the number of items, no interval.

    Raises:
        ConfigError: the inputs are not 1-D, differ in length, are empty, or hold values other than 0/1.

    Example:
        >>> result = mcnemar_exact([1, 1, 1, 1, 0, 1], [0, 0, 0, 0, 0, 1])
        >>> round(result.value, 3), result.pvalue, result.method
        (0.667, 0.125, 'exact McNemar test (4 vs 0 discordant items)')
    """
    a, b = _paired_correctness(first, second)
    pvalue, only_first, only_second = _mcnemar_pvalue(a, b)
    return Estimate(
        value=float(a.mean() - b.mean()),
        method=_mcnemar_method(only_first, only_second),
        n=int(a.size),
        pvalue=pvalue,
        baseline=0.0,
    )


def _mcnemar_method(only_first: int, only_second: int) -> str:
    return f"exact McNemar test ({only_first} vs {only_second} discordant items)"


def paired_bootstrap_difference(
    first: ArrayLike,
    second: ArrayLike,
    *,
    seed: int | Sequence[int] | np.random.SeedSequence,
    n_resamples: int = 1000,
    level: float = 0.95,
) -> Estimate:
    """Accuracy difference of two models on the same items, with a paired bootstrap interval and McNemar's p.

    Items are resampled with replacement, each keeping both models' answers, so the interval reflects how the
    two models' errors go together (it is narrower than two independent intervals would suggest when they err on
    the same items).

    Args:
        first: Whether the first model answered each item correctly.
        second: Whether the second model answered the same items correctly, in the same order.
        seed: Seed of the resampling; the same seed gives the same interval.
        n_resamples: Bootstrap resamples (1000 by default).
        level: Coverage of the two-sided percentile interval.

    Returns:
        ``value`` mean(first) - mean(second), ``ci`` the paired percentile bootstrap interval, ``pvalue`` the exact
        McNemar p-value, ``baseline`` 0, ``n`` the number of items.

    Raises:
        ConfigError: the inputs are not 1-D, differ in length, are empty, or hold values other than 0/1.

    Example:
        >>> first = [1] * 70 + [0] * 30
        >>> second = [1] * 50 + [0] * 50
        >>> result = paired_bootstrap_difference(first, second, seed=0)
        >>> round(result.value, 2), result.ci.low > 0, f"{result.pvalue:.1e}"
        (0.2, True, '1.9e-06')
    """
    a, b = _paired_correctness(first, second)
    differences = a.astype(float) - b.astype(float)
    ci = bootstrap_interval(
        lambda idx: float(differences[idx].mean()), int(a.size), n_resamples=n_resamples, seed=seed, level=level
    )
    pvalue, only_first, only_second = _mcnemar_pvalue(a, b)
    method = (
        f"paired percentile bootstrap ({n_resamples} resamples) of the accuracy difference; "
        f"p from the {_mcnemar_method(only_first, only_second)}"
    )
    return Estimate(value=float(differences.mean()), method=method, n=int(a.size), ci=ci, pvalue=pvalue, baseline=0.0)


def kendall_tau(x: ArrayLike, y: ArrayLike) -> Estimate:
    """Kendall's tau-b between two paired sequences (two rankings of the same objects), with its p-value.

    tau-b corrects for ties, so it is 1 (or -1) whenever the two orderings agree (or disagree) on every pair
    that either of them orders. The p-value (SciPy's ``kendalltau``) tests "no association".

    Args:
        x: Scores or ranks of the objects under the first ranking.
        y: Scores or ranks of the same objects, in the same order, under the second.

    Returns:
        ``value`` tau-b, ``pvalue`` from SciPy, ``baseline`` 0, ``n`` the number of objects; ``value`` is NaN (and
        ``method`` says why) when either sequence has fewer than 2 distinct values.

    Raises:
        ConfigError: ``x`` and ``y`` are not 1-D sequences of the same length.

    Example:
        >>> round(kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]).value, 4)  # one of six pairs swapped: (5 - 1) / 6
        0.6667
        >>> kendall_tau([1, 1, 1], [1, 2, 3]).method
        "Kendall's tau-b: undefined, x has fewer than 2 distinct values"
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ConfigError(
            f"Kendall's tau needs two 1-D sequences of the same length, found shapes {a.shape} and "
            f"{b.shape}. Pass one score per object, in the same object order for both."
        )
    for name, values in (("x", a), ("y", b)):
        if np.unique(values).size < 2:
            return Estimate(
                value=math.nan,
                method=f"Kendall's tau-b: undefined, {name} has fewer than 2 distinct values",
                n=int(a.size),
                baseline=0.0,
            )
    result = _scipy_stats.kendalltau(a, b)
    return Estimate(
        value=float(result.statistic),
        method="Kendall's tau-b",
        n=int(a.size),
        pvalue=float(result.pvalue),
        baseline=0.0,
    )


def kendall_w(ranks: ArrayLike) -> Estimate:
    """Kendall's coefficient of concordance W: how far ``m`` raters agree on the order of ``n`` objects.

    W is 1 when all raters give the same order and 0 when the rank sums are all equal (no agreement at all).
    Each row is ranked again (ties get their average rank), so rows of raw scores work too; ties are corrected
    for: ``W = 12 S / (m^2 (n^3 - n) - m sum_j T_j)`` with ``S`` the squared deviations of the rank sums from
    their mean and ``T_j`` the sum of ``t^3 - t`` over rater ``j``'s groups of ``t`` tied objects. The p-value is
    the chi-squared approximation ``m (n - 1) W`` on ``n - 1`` degrees of freedom (rough for small ``m`` and
    ``n``).

    Args:
        ranks: An ``(m raters, n objects)`` matrix of ranks (or scores); larger means ranked later.

    Returns:
        ``value`` W, ``pvalue`` from the chi-squared approximation, ``baseline`` 0, ``n`` the number of objects;
        ``value`` is NaN (and ``method`` says why) with fewer than 2 raters or 2 objects, or when every rater ties
        every object.

    Raises:
        ConfigError: ``ranks`` is not a 2-D matrix or holds NaN.

    Example:
        >>> round(kendall_w([[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4]]).value, 4)  # 12 * 35 / (9 * 60) = 7 / 9
        0.7778
        >>> kendall_w([[1, 2, 3], [3, 2, 1]]).value  # opposite orders: equal rank sums
        0.0
    """
    matrix = np.asarray(ranks, dtype=float)
    if matrix.ndim != 2 or np.isnan(matrix).any():
        raise ConfigError(
            f"Kendall's W needs a 2-D (raters x objects) matrix of ranks without NaN, found shape "
            f"{matrix.shape}. Pass one row per rater, one column per object."
        )
    m, n = matrix.shape
    method = "Kendall's W with tie correction, chi-squared approximation"
    if m < 2 or n < 2:
        return Estimate(
            value=math.nan,
            method=f"Kendall's W: undefined with {m} raters and {n} objects (needs at least 2 of each)",
            n=n,
            baseline=0.0,
        )
    ranked = _scipy_stats.rankdata(matrix, method="average", axis=1)
    sums = ranked.sum(axis=0)
    spread = float(((sums - sums.mean()) ** 2).sum())
    ties = sum(_tie_term(row) for row in ranked)
    denominator = m * m * (n**3 - n) - m * ties
    if denominator <= 0:
        return Estimate(
            value=math.nan, method="Kendall's W: undefined, every rater ties every object", n=n, baseline=0.0
        )
    w = 12.0 * spread / denominator
    statistic = m * (n - 1) * w
    return Estimate(value=w, method=method, n=n, pvalue=float(_scipy_stats.chi2.sf(statistic, n - 1)), baseline=0.0)


def _tie_term(row: np.ndarray) -> float:
    """Sum of ``t^3 - t`` over the groups of ``t`` tied values in ``row``."""
    _, counts = np.unique(row, return_counts=True)
    return float((counts.astype(float) ** 3 - counts).sum())


@dataclass(frozen=True)
class BHResult:
    """Benjamini-Hochberg adjustment of a family of p-values, controlling the false discovery rate at ``alpha``."""

    pvalues: tuple[float, ...]
    """The p-values as given, in the given order."""
    qvalues: tuple[float, ...]
    """BH-adjusted p-values (q-values), in the same order: the smallest FDR at which each would be rejected."""
    rejected: tuple[bool, ...]
    """Whether each null hypothesis is rejected at ``alpha`` (``qvalue <= alpha``)."""
    alpha: float
    """The false discovery rate controlled."""

    @property
    def n_rejected(self) -> int:
        """How many hypotheses are rejected."""
        return sum(self.rejected)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "pvalues": list(self.pvalues),
            "qvalues": list(self.qvalues),
            "rejected": list(self.rejected),
            "alpha": self.alpha,
            "n_rejected": self.n_rejected,
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per hypothesis, in the given order: pvalue, qvalue, rejected."""
        return pd.DataFrame(
            {"pvalue": list(self.pvalues), "qvalue": list(self.qvalues), "rejected": list(self.rejected)},
            columns=["pvalue", "qvalue", "rejected"],
        )

    def __repr__(self) -> str:
        return f"BHResult({self.n_rejected} of {len(self.pvalues)} rejected at FDR {self.alpha})"


def benjamini_hochberg(pvalues: ArrayLike, alpha: float = 0.05) -> BHResult:
    """Adjust p-values for multiple testing with the Benjamini-Hochberg procedure (false discovery rate).

    Args:
        pvalues: One p-value per hypothesis (1-D, each in [0, 1], no NaN).
        alpha: The false discovery rate to control (0.05 by default).

    Returns:
        The q-values (``scipy.stats.false_discovery_control``, method ``bh``) and which hypotheses are rejected.

    Raises:
        ConfigError: ``pvalues`` is not 1-D or holds values outside [0, 1] (or NaN); ``alpha`` is not in (0, 1).

    Example:
        >>> result = benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
        >>> [round(q, 4) for q in result.qvalues], result.rejected
        ([0.02, 0.04, 0.04, 0.02], (True, True, True, True))
    """
    values = np.asarray(pvalues, dtype=float)
    if values.ndim != 1 or np.isnan(values).any() or ((values < 0) | (values > 1)).any():
        raise ConfigError(
            f"Benjamini-Hochberg needs a 1-D sequence of p-values in [0, 1], found {values!r}. "
            "Leave out tests without a p-value (NaN) before adjusting."
        )
    if not 0 < alpha < 1:
        raise ConfigError(f"alpha must be a false discovery rate in (0, 1), found {alpha}. Use e.g. 0.05.")
    if values.size == 0:
        return BHResult(pvalues=(), qvalues=(), rejected=(), alpha=alpha)
    qvalues = _scipy_stats.false_discovery_control(values, method="bh")
    return BHResult(
        pvalues=tuple(float(p) for p in values),
        qvalues=tuple(float(q) for q in qvalues),
        rejected=tuple(bool(q <= alpha) for q in qvalues),
        alpha=alpha,
    )


def paired_t_test(
    first: ArrayLike,
    second: ArrayLike,
    alternative: Literal["two-sided", "greater", "less"] = "greater",
    level: float = 0.95,
) -> Estimate:
    """Paired t-test of the mean difference ``first - second`` (e.g. per-seed or per-subject accuracies).

    Args:
        first: One measurement per pair under the first condition.
        second: The paired measurement under the second condition, in the same order.
        alternative: The alternative hypothesis about the mean difference: ``greater`` (default: first is larger),
            ``less`` or ``two-sided``.
        level: Coverage of the interval.

    Returns:
        ``value`` the mean difference, ``ci`` its two-sided t interval (SciPy's ``confidence_interval``, always
        two-sided, whatever ``alternative``), ``pvalue`` for ``alternative``, ``baseline`` 0, ``n`` the number of
        pairs. When the differences do not vary, the t statistic is undefined: ``pvalue`` is NaN, ``ci`` None and
        ``method`` says so.

    Raises:
        ConfigError: the inputs are not 1-D, differ in length, have fewer than 2 pairs or hold NaN; an unknown
            ``alternative``.

    Example:
        >>> result = paired_t_test([1, 2, 3, 5], [0, 1, 2, 3])  # differences 1, 1, 1, 2
        >>> result.value, round(result.pvalue, 4), round(result.ci.low, 3), round(result.ci.high, 3)
        (1.25, 0.0077, 0.454, 2.046)
    """
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.ndim != 1 or a.shape != b.shape or a.size < 2 or np.isnan(a).any() or np.isnan(b).any():
        raise ConfigError(
            f"a paired t-test needs two 1-D sequences of the same length (at least 2 pairs, no NaN), "
            f"found shapes {a.shape} and {b.shape}. Pass one value per pair, in the same order."
        )
    if alternative not in _ALTERNATIVES:
        raise ConfigError(f"alternative must be one of {list(_ALTERNATIVES)}, found {alternative!r}.")
    differences = a - b
    mean = float(differences.mean())
    method = f"paired t-test ({alternative}), two-sided {level:.0%} t interval"
    if np.ptp(differences) == 0:
        return Estimate(
            value=mean,
            method=f"paired t-test: undefined, the {a.size} differences are all {mean:g}",
            n=int(a.size),
            baseline=0.0,
        )
    tested = _scipy_stats.ttest_rel(a, b, alternative=alternative)
    interval = _scipy_stats.ttest_rel(a, b).confidence_interval(confidence_level=level)
    ci = ConfidenceInterval(float(interval.low), float(interval.high), level)
    return Estimate(value=mean, method=method, n=int(a.size), ci=ci, pvalue=float(tested.pvalue), baseline=0.0)
