"""The probe finds planted artifacts, finds nothing where nothing is planted, and never leaks test items."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from pfungst.audit.encoder import EncoderSettings, make_encoder
from pfungst.audit.feature_sets import FeatureSet, get_feature_set
from pfungst.audit.features.corpus import TextCorpus
from pfungst.audit.inputs import ItemInputs, OptionTable
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError

FAST = ProbeConfig(n_bootstrap=300, n_permutations=300)
NULL = ProbeConfig(n_bootstrap=1000, n_permutations=300, level=0.99)
"""For benchmarks without signal: tested at 1% (99% interval, p > 0.01) so that sweeping PFUNGST_TEST_SEED rarely
trips on the 5% of false positives a calibrated test must produce (the default seed also passes at 5%)."""
WORDS = FeatureSet("test-words", "", "item", "sklearn.feature_extraction.text:CountVectorizer")
"""A plain word-count feature set, for tests that do not need the registered ones."""


def _hypotheses(seed: int, n_items: int = 300) -> ItemInputs:
    return ItemInputs.from_benchmark(make_synthetic("cue-word", n_items, seed=seed), fields=("hypothesis",))


def _shuffled(inputs: ItemInputs, seed: int) -> ItemInputs:
    return replace(inputs, y=np.random.default_rng(seed).permutation(inputs.y))


def _no_evidence(outcome: ProbeOutcome) -> bool:
    """No evidence of signal: the interval reaches 0 (or lies below it) and kappa = 0 is not rejected."""
    ci = outcome.kappa.ci
    return ci is not None and ci.low <= 0.0 and outcome.kappa.pvalue > 0.01


@pytest.mark.parametrize("name", ["1-grams_presence", "readability"])
def test_planted_cue_word_is_found_with_interval_well_above_zero(name: str, seed: int) -> None:
    outcome = run_probe(get_feature_set(name), _hypotheses(seed, 400), replace(FAST, seed=seed))
    assert outcome.kappa.ci is not None and outcome.kappa.ci.low > 0.1
    assert outcome.kappa.pvalue < 0.01
    assert outcome.accuracy.value > outcome.majority_baseline.value + 0.1


def test_the_cue_word_is_the_top_feature_for_contradiction(seed: int) -> None:
    outcome = run_probe(get_feature_set("1-grams_presence"), _hypotheses(seed), replace(FAST, seed=seed))
    top = [weight.feature for weight in outcome.top_features if weight.class_name == "contradiction"]
    assert top[0] == "never"


def test_planted_longest_option_is_found_by_the_option_model(seed: int) -> None:
    table = OptionTable.from_benchmark(make_synthetic("longest-option", 300, seed=seed))
    outcome = run_probe(get_feature_set("options"), table, replace(FAST, seed=seed))
    assert outcome.level == "option"
    assert outcome.kappa.ci is not None and outcome.kappa.ci.low > 0.2
    assert outcome.kappa.pvalue < 0.01
    chosen = [w.feature for w in outcome.top_features if w.class_name == "chosen"][:3]
    assert any("long" in feature or "length" in feature for feature in chosen)


@pytest.mark.parametrize("name", ["1-grams_tf", "readability"])
def test_control_benchmark_gives_no_evidence(name: str, seed: int) -> None:
    inputs = ItemInputs.from_benchmark(make_synthetic("control", 300, seed=seed))
    outcome = run_probe(get_feature_set(name), inputs, replace(NULL, seed=seed))
    assert _no_evidence(outcome)


def test_control_benchmark_gives_no_evidence_to_the_option_model(seed: int) -> None:
    table = OptionTable.from_benchmark(make_synthetic("control", 300, seed=seed))
    outcome = run_probe(get_feature_set("options"), table, replace(NULL, seed=seed))
    assert _no_evidence(outcome)


def test_label_shuffled_copy_of_a_cued_benchmark_gives_no_evidence(seed: int) -> None:
    outcome = run_probe(
        get_feature_set("1-grams_presence"), _shuffled(_hypotheses(seed), seed), replace(NULL, seed=seed)
    )
    assert _no_evidence(outcome)


def test_a_random_id_per_item_predicts_nothing_so_no_test_item_is_trained_on(seed: int) -> None:
    inputs = _hypotheses(seed)
    ids = [f"id{value}" for value in np.random.default_rng(seed).permutation(10**6)[: len(inputs)]]
    outcome = run_probe(WORDS, replace(inputs, texts=tuple(ids)), replace(NULL, seed=seed))
    assert abs(outcome.kappa.value) < 0.05
    assert _no_evidence(outcome)


def test_every_item_gets_an_out_of_fold_prediction_in_every_repeat(seed: int) -> None:
    inputs = _hypotheses(seed, 200)
    config = replace(FAST, n_splits=4, n_repeats=3, seed=seed)
    outcome = run_probe(WORDS, inputs, config)
    assert outcome.predicted.all()
    assert len(outcome.per_repeat) == 3 and len(outcome.folds) == 12
    assert all(fold.n_train + fold.n_test == 200 for fold in outcome.folds)
    assert set(np.round(outcome.share_correct * 3).astype(int)) <= {0, 1, 2, 3}
    assert {fold.classifier for fold in outcome.folds} <= {spec.name for spec in config.candidates()}
    repeat_accuracy = np.mean([score.accuracy for score in outcome.per_repeat])
    assert outcome.accuracy.value == pytest.approx(repeat_accuracy)
    assert outcome.accuracy.value == pytest.approx(outcome.share_correct.mean())


def test_crossfit_chooses_c_per_fold_from_the_grid_and_records_it(seed: int) -> None:
    outcome = run_probe(WORDS, _hypotheses(seed, 200), replace(FAST, seed=seed, c_grid=(0.01, 1.0)))
    grid = {spec.name for spec in ProbeConfig(c_grid=(0.01, 1.0)).candidates()}
    assert grid == {"l2_C0.01", "l2_C1", "l1_C0.01", "l1_C1"}
    folds = outcome.to_dict()["folds"]
    assert len(folds) == 10 and all(fold["C"] in (0.01, 1.0) and fold["penalty"] in ("l1", "l2") for fold in folds)
    assert all(len(fold["validation_scores"]) == 4 for fold in folds)
    assert all(fold["classifier"] == f"{fold['penalty']}_C{fold['C']:g}" for fold in folds)
    assert outcome.classifier_summary.startswith(outcome.final_classifier)
    assert outcome.settings["scale_sparse"] is True


def test_term_frequency_is_not_regularised_to_a_constant(seed: int) -> None:
    """At a fixed C of 1, rows of term frequencies (summing to 1) predict only the majority label on short texts;
    scaled and with C chosen on validation data, they find the planted word as presence does."""
    inputs = _long_texts_with_a_cue(seed)
    fixed = replace(FAST, seed=seed, c_grid=(), scale_sparse=False)
    tf, presence = get_feature_set("1-grams_tf"), get_feature_set("1-grams_presence")
    assert run_probe(tf, inputs, fixed).kappa.value < 0.1 < 0.3 < run_probe(presence, inputs, fixed).kappa.value
    fair = [run_probe(fs, inputs, replace(FAST, seed=seed)).kappa.value for fs in (tf, presence)]
    assert fair[0] > 0.3 and abs(fair[0] - fair[1]) < 0.05


def test_sparse_features_are_scaled_without_densifying() -> None:
    texts = ["a short text", "a much longer text with many more words in it", "text"]
    encoder = make_encoder(get_feature_set("1-grams_tf"), EncoderSettings({}, scale_sparse=True))
    X = encoder.fit_transform(TextCorpus(texts).frame(np.arange(3)))
    assert sp.issparse(X) and np.isclose(abs(X).max(axis=0).toarray(), 1.0).all()
    assert sp.issparse(encoder.transform(TextCorpus(["many more words"]).frame([0])))


def _long_texts_with_a_cue(seed: int, n_items: int = 200, length: int = 40) -> ItemInputs:
    """Texts of ``length`` random words; the word ``cue`` is in 70% of the class-1 texts and 10% of the others."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_items)
    vocabulary = np.array([f"w{j}" for j in range(300)])
    texts = []
    for label in y:
        words = list(rng.choice(vocabulary, length))
        if rng.random() < (0.7 if label else 0.1):
            words[rng.integers(length)] = "cue"
        texts.append(" ".join(words))
    ids = tuple(f"t{i}" for i in range(n_items))
    return ItemInputs(ids, tuple(texts), y, ("no", "yes"), np.full(n_items, 2))


