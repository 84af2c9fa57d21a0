"""Hypothesis tests: goodness of fit, a proportion against chance, 2x2 tables, permutations, paired comparisons.

The paired tests compare two models (or one model under two variants) on the same items, in the same order:
McNemar's exact test, the paired bootstrap of the accuracy difference and the paired t-test return an
:class:`~pfungst.stats.estimate.Estimate` (``value``, ``ci``, ``pvalue``, ``baseline``, ``method``, ``n``); the
building blocks used inside other figures (a binomial, Fisher or permutation p-value) return the p-value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as _scipy_stats

from pfungst.errors import ConfigError
from pfungst.stats.estimate import ConfidenceInterval, Estimate
from pfungst.stats.intervals import Seed, bootstrap_interval

__all__ = [
    "binomial_pvalue",
    "chisquare_test",
    "discordant_counts",
    "fisher_exact_pvalue",
    "mcnemar_exact",
    "paired_bootstrap_difference",
    "paired_t_test",
    "permutation_pvalue",
]

Alternative = Literal["two-sided", "greater", "less"]
_ALTERNATIVES = ("two-sided", "greater", "less")


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


def binomial_pvalue(successes: int, n: int, chance: float, alternative: Alternative = "greater") -> float:
    """Exact binomial test of ``successes`` out of ``n`` against a success rate of ``chance`` (SciPy's ``binomtest``).

    NaN when there is nothing to test: no observations, or a chance rate of 0 or 1 (or NaN).

    Example:
        >>> round(binomial_pvalue(9, 10, 0.5), 4)  # 9 of 10 right where guessing gets half
        0.0107
        >>> binomial_pvalue(0, 0, 0.25)
        nan
    """
    if not n or not 0 < chance < 1:
        return math.nan
    return float(_scipy_stats.binomtest(successes, n, chance, alternative=alternative).pvalue)


def fisher_exact_pvalue(table: Sequence[Sequence[int]], alternative: Alternative = "greater") -> float:
    """Fisher's exact test of a 2x2 table ``[[a, b], [c, d]]``: the exact permutation test given its margins.

    ``greater`` tests whether the odds of the first column are higher in the first row (SciPy's ``fisher_exact``).

    Example:
        >>> round(fisher_exact_pvalue([[4, 0], [0, 4]]), 4)  # Fisher's tea: 4 of 4 named right, 1 / 70
        0.0143
    """
    return float(_scipy_stats.fisher_exact(table, alternative=alternative).pvalue)


def permutation_pvalue(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    statistic: Callable[[np.ndarray, np.ndarray], float],
    *,
    n_permutations: int = 1000,
    seed: Seed,
    alternative: Alternative = "greater",
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
        >>> from pfungst.stats import cohen_kappa
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


def discordant_counts(first: ArrayLike, second: ArrayLike) -> tuple[int, int]:
    """The items only the first got right and those only the second got right: what McNemar's test reads.

    Raises:
        ConfigError: the inputs are not 1-D, differ in length, are empty, or hold values other than 0/1.

    Example:
        >>> discordant_counts([1, 1, 0, 0], [1, 0, 1, 1])
        (1, 2)
    """
    a, b = _paired_correctness(first, second)
    return int(np.count_nonzero(a & ~b)), int(np.count_nonzero(~a & b))


def _mcnemar_pvalue(only_first: int, only_second: int) -> float:
    """Exact two-sided McNemar p-value of the two discordant counts (1.0 without discordant items)."""
    discordant = only_first + only_second
    if discordant == 0:
        return 1.0
    return float(_scipy_stats.binomtest(only_first, discordant, 0.5).pvalue)


def _mcnemar_method(only_first: int, only_second: int) -> str:
    return f"exact McNemar test ({only_first} vs {only_second} discordant items)"


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
    only_first, only_second = discordant_counts(a, b)
    return Estimate(
        value=float(a.mean() - b.mean()),
        method=_mcnemar_method(only_first, only_second),
        n=int(a.size),
        pvalue=_mcnemar_pvalue(only_first, only_second),
        baseline=0.0,
    )


PairedForm = Literal["mean of differences", "difference of means"]
"""How a paired difference is computed: ``mean(first - second)`` or ``mean(first) - mean(second)``."""


def paired_bootstrap_difference(
    first: ArrayLike,
    second: ArrayLike,
    *,
    seed: Seed,
    n_resamples: int = 1000,
    level: float = 0.95,
    form: PairedForm = "mean of differences",
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
        form: ``mean of differences`` (default) or ``difference of means``, for the value and each resample. They
            are equal in exact arithmetic but can round apart in the last digit (``(3 - 1) / 10`` is 0.2,
            ``3 / 10 - 1 / 10`` is 0.19999999999999998); rank comparisons use the first, the arrangement metrics
            the second, and each keeps its published figures.

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
    x, y = a.astype(float), b.astype(float)
    if form == "mean of differences":
        differences = x - y
        value = float(differences.mean())
        ci = bootstrap_interval(
            lambda idx: float(differences[idx].mean()), int(a.size), n_resamples=n_resamples, seed=seed, level=level
        )
    elif form == "difference of means":
        value = float(x.mean() - y.mean())
        ci = bootstrap_interval(
            lambda idx: float(x[idx].mean() - y[idx].mean()),
            int(a.size),
            n_resamples=n_resamples,
            seed=seed,
            level=level,
        )
    else:
        raise ConfigError(f"form must be 'mean of differences' or 'difference of means', found {form!r}.")
    only_first, only_second = discordant_counts(a, b)
    method = (
        f"paired percentile bootstrap ({n_resamples} resamples) of the accuracy difference; "
        f"p from the {_mcnemar_method(only_first, only_second)}"
    )
    pvalue = _mcnemar_pvalue(only_first, only_second)
    return Estimate(value=value, method=method, n=int(a.size), ci=ci, pvalue=pvalue, baseline=0.0)


def paired_t_test(
    first: ArrayLike,
    second: ArrayLike,
    alternative: Alternative = "greater",
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
