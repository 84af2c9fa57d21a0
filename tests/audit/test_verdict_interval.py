"""The verdict's interval covers the refit: the fixed-prediction bootstrap widened by the spread across repeats."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

import pfungst
from pfungst.audit import shuffled_copy
from pfungst.audit.verdict import Verdict
from pfungst.audit.verdict_interval import BETWEEN_REPEATS, BOOTSTRAP_ONLY, verdict_interval
from pfungst.data.synthetic import make_synthetic
from pfungst.schema import Fields


def _repeats(seed: int, n: int = 120, flips: tuple[float, float] = (0.3, 0.36)) -> tuple[np.ndarray, np.ndarray]:
    """Binary labels and two repeats of predictions that agree with them to different degrees."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, n)
    rows = [np.where(rng.random(n) < share, 1 - gold, gold) for share in flips]
    return gold, np.stack(rows)


def test_each_half_width_is_the_bootstrap_one_added_in_quadrature_to_z_times_the_between_repeat_sd() -> None:
    gold, predictions = _repeats(seed=1)
    ci, widening = verdict_interval(gold, predictions, "kappa", 2.0, n_resamples=400, seed=3, level=0.99)

    per_repeat = [pfungst.stats.cohen_kappa(gold, row) for row in predictions]
    point, spread = np.mean(per_repeat), scipy_stats.norm.ppf(0.995) * np.std(per_repeat, ddof=1)
    assert widening.method == BETWEEN_REPEATS and widening.n_repeats == 2
    assert widening.between_repeat_sd == pytest.approx(np.std(per_repeat, ddof=1))
    assert ci.low == pytest.approx(point - math.hypot(point - widening.bootstrap_low, spread))
    assert ci.high == pytest.approx(point + math.hypot(widening.bootstrap_high - point, spread))
    assert ci.level == 0.99


def test_repeats_that_agree_leave_the_bootstrap_interval_as_it_is() -> None:
    gold, predictions = _repeats(seed=2, flips=(0.3, 0.3))
    same = np.stack([predictions[0], predictions[0]])
    ci, widening = verdict_interval(gold, same, "kappa", 2.0, n_resamples=300, seed=0, level=0.95)

    assert widening.between_repeat_sd == 0 and widening.factor == 1
    assert (ci.low, ci.high) == pytest.approx((widening.bootstrap_low, widening.bootstrap_high))


def test_one_repeat_is_the_bootstrap_alone_and_says_so() -> None:
    gold, predictions = _repeats(seed=3)
    ci, widening = verdict_interval(
        gold, predictions[:1], "chance_corrected_accuracy", 2.0, n_resamples=300, seed=0, level=0.95
    )

    assert widening.method == BOOTSTRAP_ONLY and "one repeat" in widening.description
    assert (ci.low, ci.high) == (widening.bootstrap_low, widening.bootstrap_high)


def test_the_upper_bound_stays_at_or_below_the_statistics_maximum() -> None:
    gold = np.array([0, 1] * 30)
    predictions = np.stack([gold, np.where(np.arange(60) < 12, 1 - gold, gold)])
    ci, _ = verdict_interval(gold, predictions, "kappa", 2.0, n_resamples=300, seed=0, level=0.95)

    assert ci.high <= 1.0 and ci.low < ci.high


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_on_null_copies_the_verdict_interval_is_wider_than_the_fixed_prediction_one_and_recorded(seed: int) -> None:
    null = shuffled_copy(make_synthetic("cue-word", 150, seed=seed), seed=seed)
    result = pfungst.audit.audit(
        null,
        feature_sets=("1-grams_presence", "readability"),
        n_bootstrap=300,
        n_permutations=100,
        n_refits=0,
        heuristics=False,
        cues=False,
        seed=seed,
    )
    verdict, ci = result.verdict, result.verdict.estimate.ci
    widening = verdict.widening

    assert widening is not None and widening.method == BETWEEN_REPEATS and widening.n_repeats == 2
    assert ci is not None and ci.low <= widening.bootstrap_low and ci.high >= widening.bootstrap_high
    assert ci.high - ci.low > widening.bootstrap_high - widening.bootstrap_low
    assert BETWEEN_REPEATS in verdict.estimate.method
    written = json.loads(json.dumps(verdict.to_dict()))
    assert written["widening"]["method"] == BETWEEN_REPEATS
    assert Verdict.from_fields(Fields(written, "verdict.json")).widening == widening
