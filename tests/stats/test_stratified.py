"""A difference within strata: Mantel-Haenszel removes a confound that the pooled difference shows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from pfungst.stats import mantel_haenszel_difference


def test_a_difference_made_by_the_strata_alone_vanishes_within_them() -> None:
    # Stratum "a": 90% success on both sides, mostly in the group; stratum "b": 10%, mostly in the rest.
    group = [True] * 80 + [False] * 20 + [True] * 20 + [False] * 80
    success = [True] * 72 + [False] * 8 + [True] * 18 + [False] * 2 + [True] * 2 + [False] * 18 + [True] * 8
    success += [False] * 72
    strata = ["a"] * 100 + ["b"] * 100
    pooled = np.mean(np.array(success)[np.array(group)]) - np.mean(np.array(success)[~np.array(group)])
    assert pooled == pytest.approx(0.74 - 0.26)
    within = mantel_haenszel_difference(group, success, strata)
    assert within.value == pytest.approx(0.0, abs=1e-12) and within.n == 200
    assert within.pvalue == pytest.approx(0.5)
    assert within.ci is not None and within.ci.low < 0 < within.ci.high


def test_one_stratum_gives_the_plain_difference_and_the_hypergeometric_z_test() -> None:
    group = [True] * 10 + [False] * 10
    success = [True] * 8 + [False] * 2 + [True] * 3 + [False] * 7
    result = mantel_haenszel_difference(group, success, ["only"] * 20, what="difference")
    assert result.value == pytest.approx(0.5)
    mean, variance = 10 * 11 / 20, 10 * 10 * 11 * 9 / (20 * 20 * 19)  # of the group's successes, given margins
    assert result.pvalue == pytest.approx(scipy_stats.norm.sf((8 - mean) / math.sqrt(variance)))
    assert result.method.startswith("difference: Mantel-Haenszel weights")


def test_without_a_stratum_on_both_sides_the_difference_is_undefined() -> None:
    result = mantel_haenszel_difference([True, False], [True, False], ["x", "y"], stratum="class")
    assert math.isnan(result.value) and result.n == 0
    assert result.method.endswith("(no class has items on both sides)")
