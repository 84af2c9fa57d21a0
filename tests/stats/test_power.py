"""Power: the detectable difference of a one-sided paired t-test is detected at the stated rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from pfungst.stats import detectable_difference


def test_the_detectable_difference_is_detected_eighty_percent_of_the_time(seed: int) -> None:
    rng = np.random.default_rng(seed)
    difference = detectable_difference(12, 0.1)
    samples = rng.normal(difference, 0.1, size=(4000, 12))
    t = samples.mean(axis=1) / (samples.std(axis=1, ddof=1) / math.sqrt(12))
    detected = np.mean(t > scipy_stats.t.ppf(0.95, 11))
    assert detected == pytest.approx(0.8, abs=0.03)


def test_more_pairs_or_less_spread_detect_smaller_differences() -> None:
    assert detectable_difference(40, 0.1) < detectable_difference(10, 0.1)
    assert detectable_difference(10, 0.05) < detectable_difference(10, 0.1)
    assert detectable_difference(10, 0.1, power=0.9) > detectable_difference(10, 0.1)
    assert math.isnan(detectable_difference(1, 0.1)) and math.isnan(detectable_difference(5, math.nan))
