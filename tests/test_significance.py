"""Significance tests: McNemar, paired bootstrap, Kendall's tau and W, Benjamini-Hochberg, paired t."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from pfungst.errors import ConfigError
from pfungst.significance import (
    benjamini_hochberg,
    kendall_tau,
    kendall_w,
    mcnemar_exact,
    paired_bootstrap_difference,
    paired_t_test,
)


def _paired_table(both: int, only_first: int, only_second: int, neither: int) -> tuple[list[bool], list[bool]]:
    """Two correctness vectors with the given 2x2 table of (first right, second right) counts."""
    first = [True] * both + [True] * only_first + [False] * only_second + [False] * neither
    second = [True] * both + [False] * only_first + [True] * only_second + [False] * neither
    return first, second


def test_mcnemar_on_an_eight_to_two_discordance_table() -> None:
    first, second = _paired_table(both=10, only_first=8, only_second=2, neither=5)
    result = mcnemar_exact(first, second)
    # Two-sided binomial on 8 of 10 at 1/2: 2 * (C(10,8) + C(10,9) + C(10,10)) / 2^10 = 2 * 56 / 1024.
    assert result.pvalue == pytest.approx(112 / 1024)
    assert result.value == pytest.approx((8 - 2) / 25)
    assert result.n == 25
    assert result.baseline == 0.0
    assert result.ci is None
    assert "McNemar" in result.method and "8 vs 2" in result.method


def test_mcnemar_ignores_concordant_items_and_is_symmetric() -> None:
    few = mcnemar_exact(*_paired_table(both=0, only_first=6, only_second=0, neither=0))
    many = mcnemar_exact(*_paired_table(both=500, only_first=6, only_second=0, neither=500))
    assert few.pvalue == many.pvalue == pytest.approx(2 / 64)
    swapped = mcnemar_exact(*reversed(_paired_table(both=3, only_first=6, only_second=1, neither=2)))
    original = mcnemar_exact(*_paired_table(both=3, only_first=6, only_second=1, neither=2))
    assert swapped.value == pytest.approx(-original.value)
    assert swapped.pvalue == pytest.approx(original.pvalue)


def test_mcnemar_without_discordant_items_has_pvalue_one() -> None:
    result = mcnemar_exact([1, 0, 1], [1, 0, 1])
    assert result.value == 0.0
    assert result.pvalue == 1.0


@pytest.mark.parametrize(
    ("first", "second", "match"),
    [
        ([1, 0, 1], [1, 0], "same length"),
        ([], [], "at least one item"),
        ([1, 2, 0], [1, 0, 0], "booleans"),
        ([[1, 0]], [[1, 0]], "1-D"),
    ],
)
def test_mcnemar_rejects_unpaired_or_non_boolean_input(first: list, second: list, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        mcnemar_exact(first, second)


def test_paired_bootstrap_interval_is_non_negative_when_the_first_model_never_loses(seed: int) -> None:
    # 95 shared answers, 5 items only the first gets right: every resampled difference is >= 0.
    first, second = _paired_table(both=60, only_first=5, only_second=0, neither=35)
    result = paired_bootstrap_difference(first, second, seed=seed)
    assert result.value == pytest.approx(0.05)
    assert result.ci is not None
    assert 0.0 <= result.ci.low <= 0.05 <= result.ci.high <= 0.12
    assert result.pvalue == pytest.approx(2 / 32)  # McNemar on 5 vs 0
    assert result.baseline == 0.0 and result.n == 100


def test_paired_bootstrap_is_reproducible_and_seed_dependent() -> None:
    rng = np.random.default_rng(1)
    first, second = rng.random(80) < 0.7, rng.random(80) < 0.5
    same = [paired_bootstrap_difference(first, second, seed=3).ci for _ in range(2)]
    assert same[0] == same[1]
    assert paired_bootstrap_difference(first, second, seed=4).ci != same[0]


def test_paired_bootstrap_level_widens_the_interval(seed: int) -> None:
    first, second = _paired_table(both=40, only_first=15, only_second=5, neither=40)
    narrow = paired_bootstrap_difference(first, second, seed=seed, level=0.5).ci
    wide = paired_bootstrap_difference(first, second, seed=seed, level=0.99).ci
    assert narrow is not None and wide is not None
    assert wide.low < narrow.low < 0.1 < narrow.high < wide.high
    assert wide.level == 0.99


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


def test_benjamini_hochberg_on_four_pvalues() -> None:
    # Sorted: 0.005, 0.01, 0.03, 0.04 -> p * 4 / rank = 0.02, 0.02, 0.04, 0.04 (already monotone).
    result = benjamini_hochberg([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    assert result.qvalues == pytest.approx((0.02, 0.04, 0.04, 0.02))
    assert result.rejected == (True, True, True, True)
    strict = benjamini_hochberg([0.01, 0.04, 0.03, 0.005], alpha=0.03)
    assert strict.rejected == (True, False, False, True)
    assert strict.n_rejected == 2


def test_benjamini_hochberg_reproduces_the_1995_paper_example() -> None:
    # Benjamini & Hochberg (1995), section 4: 15 p-values, FDR 0.05 rejects the four smallest.
    pvalues = [
        0.0001,
        0.0004,
        0.0019,
        0.0095,
        0.0201,
        0.0278,
        0.0298,
        0.0344,
        0.0459,
        0.3240,
        0.4262,
        0.5719,
        0.6528,
        0.7590,
        1.000,
    ]
    result = benjamini_hochberg(pvalues)
    assert result.rejected == (True,) * 4 + (False,) * 11


def test_benjamini_hochberg_to_dict_and_frame() -> None:
    result = benjamini_hochberg([0.2, 0.001])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["qvalues"] == pytest.approx([0.2, 0.002])
    assert data["rejected"] == [False, True] and data["alpha"] == 0.05
    assert list(result.to_frame().columns) == ["pvalue", "qvalue", "rejected"]
    assert benjamini_hochberg([]).rejected == ()


@pytest.mark.parametrize(
    ("pvalues", "alpha", "match"),
    [
        ([0.1, 1.5], 0.05, r"p-values in \[0, 1\]"),
        ([0.1, math.nan], 0.05, "NaN"),
        ([0.1], 0.0, r"alpha must be"),
    ],
)
def test_benjamini_hochberg_rejects_invalid_input(pvalues: list[float], alpha: float, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        benjamini_hochberg(pvalues, alpha=alpha)


def _t3_cdf(t: float) -> float:
    """Student's t distribution function with 3 degrees of freedom, in closed form."""
    u = t / math.sqrt(3)
    return 0.5 + (u / (1 + u * u) + math.atan(u)) / math.pi


