"""Hypothesis tests: chi-squared, binomial against chance, Fisher, permutation, McNemar, paired bootstrap, paired t."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from pfungst.errors import ConfigError
from pfungst.stats import (
    binomial_pvalue,
    chisquare_test,
    cohen_kappa,
    discordant_counts,
    fisher_exact_pvalue,
    mcnemar_exact,
    paired_bootstrap_difference,
    paired_t_test,
    permutation_pvalue,
)


def test_chisquare_test_rescales_expected_counts_and_skips_empty_categories() -> None:
    result = chisquare_test([30, 10, 0], [1, 1, 0], "gold positions")
    assert result.value == pytest.approx(10.0) and result.n == 40
    assert result.pvalue == pytest.approx(scipy_stats.chi2.sf(10.0, 1))
    assert result.method == "chi-squared test: gold positions"
    assert math.isnan(chisquare_test([5], [1], "one category").value)


def test_binomial_pvalue_against_chance_is_scipys_and_nan_without_a_test() -> None:
    assert binomial_pvalue(40, 100, 0.25) == scipy_stats.binomtest(40, 100, 0.25, alternative="greater").pvalue
    assert binomial_pvalue(10, 100, 0.25, "less") == scipy_stats.binomtest(10, 100, 0.25, alternative="less").pvalue
    assert math.isnan(binomial_pvalue(0, 0, 0.25))
    assert math.isnan(binomial_pvalue(5, 5, 1.0)) and math.isnan(binomial_pvalue(5, 5, math.nan))


def test_fisher_exact_pvalue_of_a_lady_tasting_tea() -> None:
    # Fisher's tea: 4 of 4 cups with milk first named right; one-sided p = 1 / C(8, 4) = 1 / 70.
    assert fisher_exact_pvalue([[4, 0], [0, 4]]) == pytest.approx(1 / 70)
    assert fisher_exact_pvalue([[0, 4], [4, 0]]) == pytest.approx(1.0)


def test_discordant_counts_read_the_off_diagonal_of_the_paired_table() -> None:
    assert discordant_counts([1, 1, 0, 0, 1], [1, 0, 1, 1, 0]) == (2, 2)
    assert discordant_counts([True, True], [True, True]) == (0, 0)
    with pytest.raises(ConfigError, match="same length"):
        discordant_counts([1, 0], [1])


def test_paired_bootstrap_forms_agree_up_to_rounding_and_an_unknown_form_is_refused(seed: int) -> None:
    rng = np.random.default_rng(seed)
    first, second = rng.random(37) < 0.6, rng.random(37) < 0.4
    means = paired_bootstrap_difference(first, second, seed=seed, n_resamples=300)
    of_means = paired_bootstrap_difference(first, second, seed=seed, n_resamples=300, form="difference of means")
    assert of_means.value == pytest.approx(means.value, abs=1e-12)
    assert of_means.ci is not None and means.ci is not None
    assert (of_means.ci.low, of_means.ci.high) == pytest.approx((means.ci.low, means.ci.high), abs=1e-12)
    assert of_means.pvalue == means.pvalue
    with pytest.raises(ConfigError, match="form must be"):
        paired_bootstrap_difference(first, second, seed=0, form="ratio")  # type: ignore[arg-type]


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
