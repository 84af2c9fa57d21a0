"""Intervals: Wilson, Newcombe, and the percentile bootstrap (its draws, bounds and reproducibility)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pfungst.stats import bootstrap_draws, bootstrap_interval, newcombe_interval, percentile_bounds, wilson_interval


def test_wilson_interval_matches_the_textbook_value_and_stays_in_zero_one() -> None:
    ci = wilson_interval(45, 100)
    assert (ci.low, ci.high) == pytest.approx((0.3561, 0.5475), abs=1e-4)
    assert wilson_interval(0, 10).low == 0.0 and wilson_interval(10, 10).high == pytest.approx(1.0)
    assert math.isnan(wilson_interval(0, 0).low)


def test_newcombe_interval_reproduces_newcombe_1998_examples() -> None:
    # Newcombe (1998), Table II, method 10: 56/70 - 48/80 and 9/10 - 3/10.
    first = newcombe_interval(56, 70, 48, 80)
    assert (first.low, first.high) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    second = newcombe_interval(9, 10, 3, 10)
    assert (second.low, second.high) == pytest.approx((0.1705, 0.8090), abs=1e-4)
    assert math.isnan(newcombe_interval(1, 0, 1, 2).low)


def test_bootstrap_draws_are_the_resamples_bootstrap_interval_reads() -> None:
    values = np.arange(30, dtype=float)
    draws = bootstrap_draws(lambda idx: float(values[idx].mean()), 30, n_resamples=200, seed=4)
    low, high = percentile_bounds(draws, 0.9)
    ci = bootstrap_interval(lambda idx: float(values[idx].mean()), 30, n_resamples=200, seed=4, level=0.9)
    assert (ci.low, ci.high) == (float(low), float(high))


def test_bootstrap_draws_of_a_vector_statistic_share_the_items_of_a_row() -> None:
    matrix = np.array([[1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0]])
    draws = bootstrap_draws(lambda idx: matrix[:, idx].mean(axis=1), 4, n_resamples=50, seed=0)
    assert draws.shape == (50, 2)
    assert np.array_equal(draws[:, 0], draws[:, 1])  # two identical models get the same resampled accuracy


def test_bootstrap_interval_covers_the_true_mean_about_95_percent_of_the_time(seed: int) -> None:
    rng = np.random.default_rng(seed)
    covered = 0
    for trial in range(60):
        values = (rng.random(200) < 0.3).astype(float)
        ci = bootstrap_interval(lambda idx, v=values: float(v[idx].mean()), 200, n_resamples=400, seed=[seed, trial])
        covered += ci.low <= 0.3 <= ci.high
    assert 0.85 <= covered / 60 <= 1.0


def test_bootstrap_interval_repeats_with_the_same_seed_and_skips_nan_resamples() -> None:
    values = np.arange(50, dtype=float)

    def statistic(idx: np.ndarray) -> float:
        return math.nan if idx[0] % 2 else float(values[idx].mean())

    first = bootstrap_interval(statistic, 50, n_resamples=200, seed=3)
    assert first == bootstrap_interval(statistic, 50, n_resamples=200, seed=3)
    assert 10 < first.low < 24.5 < first.high < 39
    assert math.isnan(bootstrap_interval(lambda idx: math.nan, 10, seed=0).low)
