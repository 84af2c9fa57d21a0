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
from pfungst.audit.verdict_interval import (
    BETWEEN_REPEATS,
    BOOTSTRAP_ONLY,
    probe_intervals,
    refit_ratio,
    verdict_interval,
)
from pfungst.data.synthetic import make_synthetic
from pfungst.schema import Fields


def _repeats(seed: int, n: int = 120, flips: tuple[float, float] = (0.3, 0.36)) -> tuple[np.ndarray, np.ndarray]:
    """Binary labels and two repeats of predictions that agree with them to different degrees."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, n)
    rows = [np.where(rng.random(n) < share, 1 - gold, gold) for share in flips]
    return gold, np.stack(rows)


def test_on_its_own_each_half_width_is_the_bootstrap_one_added_in_quadrature_to_z_times_the_between_repeat_sd() -> None:
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


def test_the_pooled_ratio_widens_by_the_audits_mean_between_to_bootstrap_variance_ratio() -> None:
    gold, predictions = _repeats(seed=4)
    quiet = gold, np.stack([predictions[0], predictions[0]])  # repeats that agree: ratio 0
    loud = _repeats(seed=5, flips=(0.2, 0.4))
    ratio, n_pooled = refit_ratio(
        [(quiet[0], quiet[1], 2.0), (loud[0], loud[1], 2.0)], "kappa", n_resamples=400, seed=0
    )
    _, own = verdict_interval(loud[0], loud[1], "kappa", 2.0, n_resamples=400, seed=0, level=0.95)
    ci, pooled = verdict_interval(
        quiet[0], quiet[1], "kappa", 2.0, n_resamples=400, seed=0, level=0.95, pooled=(ratio, n_pooled)
    )

    assert n_pooled == 2 and ratio == pytest.approx((own.between_repeat_sd / own.bootstrap_sd) ** 2 / 2, rel=0.05)
    assert pooled.between_repeat_sd == 0 and pooled.refit_sd == pytest.approx(math.sqrt(ratio) * pooled.bootstrap_sd)
    assert pooled.n_pooled == 2 and ci.low < pooled.bootstrap_low  # widened although its own repeats agree


def test_every_probes_interval_at_once_is_each_ones_verdict_interval_with_the_pooled_ratio() -> None:
    probes = [(*_repeats(seed=seed, flips=flips), 2.0) for seed, flips in ((7, (0.3, 0.36)), (8, (0.2, 0.4)))]
    probes.append((probes[0][0][:0], probes[0][1][:, :0], 2.0))  # a probe that predicted nothing
    pooled = refit_ratio(probes, "kappa", n_resamples=300, seed=2)
    found = probe_intervals(probes, "kappa", n_resamples=300, seed=2, level=0.98)

    for (gold, prediction, n_classes), (ci, widening) in zip(probes[:2], found, strict=False):
        assert (ci, widening) == verdict_interval(
            gold, prediction, "kappa", n_classes, n_resamples=300, seed=2, level=0.98, pooled=pooled
        )
        assert widening.n_pooled == 2
    assert math.isnan(found[2][0].low) and math.isnan(found[2][0].high)


def test_one_repeat_pools_nothing() -> None:
    gold, predictions = _repeats(seed=6)
    assert refit_ratio([(gold, predictions[:1], 2.0)], "kappa", n_resamples=100, seed=0)[1] == 0


def test_a_strong_planted_cue_excludes_0_and_nulls_cover_it() -> None:
    """A seeded simulation of probes: predictions that follow a planted cue in 40% of the items, and null
    predictions that ignore the gold, each with two repeats that differ as refits do."""
    rng = np.random.default_rng(11)
    covered, n_nulls = 0, 60
    for _ in range(n_nulls):
        gold = rng.integers(0, 2, 150)
        probes = [(gold, rng.integers(0, 2, (2, 150)), 2.0) for _ in range(4)]
        pooled = refit_ratio(probes, "kappa", n_resamples=300, seed=0)
        ci, _ = verdict_interval(*probes[0][:2], "kappa", 2.0, n_resamples=300, seed=0, level=0.9875, pooled=pooled)
        covered += ci.low <= 0 <= ci.high
    gold = rng.integers(0, 2, 150)
    cued = rng.random(150) < 0.4
    planted = np.stack([np.where(cued, gold, rng.integers(0, 2, 150)) for _ in range(2)])
    ci, _ = verdict_interval(gold, planted, "kappa", 2.0, n_resamples=300, seed=0, level=0.9875)

    assert covered >= 0.95 * n_nulls
    assert ci.low > 0