def test_pacchiardi_protocol_keeps_the_papers_fixed_grid_unscaled(seed: int) -> None:
    config = replace(FAST, protocol="pacchiardi2024", seed=seed)
    assert [spec.name for spec in config.candidates()] == ["l2_C1", "l1_C1", "l1_C0.1"]
    outcome = run_probe(get_feature_set("1-grams_tf"), _hypotheses(seed, 150), config)
    assert outcome.folds[0].C in (1.0, 0.1) and outcome.folds[0].classifier in ("l2_C1", "l1_C1", "l1_C0.1")
    assert outcome.settings["scale_sparse"] is False


def test_crossfit_is_deterministic_and_parallel_folds_give_the_same_outcome(seed: int) -> None:
    inputs = _hypotheses(seed, 200)
    first = run_probe(WORDS, inputs, replace(FAST, seed=seed))
    again = run_probe(WORDS, inputs, replace(FAST, seed=seed, n_jobs=2))
    assert np.array_equal(first.prediction, again.prediction)
    assert first.kappa == again.kappa


def test_paper_statistic_is_the_chance_corrected_accuracy_and_baselines_are_stated(seed: int) -> None:
    outcome = run_probe(WORDS, _hypotheses(seed), replace(FAST, seed=seed))
    accuracy = outcome.accuracy.value
    assert outcome.chance_corrected_accuracy.value == pytest.approx((accuracy - 1 / 3) / (1 - 1 / 3))
    assert "Pacchiardi" in outcome.chance_corrected_accuracy.method
    assert outcome.kappa.baseline == 0.0
    share = np.bincount(outcome.gold).max() / len(outcome.gold)
    assert outcome.accuracy.baseline == pytest.approx(share) == outcome.majority_baseline.value
    assert outcome.chance_corrected_accuracy.baseline == pytest.approx((share - 1 / 3) / (1 - 1 / 3))


