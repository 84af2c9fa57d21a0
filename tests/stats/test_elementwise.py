"""Element-wise tests agree, entry by entry, with the scalar tests they vectorise."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from pfungst.stats import fisher_exact_pvalue, hypergeometric_pvalues, normal_pvalues, sign_test_pvalues


def test_sign_test_pvalues_are_scipys_two_sided_binomial_test_at_one_half() -> None:
    hits, count = np.array([0, 3, 5, 9, 17, 40]), np.array([6, 10, 10, 10, 30, 41])
    expected = [scipy_stats.binomtest(int(k), int(n), 0.5).pvalue for k, n in zip(hits, count, strict=True)]
    assert sign_test_pvalues(hits, count) == pytest.approx(expected, rel=1e-9)


def test_hypergeometric_pvalues_are_one_sided_fisher_tests_of_each_table() -> None:
    population, successes = 50, np.array([20, 20, 10])
    hits, draws = np.array([9, 2, 10]), np.array([12, 12, 10])
    found = hypergeometric_pvalues(hits, population, successes, draws)
    for k, drawn, labelled, p in zip(hits, draws, successes, found, strict=True):
        table = [[int(k), int(drawn - k)], [int(labelled - k), int(population - drawn - labelled + k)]]
        assert p == pytest.approx(fisher_exact_pvalue(table, alternative="greater"), rel=1e-9)


def test_normal_pvalues_use_a_continuity_correction_and_give_one_without_variance() -> None:
    found = normal_pvalues([30, 20.4, 7], [20, 20, 7], [16, 4, 0])
    assert found[0] == pytest.approx(2 * scipy_stats.norm.sf(9.5 / 4))
    assert found[1] == 1.0  # |0.4| - 0.5 < 0: no evidence either way
    assert found[2] == 1.0 and not math.isnan(found[2])