def test_paired_t_test_hand_computed() -> None:
    # Differences 1, 1, 1, 2: mean 1.25, sd 0.5, standard error 0.25, t = 5 on 3 df.
    result = paired_t_test([1, 2, 3, 5], [0, 1, 2, 3])
    assert result.value == pytest.approx(1.25)
    assert result.pvalue == pytest.approx(1 - _t3_cdf(5.0))
    assert result.ci is not None
    assert (result.ci.low, result.ci.high) == pytest.approx((1.25 - 3.182446 * 0.25, 1.25 + 3.182446 * 0.25))
    assert result.n == 4 and result.baseline == 0.0
    less = paired_t_test([1, 2, 3, 5], [0, 1, 2, 3], alternative="less")
    two_sided = paired_t_test([1, 2, 3, 5], [0, 1, 2, 3], alternative="two-sided")
    assert less.pvalue == pytest.approx(_t3_cdf(5.0))
    assert two_sided.pvalue == pytest.approx(2 * (1 - _t3_cdf(5.0)))
    assert less.ci == result.ci  # the interval is two-sided whatever the alternative


def test_paired_t_test_with_constant_differences_is_undefined() -> None:
    result = paired_t_test([1, 2, 3], [0, 1, 2])
    assert result.value == 1.0
    assert math.isnan(result.pvalue) and result.ci is None
    assert "undefined" in result.method


@pytest.mark.parametrize(
    ("first", "second", "alternative", "match"),
    [
        ([1.0], [0.0], "greater", "at least 2 pairs"),
        ([1.0, 2.0], [0.0, 1.0, 2.0], "greater", "same length"),
        ([1.0, 2.0], [0.0, 1.0], "bigger", "alternative must be"),
    ],
)
def test_paired_t_test_rejects_bad_input(first: list[float], second: list[float], alternative: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        paired_t_test(first, second, alternative=alternative)  # type: ignore[arg-type]
