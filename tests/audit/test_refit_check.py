"""The refit-aware interval behind "signal below threshold": wide enough on null data, and what raises the flag."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats as scipy_stats

import pfungst
from pfungst.audit import AuditConfig, Verdict, shuffled_copy
from pfungst.audit.feature_sets import FeatureSet, get_feature_set
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.audit.refit_check import null_copy, refit_check, refit_interval
from pfungst.audit.verdict_rule import verdict_of
from pfungst.data.option_kind import OptionKind
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError
from pfungst.schema import Fields
from pfungst.stats import ConfidenceInterval, Estimate

SMALL = ProbeConfig(n_splits=3, n_repeats=1, n_bootstrap=300, n_permutations=300)


def test_the_interval_is_the_point_plus_or_minus_a_t_multiple_of_the_refitted_spread() -> None:
    null = [-0.04, -0.02, 0.0, 0.01, 0.03, -0.01, 0.02, -0.03]
    found = refit_interval(0.05, null, n_feature_sets=4, level=0.95)

    half = scipy_stats.t.ppf(1 - 0.0125 / 2, 7) * np.std(null, ddof=1) * math.sqrt(1 + 1 / 8)
    assert found.ci == ConfidenceInterval(pytest.approx(0.05 - half), pytest.approx(0.05 + half), 0.9875)
    assert found.n == 8 and found.baseline == pytest.approx(np.mean(null))


@pytest.mark.parametrize("value", [0.02, 0.05, 0.08, 0.12])
def test_the_lower_bound_excludes_0_exactly_when_the_bonferroni_p_value_is_below_the_one_sided_level(
    value: float,
) -> None:
    found = refit_interval(value, [-0.04, -0.02, 0.0, 0.01, 0.03, -0.01], n_feature_sets=3, level=0.95)
    assert found.ci is not None
    assert (found.ci.low > 0) == (found.pvalue < 0.025)


def test_fewer_than_two_refits_give_no_interval() -> None:
    found = refit_interval(0.1, [0.02, math.nan], n_feature_sets=1, level=0.95)
    assert found.ci is not None and math.isnan(found.ci.low)


def test_a_null_copy_keeps_the_label_counts_or_each_items_options() -> None:
    shared, per_item = make_synthetic("cue-word", 60), make_synthetic("control", 60)
    rng = np.random.default_rng(0)
    assert sorted(item.gold for item in null_copy(shared, rng)) == sorted(item.gold for item in shared)
    copy = null_copy(per_item, rng)
    assert [item.options for item in copy] == [item.options for item in per_item]
    assert [item.gold for item in copy] != [item.gold for item in per_item]


def _verdict(ci_low: float, refit_low: float | None) -> Verdict:
    refit = None if refit_low is None else Estimate(0.1, "refits", 20, ConfidenceInterval(refit_low, 0.2, 0.99))
    return Verdict(
        label="no evidence",
        feature_set="1-grams_presence",
        statistic="kappa",
        estimate=Estimate(0.1, "bootstrap", 200, ConfidenceInterval(ci_low, 0.19, 0.99)),
        threshold=0.2,
        n_feature_sets=2,
        refit=refit,
    )


def test_the_flag_needs_the_refit_aware_interval_to_exclude_0_too() -> None:
    assert not _verdict(0.01, None).signal_below_threshold
    assert not _verdict(0.01, -0.02).signal_below_threshold
    assert "no signal is claimed" in _verdict(0.01, -0.02).explanation
    flagged = _verdict(0.01, 0.005)
    assert flagged.signal_below_threshold
    assert "refit-aware one [0.005, 0.200] over 20 refits exclude 0" in flagged.explanation


def test_a_clear_signal_is_flagged_without_refits() -> None:
    interval = ConfidenceInterval(0.06, 0.14, 0.99)
    clear = replace(_verdict(0.06, None), estimate=Estimate(0.1, "bootstrap", 200, interval))
    assert clear.clear and clear.signal_below_threshold
    assert "excludes 0 even when widened twofold" in clear.explanation
    assert not _verdict(0.04, None).clear


def test_the_refit_check_is_written_and_read_back() -> None:
    verdict = _verdict(0.01, 0.005)
    data = verdict.to_dict()
    assert data["refit"]["ci"]["low"] == 0.005 and data["signal_below_threshold"] is True
    assert Verdict.from_fields(Fields(data, "v.json")) == verdict


def test_n_refits_other_than_0_or_2_to_200_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"n_refits \(--n-refits\) must be 0 .* or 2 to 200"):
        AuditConfig(n_refits=1)
    with pytest.raises(ConfigError, match="not 201"):
        AuditConfig(n_refits=201)


def test_on_a_null_task_the_refit_aware_interval_is_at_least_as_wide_as_the_bootstrap_one() -> None:
    benchmark = shuffled_copy(make_synthetic("cue-word", 150), seed=3)
    words = get_feature_set("1-grams_presence")

    def inputs(copy: pfungst.Benchmark) -> tuple[FeatureSet, ItemInputs]:
        return words, ItemInputs.from_benchmark(copy, ("hypothesis",))

    outcome = run_probe(words, inputs(benchmark)[1], SMALL)
    config = AuditConfig(n_splits=3, n_repeats=1, n_bootstrap=300)
    fixed = verdict_of([outcome], config, OptionKind.SHARED_LABELS).estimate
    refit = refit_check(
        benchmark, inputs, statistic="kappa", value=fixed.value, n_feature_sets=1, config=SMALL, n_refits=8
    )
    assert fixed.ci is not None and refit.ci is not None
    assert refit.ci.level == fixed.ci.level and refit.value == fixed.value
    assert refit.ci.high - refit.ci.low >= fixed.ci.high - fixed.ci.low


def test_a_clear_signal_below_the_threshold_is_flagged_and_the_refit_count_recorded() -> None:
    result = pfungst.audit.audit(
        make_synthetic("cue-word", 250),
        fields=("hypothesis",),
        feature_sets=("1-grams_presence",),
        threshold=0.9,
        n_splits=3,
        n_repeats=1,
        n_bootstrap=300,
        n_permutations=300,
        n_refits=8,
        cues=False,
        heuristics=False,
    )
    verdict = result.verdict
    assert verdict.label == "no evidence" and verdict.signal_below_threshold, verdict.explanation
    assert verdict.clear and verdict.refit is None and result.provenance.settings["n_refits"] == 8
