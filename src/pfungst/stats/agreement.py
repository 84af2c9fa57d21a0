"""Agreement beyond chance: Cohen's kappa, the paper's chance-corrected accuracy, and Kendall's tau and W.

Kappa and chance-corrected accuracy compare predictions with labels; Kendall's tau and W compare rankings (of the
same models under two or more variants). The tests return an :class:`~pfungst.stats.estimate.Estimate`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as _scipy_stats

from pfungst.errors import ConfigError
from pfungst.stats.estimate import Estimate

__all__ = ["chance_corrected_accuracy", "cohen_kappa", "kendall_tau", "kendall_w", "majority_baseline"]


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
