"""Arranged inspect samples and their figures, without inspect_ai: what the metadata records, and planted answers."""

from __future__ import annotations

import math

import pytest

from pfungst.data.item import Item
from pfungst.errors import ConfigError, DataError
from pfungst.integrations.inspect_figures import arrangement_figures
from pfungst.integrations.inspect_samples import arrange, item_from_sample, outcome_from_metadata

ITEM = Item(id="q1", text="2 + 2 =", options=("3", "4", "5", "6"), gold=1)


def test_each_arranged_sample_records_its_order_and_the_golds_original_index() -> None:
    samples = arrange(ITEM, ["cyclic", "answer-moved"], seed=0)
    assert len(samples) == 8 and len({sample.id for sample in samples}) == 8
    for sample in samples:
        record = sample.metadata["pfungst"]
        assert record["gold"] == 1 and record["item_id"] == "q1"
        assert [ITEM.options[index] for index in record["order"]] == list(sample.choices)
        assert sample.target == "ABCD"[record["order"].index(1)] == "ABCD"[record["gold_position"]]
    assert [s.metadata["pfungst"]["gold_position"] for s in samples if s.id.startswith("q1|answer-moved")] == [
        0,
        1,
        2,
        3,
    ]


def test_the_samples_own_metadata_is_kept_beside_pfungsts() -> None:
    (sample,) = arrange(ITEM, ["identity"], seed=0, metadata={"subject": "maths"})
    assert sample.metadata["subject"] == "maths" and sample.metadata["pfungst"]["variant"] == "identity"


def test_drawn_permutations_depend_on_the_seed_and_include_the_original_order() -> None:
    first = [s.metadata["pfungst"]["order"] for s in arrange(ITEM, ["permutations"], seed=1, permutations=3)]
    again = [s.metadata["pfungst"]["order"] for s in arrange(ITEM, ["permutations"], seed=1, permutations=3)]
    assert first == again and first[0] == [0, 1, 2, 3] and len(first) == 3


def test_a_perturbation_that_changes_labels_cannot_expand_an_inspect_task() -> None:
    with pytest.raises(ConfigError, match=r"'ids-shuffled' cannot expand an inspect task.*Available: identity"):
        arrange(ITEM, ["ids-shuffled"], seed=0)


@pytest.mark.parametrize(("target", "shown"), [("E", "'E'"), (["A", "B"], r"\['A', 'B'\]")])
def test_a_target_that_is_not_one_option_letter_is_refused(target: object, shown: str) -> None:
    with pytest.raises(DataError, match=rf"sample 'q9': target {shown} is not one option letter \(A-D\)"):
        item_from_sample("q9", "?", ["w", "x", "y", "z"], target)


def test_a_sample_without_pfungst_metadata_names_the_sample_and_the_fix() -> None:
    with pytest.raises(DataError, match=r"log\.eval: sample 7: no 'pfungst' sample metadata\. Expand the task"):
        outcome_from_metadata({"subject": "x"}, 0, where="log.eval: sample 7")


def _answers(chosen_position: int, perturbations: list[str]) -> list:
    return [
        outcome_from_metadata(sample.metadata, chosen_position, where="test")
        for sample in arrange(ITEM, perturbations, seed=0)
    ]


def test_always_answering_a_is_zheng_et_als_extreme_position_bias() -> None:
    figures = arrangement_figures(_answers(0, ["cyclic"]), n_bootstrap=0).values()
    assert figures["position_1"] == 1.0 and figures["position_4"] == 0.0
    assert figures["rstd"] == pytest.approx(43.30127, abs=1e-4)  # std of (1, 0, 0, 0) x 100
    assert (figures["accuracy"], figures["circular_accuracy_cyclic"], figures["consistency_cyclic"]) == (0.25, 0, 0)


def test_a_model_right_in_every_arrangement_has_no_position_bias() -> None:
    outcomes = [
        outcome_from_metadata(sample.metadata, sample.metadata["pfungst"]["gold_position"], where="test")
        for sample in arrange(ITEM, ["cyclic", "answer-moved"], seed=0)
    ]
    figures = arrangement_figures(outcomes, seed=0)
    values = figures.values()
    assert values["rstd"] == 0.0 and values["circular_accuracy_answer-moved"] == 1.0 and values["accuracy"] == 1.0
    frame = figures.to_frame()
    names = list(frame["name"])
    assert names[: len(values)] == list(values) and "accuracy answer-moved: slot 4" in names
    assert figures.circular["cyclic"].circular.ci is not None  # pfungst's own analysis carries intervals
    # named like every other frame's estimate (Estimate.columns): value, value_low, value_high
    assert list(frame.columns) == ["name", "value", "value_low", "value_high", "baseline", "n"]
    accuracy = frame.set_index("name").loc["accuracy"]
    assert accuracy["value_low"] <= accuracy["value"] == 1.0 <= accuracy["value_high"]


def test_an_item_cut_short_before_its_original_order_gets_nan_circular_figures_and_a_warning() -> None:
    outcomes = _answers(0, ["cyclic"])[1:]  # shift 0, the original order, missing
    figures = arrangement_figures(outcomes, n_bootstrap=0)
    assert math.isnan(figures.values()["circular_accuracy_cyclic"]) and figures.not_computed == ("cyclic",)
    assert "no identity arrangement" in figures.warnings[0]
    assert not math.isnan(figures.values()["rstd"])


def test_unanswered_samples_count_as_wrong_and_choose_nothing() -> None:
    outcome = outcome_from_metadata(arrange(ITEM, ["identity"], seed=0)[0].metadata, -1, where="test")
    assert (outcome.status, outcome.chosen, outcome.correct, outcome.chosen_label) == ("unparseable", -1, False, "")


def test_an_arranged_sample_is_not_arranged_again() -> None:
    (sample,) = arrange(ITEM, ["identity"], seed=0)
    with pytest.raises(ConfigError, match=r"item 'q1' is already arranged"):
        arrange(ITEM, ["cyclic"], seed=0, metadata=sample.metadata)
