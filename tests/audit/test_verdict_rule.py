"""The verdict's label: "no evidence" needs every feature set's simultaneous upper bound below the threshold, not only
the best one's; the explanation and the headline say which feature set keeps it from being claimed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from pfungst.audit import AuditConfig, Verdict, shuffled_copy
from pfungst.audit.feature_sets import get_feature_set
from pfungst.audit.headline_rules import headline_of, items_needed
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.audit.verdict_rule import verdict_of
from pfungst.data.option_kind import OptionKind
from pfungst.data.synthetic import make_synthetic
from pfungst.schema import Fields

CONFIG = AuditConfig(n_splits=3, n_repeats=2, n_bootstrap=400, seed=0)


@pytest.fixture(scope="module")
def null_probe() -> ProbeOutcome:
    """Word presence on 600 items whose labels were shuffled: its interval is narrow and below the threshold."""
    benchmark = shuffled_copy(make_synthetic("cue-word", 600, seed=1), seed=3)
    words = get_feature_set("1-grams_presence")
    settings = ProbeConfig(n_splits=3, n_repeats=2, n_bootstrap=400, n_permutations=200)
    return run_probe(words, ItemInputs.from_benchmark(benchmark, ("hypothesis",)), settings)


def _on_few_items(probe: ProbeOutcome, name: str, n: int) -> ProbeOutcome:
    """The same predictions kept for the first ``n`` items only, under another name and with a lower point
    estimate: a probe whose interval is wider than the best one's."""
    assert probe.predictions is not None
    predictions = probe.predictions.copy()
    predictions[:, n:] = -1
    prediction = probe.prediction.copy()
    prediction[n:] = -1
    kappa = replace(probe.kappa, value=probe.kappa.value - 1)
    return replace(probe, feature_set=name, predictions=predictions, prediction=prediction, kappa=kappa)


def test_one_narrow_null_probe_alone_gives_no_evidence(null_probe: ProbeOutcome) -> None:
    verdict = verdict_of([null_probe], CONFIG, OptionKind.SHARED_LABELS)
    assert verdict.estimate.ci is not None and verdict.estimate.ci.high < CONFIG.threshold
    assert verdict.label == "no evidence" and verdict.highest_upper is None


def test_no_evidence_is_not_claimed_while_another_feature_sets_upper_bound_reaches_the_threshold(
    null_probe: ProbeOutcome,
) -> None:
    wide = _on_few_items(null_probe, "readability", 20)
    verdict = verdict_of([null_probe, wide], CONFIG, OptionKind.SHARED_LABELS)

    assert verdict.feature_set == "1-grams_presence"  # the best point estimate still leads
    assert verdict.estimate.ci is not None and verdict.estimate.ci.high < CONFIG.threshold
    assert verdict.highest_upper is not None and verdict.highest_upper.feature_set == "readability"
    other = verdict.highest_upper.estimate.ci
    assert other is not None and other.high > CONFIG.threshold
    assert other.level == verdict.estimate.ci.level  # the same simultaneous level
    assert verdict.label == "inconclusive"
    assert "the upper bound is below the threshold 0.2, but not that of feature set readability" in (
        verdict.explanation
    )
    assert "a cue of that size is not ruled out" in verdict.explanation


def test_the_headline_sizes_the_audit_by_the_interval_that_decides(null_probe: ProbeOutcome) -> None:
    verdict = verdict_of([null_probe, _on_few_items(null_probe, "readability", 20)], CONFIG, OptionKind.SHARED_LABELS)
    headline = headline_of(verdict, None, None, None, declared="", labels=("a", "b"))
    assert verdict.highest_upper is not None
    assert verdict.deciding == verdict.highest_upper.estimate
    assert headline.certainty == "inconclusive"
    assert headline.items_needed == items_needed(verdict.highest_upper.estimate, CONFIG.threshold)
    assert headline.items_needed != items_needed(verdict.estimate, CONFIG.threshold)


def test_every_upper_bound_below_the_threshold_gives_no_evidence_and_names_the_highest(
    null_probe: ProbeOutcome,
) -> None:
    verdict = verdict_of([null_probe, _on_few_items(null_probe, "readability", 150)], CONFIG, OptionKind.SHARED_LABELS)
    assert verdict.highest_upper is not None and verdict.highest_upper.estimate.ci is not None
    assert verdict.highest_upper.estimate.ci.high < CONFIG.threshold
    assert verdict.label == "no evidence"
    assert "as is every feature set's (the highest: readability" in verdict.explanation


def test_the_other_bound_reads_back_from_json(null_probe: ProbeOutcome) -> None:
    verdict = verdict_of([null_probe, _on_few_items(null_probe, "readability", 20)], CONFIG, OptionKind.SHARED_LABELS)
    data = verdict.to_dict()
    assert data["highest_upper"]["feature_set"] == "readability"
    assert Verdict.from_fields(Fields(data, "v.json")) == verdict
    no_other = verdict_of([null_probe], CONFIG, OptionKind.SHARED_LABELS).to_dict()
    assert no_other["highest_upper"] is None
    assert Verdict.from_fields(Fields(no_other, "v.json")).highest_upper is None


def test_a_probe_without_predictions_does_not_block_no_evidence(null_probe: ProbeOutcome) -> None:
    empty = _on_few_items(null_probe, "readability", 0)
    verdict = verdict_of([null_probe, empty], CONFIG, OptionKind.SHARED_LABELS)
    assert verdict.highest_upper is None and verdict.feature_set == "1-grams_presence"
    assert np.isfinite(verdict.estimate.value)
