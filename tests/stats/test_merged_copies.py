"""Copies merged into ``pfungst.stats`` give the same figures, to the last digit, as the code they replaced.

Each reference below is the removed copy, verbatim but for names: the arrangement metrics' paired bootstrap and
McNemar test, the rank bootstrap, the per-family Benjamini-Hochberg with untestable families, the reliance
analysis's Newcombe interval and within-label Mantel-Haenszel difference, and the two inline binomial tests.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from pfungst.stats import (
    ConfidenceInterval,
    benjamini_hochberg,
    binomial_pvalue,
    bootstrap_draws,
    bootstrap_interval,
    discordant_counts,
    mantel_haenszel_difference,
    newcombe_interval,
    paired_bootstrap_difference,
    percentile_bounds,
    wilson_interval,
)

SIZES = [7, 10, 23, 60]


def _old_arrangement_difference(first: np.ndarray, second: np.ndarray, seed: int) -> tuple:
    """``stress.metrics.arrangement_effects.paired_difference`` before the merge."""
    only_first = int(np.sum((first == 1) & (second == 0)))
    only_second = int(np.sum((first == 0) & (second == 1)))
    discordant = only_first + only_second
    ci = bootstrap_interval(
        lambda idx: float(first[idx].mean() - second[idx].mean()), first.size, n_resamples=300, seed=seed
    )
    pvalue = float(scipy_stats.binomtest(only_first, discordant, 0.5).pvalue) if discordant else 1.0
    return float(first.mean() - second.mean()), ci, pvalue, (only_first, only_second)


@pytest.mark.parametrize("n", SIZES)
def test_the_arrangement_paired_difference_is_unchanged(n: int, seed: int) -> None:
    rng = np.random.default_rng([seed, n])
    first = (rng.random(n) < 0.6).astype(float)
    second = (rng.random(n) < 0.45).astype(float)
    value, ci, pvalue, counts = _old_arrangement_difference(first, second, seed)
    merged = paired_bootstrap_difference(first, second, seed=seed, n_resamples=300, form="difference of means")
    assert (merged.value, merged.ci, merged.pvalue) == (value, ci, pvalue)
    assert discordant_counts(first, second) == counts


@pytest.mark.parametrize("n", SIZES)
def test_the_rank_bootstrap_draws_are_unchanged(n: int, seed: int) -> None:
    matrix = np.random.default_rng([seed, n]).random((4, n)) < 0.5
    rng = np.random.default_rng([seed, 1, 0])  # ``stress.ranks._rank_draws`` before the merge
    old = np.empty((200, 4))
    for row in range(200):
        old[row] = matrix[:, rng.integers(0, n, size=n)].mean(axis=1)
    tail = (1.0 - 0.95) / 2
    old_low, old_high = np.quantile(old, [tail, 1.0 - tail], axis=0)
    draws = bootstrap_draws(lambda index: matrix[:, index].mean(axis=1), n, n_resamples=200, seed=[seed, 1, 0])
    low, high = percentile_bounds(draws, 0.95)
    assert np.array_equal(draws, old) and np.array_equal(low, old_low) and np.array_equal(high, old_high)


def test_the_family_adjustment_with_untestable_families_is_unchanged(seed: int) -> None:
    pvalues = list(np.random.default_rng(seed).random(9) ** 2)
    pvalues[2] = pvalues[5] = math.nan
    tested = [i for i, p in enumerate(pvalues) if not math.isnan(p)]  # ``reliance.families._adjust`` before
    adjusted = benjamini_hochberg([pvalues[i] for i in tested], alpha=0.05)
    old = [(math.nan, False)] * len(pvalues)
    for i, qvalue, rejected in zip(tested, adjusted.qvalues, adjusted.rejected, strict=True):
        old[i] = (qvalue, rejected)
    merged = benjamini_hochberg(pvalues, alpha=0.05, nan_policy="omit")
    assert [(q, r) for q, r in old if not math.isnan(q)] == [
        (q, r) for q, r in zip(merged.qvalues, merged.rejected, strict=True) if not math.isnan(q)
    ]
    assert [math.isnan(q) for q, _ in old] == [math.isnan(q) for q in merged.qvalues]


@pytest.mark.parametrize(("hits", "n", "other_hits", "other_n"), [(8, 20, 3, 20), (0, 5, 5, 5), (17, 23, 11, 40)])
def test_the_reliance_newcombe_interval_is_unchanged(hits: int, n: int, other_hits: int, other_n: int) -> None:
    first, second = wilson_interval(hits, n), wilson_interval(other_hits, other_n)
    value = hits / n - other_hits / other_n  # ``reliance.analysis._difference`` before the merge
    low = value - math.hypot(hits / n - first.low, second.high - other_hits / other_n)
    high = value + math.hypot(first.high - hits / n, other_hits / other_n - second.low)
    old = ConfidenceInterval(max(-1.0, low), min(1.0, high), 0.95)
    assert newcombe_interval(hits, n, other_hits, other_n) == old


def _old_within_label(solvable: np.ndarray, right: np.ndarray, labels: np.ndarray) -> tuple[float, float, float, float]:
    """``reliance.stratified.within_label_difference`` before the merge: value, interval bounds, p-value."""
    weights, differences, variances = [], [], []
    observed = expected = variance = 0.0
    for label in dict.fromkeys(labels.tolist()):
        mask = labels == label
        first, second = right[mask & solvable], right[mask & ~solvable]
        n1, n0 = first.size, second.size
        if n1 == 0 or n0 == 0:
            continue
        n, p1, p0 = n1 + n0, float(first.mean()), float(second.mean())
        weights.append(n1 * n0 / n)
        differences.append(p1 - p0)
        variances.append(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)
        hits = float(first.sum() + second.sum())
        observed += float(first.sum())
        expected += n1 * hits / n
        variance += n1 * n0 * hits * (n - hits) / (n * n * (n - 1)) if n > 1 else 0.0
    w = np.asarray(weights)
    value = float(np.dot(w, differences) / w.sum())
    half = float(scipy_stats.norm.ppf(0.5 + 0.95 / 2)) * math.sqrt(float(np.dot(w * w, variances))) / w.sum()
    pvalue = float(scipy_stats.norm.sf((observed - expected) / math.sqrt(variance)))
    return value, max(-1.0, value - half), min(1.0, value + half), pvalue


@pytest.mark.parametrize("n", [40, 90])
def test_the_within_label_difference_is_unchanged(n: int, seed: int) -> None:
    rng = np.random.default_rng([seed, n])
    solvable, labels = rng.random(n) < 0.5, rng.choice(np.array(["yes", "no", "maybe"], dtype=object), n)
    right = rng.random(n) < np.where(solvable, 0.7, 0.5)
    merged = mantel_haenszel_difference(solvable, right, list(labels))
    assert merged.ci is not None
    assert (merged.value, merged.ci.low, merged.ci.high, merged.pvalue) == _old_within_label(solvable, right, labels)


@pytest.mark.parametrize(("hits", "n", "chance"), [(30, 100, 0.25), (3, 12, 1 / 3), (50, 50, 0.5), (0, 9, 0.2)])
def test_the_inline_binomial_tests_against_chance_are_unchanged(hits: int, n: int, chance: float) -> None:
    old = float(scipy_stats.binomtest(hits, n, chance, alternative="greater").pvalue)  # audit.run, audit.heuristics
    assert binomial_pvalue(hits, n, chance, "greater") == old
