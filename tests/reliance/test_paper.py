"""Their second experiment on a hand-checkable case: the best probe, the split, their "kappa", the t-test, BH."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from pfungst.audit.crossfit_protocol import CrossFit
from pfungst.audit.feature_sets import get_feature_set
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.audit.probe_outcome import FoldChoice, ProbeOutcome
from pfungst.errors import ConfigError
from pfungst.reliance import ModelOutcomes
from pfungst.reliance.paper import paper_kappa_tests

IDS = tuple(f"t.test.{i}" for i in range(12))
GOLD = np.array([0, 1] * 6)
PREDICTION = np.array([-1, -1] + [0, 1] * 3 + [1, 0] * 2)
"""Items 0-1 are training items (not predicted); 2-7 predicted right, 8-11 wrong."""


def _probe(base: ProbeOutcome, name: str, classifier: str, accuracy: float, prediction: np.ndarray) -> ProbeOutcome:
    choice = FoldChoice(0, 0, 2, 10, classifier, {"l2_C1": 0.0, "l1_C1": 0.0, "l1_C0.1": 0.0, classifier: accuracy})
    return replace(base, feature_set=name, folds=(choice,), prediction=prediction)


@pytest.fixture(scope="module")
def base() -> ProbeOutcome:
    """A real pacchiardi2024 outcome on the 12 items (its prediction and folds are replaced per test)."""
    texts = tuple(f"item {i} says {'yes' if y else 'no'} again" for i, y in enumerate(GOLD))
    inputs = ItemInputs(IDS, texts, GOLD, ("no", "yes"), np.full(12, 2))
    config = ProbeConfig(protocol="pacchiardi2024", n_bootstrap=1, n_permutations=1)
    return run_probe(get_feature_set("1-grams_tf"), inputs, config)


def _model(name: str, dataset: str, right: set[int]) -> ModelOutcomes:
    correct = {item: i in right for i, item in enumerate(IDS)}
    return ModelOutcomes(model=name, dataset=dataset, correct=correct, source="test", format="csv")


def test_split_kappa_and_paired_t_test_follow_their_definitions(base: ProbeOutcome) -> None:
    everything_wrong = np.where(PREDICTION >= 0, 1 - GOLD, -1)
    probes = [
        _probe(base, "2-grams_tf", "l1_C1", 0.8, everything_wrong),
        _probe(base, "1-grams_tf", "l2_C1", 0.8, PREDICTION),  # same accuracy, fitted earlier: theirs picks it
        _probe(base, "readability", "l2_C1", 0.5, everything_wrong),
    ]
    models = [
        _model("gpt-4-0613", "d", set(range(2, 8))),  # right exactly where the classifier is: kappa 1 vs -1
        _model("gpt-4-0314", "d", set(range(2, 8)) | {8, 9}),  # half of the wrong side: kappa 1 vs 0
        _model("text-davinci-003", "d", set(range(12))),  # right everywhere: kappa 1 vs 1
    ]
    result = paper_kappa_tests({"d": probes}, models, threshold=0.1)
    (dataset,) = result.datasets
    assert (dataset.feature_set, dataset.classifier, dataset.n_right, dataset.n_wrong) == ("1-grams_tf", "l2_C1", 6, 4)
    assert dataset.kappa == pytest.approx((0.6 - 0.5) / 0.5) and dataset.kept  # 6 of 10 right, K = 2
    assert dataset.models.kappa_right.tolist() == [1.0, 1.0, 1.0]
    assert dataset.models.kappa_wrong.tolist() == [-1.0, 0.0, 1.0]
    (family,) = result.families.itertuples()
    assert family.family == "openai" and family.n_pairs == 3  # their families: every OpenAI model is one
    assert family.mean_difference == pytest.approx(1.0)
    assert family.pvalue == pytest.approx(stats.t.sf(1.0 / (1.0 / np.sqrt(3)), df=2))
    assert family.qvalue == pytest.approx(family.pvalue)  # one family: BH changes nothing


def test_a_dataset_at_or_below_the_threshold_is_left_out_of_the_tests(base: ProbeOutcome) -> None:
    probes = [_probe(base, "1-grams_tf", "l2_C1", 0.8, PREDICTION)]
    models = [_model("gpt-4-0613", "d", set(range(2, 8))), _model("gpt-4-0314", "d", set(range(12)))]
    result = paper_kappa_tests({"d": probes}, models)  # its kappa is 0.2, their threshold: not above it
    assert not result.datasets[0].kept
    assert result.families.empty and result.to_frame().empty


def test_probes_of_another_protocol_are_refused(base: ProbeOutcome) -> None:
    crossfit = replace(_probe(base, "1-grams_tf", "l2_C1", 0.8, PREDICTION), protocol=CrossFit())
    with pytest.raises(ConfigError, match="needs pacchiardi2024 probes"):
        paper_kappa_tests({"d": [crossfit]}, [])
