"""Statistics: Cohen's kappa, the paper's chance-corrected accuracy, bootstrap intervals and permutation tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from pfungst.stats import (
    bootstrap_interval,
    chance_corrected_accuracy,
    cohen_kappa,
    majority_baseline,
    permutation_pvalue,
)


def test_kappa_equals_sklearn_on_random_imbalanced_labels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n_classes in (2, 3, 5):
        y_true = rng.choice(n_classes, size=300, p=np.r_[0.6, np.full(n_classes - 1, 0.4 / (n_classes - 1))])
        y_pred = np.where(rng.random(300) < 0.5, y_true, rng.integers(0, n_classes, 300))
        assert cohen_kappa(y_true, y_pred) == pytest.approx(cohen_kappa_score(y_true, y_pred), abs=1e-12)


def test_kappa_accepts_string_labels_like_sklearn() -> None:
    y_true = ["yes", "no", "yes", "yes", "maybe", "no"]
    y_pred = ["yes", "yes", "yes", "no", "maybe", "no"]
    assert cohen_kappa(y_true, y_pred) == pytest.approx(cohen_kappa_score(y_true, y_pred))


def test_constant_majority_predictor_has_kappa_zero_despite_high_accuracy() -> None:
    y_true = np.array([1] * 90 + [0] * 10)
    y_pred = np.ones(100, dtype=int)
    assert np.mean(y_true == y_pred) == 0.9
    assert cohen_kappa(y_true, y_pred) == 0.0
    # The paper's statistic credits the same constant guess with 0.8.
    assert chance_corrected_accuracy(0.9, 2) == pytest.approx(0.8)


def test_kappa_of_two_equal_constants_is_defined_as_zero_and_empty_is_nan() -> None:
    assert cohen_kappa([2, 2, 2], [2, 2, 2]) == 0.0
    assert cohen_kappa([0, 0], [1, 1]) == 0.0
    assert math.isnan(cohen_kappa([], []))


def test_kappa_rejects_sequences_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="same length"):
        cohen_kappa([0, 1], [0, 1, 1])


def test_perfect_and_inverted_binary_predictions_give_kappa_plus_and_minus_one() -> None:
    y = np.array([0, 1, 1, 0, 1, 0])
    assert cohen_kappa(y, y) == pytest.approx(1.0)
    assert cohen_kappa(y, 1 - y) == pytest.approx(-1.0)


@pytest.mark.parametrize(
    ("accuracy", "n_classes", "expected"),
    [
        (0.5, 2, 0.0),
        (1.0, 2, 1.0),
        (0.25, 4, 0.0),
        (0.55, 4, 0.4),
        (0.0, 2, -1.0),
        (0.6, 3, 0.4),
    ],
)
def test_chance_corrected_accuracy_is_acc_minus_chance_over_one_minus_chance(
    accuracy: float, n_classes: int, expected: float
) -> None:
    assert chance_corrected_accuracy(accuracy, n_classes) == pytest.approx(expected)


def test_chance_corrected_accuracy_needs_two_classes() -> None:
    with pytest.raises(ValueError, match="at least 2 classes"):
        chance_corrected_accuracy(0.5, 1)


def test_majority_baseline_is_share_of_most_frequent_class() -> None:
    assert majority_baseline([0, 1, 1, 2, 1]) == pytest.approx(0.6)
    assert math.isnan(majority_baseline([]))


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


def test_permutation_pvalue_is_minimal_for_a_perfect_predictor() -> None:
    y = np.array([0, 1, 2] * 30)
    assert permutation_pvalue(y, y, cohen_kappa, n_permutations=199, seed=0) == pytest.approx(1 / 200)


def test_permutation_pvalues_of_random_predictors_are_roughly_uniform(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pvalues = np.array(
        [
            permutation_pvalue(
                rng.integers(0, 2, 120), rng.integers(0, 2, 120), cohen_kappa, n_permutations=99, seed=[seed, trial]
            )
            for trial in range(150)
        ]
    )
    assert 0.4 < pvalues.mean() < 0.6
    assert np.mean(pvalues <= 0.05) < 0.12
    assert np.mean(pvalues <= 0.5) == pytest.approx(0.5, abs=0.15)


def test_permutation_pvalue_alternatives_point_the_right_way() -> None:
    y = np.array([0, 1] * 25)
    assert permutation_pvalue(y, 1 - y, cohen_kappa, n_permutations=99, seed=0, alternative="less") == 0.01
    assert permutation_pvalue(y, 1 - y, cohen_kappa, n_permutations=99, seed=0, alternative="two-sided") == 0.01
    assert permutation_pvalue(y, 1 - y, cohen_kappa, n_permutations=99, seed=0) == 1.0
    with pytest.raises(ValueError, match="alternative"):
        permutation_pvalue(y, y, cohen_kappa, n_permutations=9, seed=0, alternative="bigger")  # type: ignore[arg-type]