def test_pacchiardi_protocol_predicts_exactly_the_test_fifth_in_their_shuffle(seed: int) -> None:
    inputs = _hypotheses(seed, 250)
    outcome = run_probe(get_feature_set("1-grams_presence"), inputs, replace(FAST, protocol="pacchiardi2024"))
    # Their code: DataFrame.sample(frac=1, random_state=42), then one advancing RandomState(42) for train and val.
    frame = pd.DataFrame({"id": inputs.item_ids}).sample(frac=1, random_state=42).reset_index(drop=True)
    rng = np.random.RandomState(42)
    rest = frame.drop(frame.sample(frac=0.6, random_state=rng).index)
    test_ids = rest.drop(rest.sample(frac=0.5, random_state=rng).index)["id"]
    assert {inputs.item_ids[i] for i in np.flatnonzero(outcome.predicted)} == set(test_ids)
    frame = outcome.to_frame()
    assert frame["predicted"].sum() == 50
    not_predicted = frame[~frame["predicted"]]
    assert not_predicted["correct"].isna().all() and not_predicted["prediction"].isna().all()
    assert outcome.accuracy.n == 50 and len(outcome.folds) == 1
    assert outcome.folds[0].n_train == 150


def test_pacchiardi_protocol_is_deterministic_across_runs(seed: int) -> None:
    inputs = _hypotheses(seed, 250)
    config = replace(FAST, protocol="pacchiardi2024", seed=seed)
    first, second = (run_probe(get_feature_set("2-grams_tf"), inputs, config) for _ in range(2))
    assert np.array_equal(first.prediction, second.prediction)
    assert first.chance_corrected_accuracy == second.chance_corrected_accuracy
    assert first.settings["overrides"] == {"min_df": 2, "paper_compatible": True}
    assert first.settings["select_k"] == 20000


def test_outcome_serialises_to_json_and_a_tidy_frame(seed: int) -> None:
    outcome = run_probe(WORDS, _hypotheses(seed, 150), replace(FAST, seed=seed))
    data = json.loads(json.dumps(outcome.to_dict(items=True)))
    assert data["kappa"]["value"] == pytest.approx(outcome.kappa.value)
    assert set(data["kappa"]) == {"value", "ci", "pvalue", "baseline", "method", "n"}
    assert len(data["items"]) == 150 and data["settings"]["config"]["protocol"] == "crossfit"
    frame = outcome.to_frame()
    assert list(frame.columns) == [
        "item_id",
        "feature_set",
        "gold",
        "gold_class",
        "predicted",
        "prediction",
        "prediction_class",
        "correct",
        "share_correct",
        "gold_probability",
    ]
    assert frame["item_id"].tolist() == list(outcome.item_ids)
    assert "kappa=" in repr(outcome)


def test_configuration_errors_are_reported_before_fitting(seed: int) -> None:
    inputs = _hypotheses(seed, 60)
    with pytest.raises(ConfigError, match="Did you mean: l1_C1"):
        run_probe(WORDS, inputs, ProbeConfig(classifiers=("l1_c1",)))
    with pytest.raises(ConfigError, match="Unknown protocol 'paper'"):
        run_probe(WORDS, inputs, ProbeConfig(protocol="paper"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="is option-level; these inputs are item-level"):
        run_probe(get_feature_set("options"), inputs)
    table = OptionTable.from_benchmark(make_synthetic("control", 60, seed=seed))
    with pytest.raises(ConfigError, match="pacchiardi2024 protocol is item-level only"):
        run_probe(get_feature_set("options"), table, ProbeConfig(protocol="pacchiardi2024"))
    one_per_class = np.array([int(np.flatnonzero(inputs.y == label)[0]) for label in np.unique(inputs.y)])
    with pytest.raises(ConfigError, match="too few for cross-fitting: no class has more than 1 item"):
        run_probe(WORDS, inputs.subset(one_per_class))


def test_the_grid_is_compared_on_a_stratified_sample_of_a_large_training_fold() -> None:
    from pfungst.audit.probe_tasks import selection_items

    y = np.repeat([0, 1, 2], [600, 300, 100])
    assert selection_items(y, 1000, seed=0) is None  # no larger than the cap: every item
    chosen = selection_items(y, 200, seed=0)
    assert chosen is not None and chosen.size == 200 and np.all(np.diff(chosen) > 0)
    assert np.bincount(y[chosen]).tolist() == [120, 60, 20]
    assert not np.array_equal(chosen, selection_items(y, 200, seed=1))
