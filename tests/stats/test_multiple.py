"""Multiple comparisons: Benjamini-Hochberg (with and without untestable hypotheses) and Bonferroni."""

from __future__ import annotations

import json
import math

import pytest

from pfungst.errors import ConfigError
from pfungst.stats import benjamini_hochberg, bonferroni_level, bonferroni_pvalue


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


def test_benjamini_hochberg_can_leave_nan_pvalues_out_of_the_adjustment() -> None:
    result = benjamini_hochberg([0.01, math.nan, 0.04, math.nan, 0.03], nan_policy="omit")
    alone = benjamini_hochberg([0.01, 0.04, 0.03])
    assert [q for q in result.qvalues if not math.isnan(q)] == list(alone.qvalues)
    assert math.isnan(result.qvalues[1]) and math.isnan(result.qvalues[3])
    assert result.rejected == (True, False, True, False, True)
    assert json.loads(json.dumps(result.to_dict()))["qvalues"][1] is None
    assert benjamini_hochberg([math.nan], nan_policy="omit").rejected == (False,)


def test_bonferroni_multiplies_the_pvalue_and_narrows_each_interval() -> None:
    assert bonferroni_pvalue(0.01, 4) == 0.04
    assert bonferroni_pvalue(0.3, 4) == 1.0
    assert bonferroni_level(0.95, 1) == 0.95
    assert bonferroni_level(0.95, 10) == pytest.approx(0.995)
