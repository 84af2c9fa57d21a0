"""Agreement: Cohen's kappa, the paper's chance-corrected accuracy, the majority baseline, Kendall's tau and W."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

from pfungst.errors import ConfigError
from pfungst.stats import chance_corrected_accuracy, cohen_kappa, kendall_tau, kendall_w, majority_baseline


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


def test_kendall_tau_counts_concordant_and_discordant_pairs() -> None:
    x, y = [1, 2, 3, 4, 5], [3, 1, 2, 5, 4]
    pairs = list(itertools.combinations(range(5), 2))
    concordant = sum((x[i] - x[j]) * (y[i] - y[j]) > 0 for i, j in pairs)
    assert concordant == 7  # discordant: (1,2), (1,3), (4,5)
    assert kendall_tau(x, y).value == pytest.approx((7 - 3) / 10)


def test_kendall_tau_of_identical_and_reversed_orders_with_exact_pvalue() -> None:
    same = kendall_tau([1, 2, 3, 4, 5], [10, 20, 30, 40, 50])
    reversed_ = kendall_tau([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])
    assert same.value == pytest.approx(1.0)
    assert reversed_.value == pytest.approx(-1.0)
    # Exact null: only 1 of 5! = 120 orders is perfectly concordant (and 1 perfectly discordant).
    assert same.pvalue == pytest.approx(2 / 120)
    assert same.baseline == 0.0 and same.n == 5


def test_kendall_tau_b_corrects_for_ties() -> None:
    # x ties one pair: 5 concordant, 0 discordant out of 6 pairs; tau-b = 5 / sqrt((6 - 1) * (6 - 0)).
    assert kendall_tau([1, 1, 2, 3], [1, 2, 3, 4]).value == pytest.approx(5 / math.sqrt(30))


def test_kendall_tau_is_nan_with_a_note_for_constant_input() -> None:
    result = kendall_tau([0.5, 0.5, 0.5], [1, 2, 3])
    assert math.isnan(result.value)
    assert "fewer than 2 distinct" in result.method
    assert math.isnan(kendall_tau([1, 2], [4, 4]).value)
    with pytest.raises(ConfigError, match="same length"):
        kendall_tau([1, 2, 3], [1, 2])


def test_kendall_w_hand_computed_example() -> None:
    # Rank sums 4, 6, 8, 12 around 7.5: S = 12.25 + 2.25 + 0.25 + 20.25 = 35; W = 12 * 35 / (3^2 * (4^3 - 4)).
    result = kendall_w([[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4]])
    assert result.value == pytest.approx(7 / 9)
    # chi2 = m (n - 1) W = 7 on 3 df; for 3 df the survival function is erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2).
    assert result.pvalue == pytest.approx(math.erfc(math.sqrt(3.5)) + math.sqrt(14 / math.pi) * math.exp(-3.5))
    assert result.n == 4 and result.baseline == 0.0


def test_kendall_w_with_ties_uses_the_correction() -> None:
    # Rank sums 3.5, 5.5, 9.5, 11.5: S = 40. Two raters tie one pair each: T = 2 * (2^3 - 2) = 12.
    result = kendall_w([[1, 2, 3, 4], [1.5, 1.5, 3, 4], [1, 2, 3.5, 3.5]])
    assert result.value == pytest.approx(12 * 40 / (9 * 60 - 3 * 12))


def test_kendall_w_is_one_for_identical_and_zero_for_opposite_orders() -> None:
    assert kendall_w([[1, 2, 3, 4]] * 5).value == pytest.approx(1.0)
    opposite = kendall_w([[1, 2, 3], [3, 2, 1]])
    assert opposite.value == pytest.approx(0.0)
    assert opposite.pvalue == pytest.approx(1.0)


def test_kendall_w_ranks_raw_scores_and_matches_mean_spearman(seed: int) -> None:
    # Without ties, the mean pairwise Spearman correlation is (m W - 1) / (m - 1).
    rng = np.random.default_rng(seed)
    scores = rng.random((4, 7))
    m = scores.shape[0]
    rhos = [scipy_stats.spearmanr(scores[i], scores[j]).statistic for i, j in itertools.combinations(range(m), 2)]
    w = kendall_w(scores).value
    assert float(np.mean(rhos)) == pytest.approx((m * w - 1) / (m - 1))


def test_kendall_w_is_undefined_for_one_rater_or_all_ties() -> None:
    one = kendall_w([[1, 2, 3]])
    assert math.isnan(one.value) and "1 raters" in one.method
    tied = kendall_w([[1, 1, 1], [2, 2, 2]])
    assert math.isnan(tied.value) and "ties every object" in tied.method
    with pytest.raises(ConfigError, match="2-D"):
        kendall_w([1, 2, 3])
