"""The option layout is a type: what differs between shared labels and per-item choices is asked of it."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pfungst.audit.cues import find_cues
from pfungst.audit.result_reading import read_cues
from pfungst.data import Benchmark, Item, OptionKind
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError, ReaderError
from pfungst.schema import Fields


@pytest.mark.parametrize("kind", list(OptionKind))
def test_a_kind_is_written_by_its_value_and_read_back(kind: OptionKind) -> None:
    assert OptionKind.named(kind.value) is kind and OptionKind.named(kind) is kind
    benchmark = Benchmark("toy", (Item("a", "q", ("x", "y"), 0),), option_kind=kind.value, labels=("x", "y"))  # type: ignore[arg-type]
    assert benchmark.option_kind is kind
    assert json.loads(json.dumps(benchmark.to_dict()))["option_kind"] == kind.value
    assert f"option_kind='{kind.value}'" in repr(benchmark)


def test_an_unknown_kind_lists_the_kinds() -> None:
    with pytest.raises(
        ConfigError,
        match=r"^Unknown option kind 'per-item'\. Did you mean: per_item\? Available: per_item, shared_labels$",
    ):
        Benchmark("toy", (), option_kind="per-item")  # type: ignore[arg-type]


def test_shared_labels_name_labels_and_per_item_choices_name_positions() -> None:
    shared, per_item = OptionKind.SHARED_LABELS, OptionKind.PER_ITEM
    assert shared.class_names(("yes", "no"), 2) == ("yes", "no")
    assert per_item.class_names(("yes", "no"), 3) == ("A", "B", "C")
    assert shared.answer_name(("yes", "no"), 1) == "no" and per_item.answer_name(("yes", "no"), 1) == "B"
    assert per_item.answer_name((), 26) == "27"
    assert shared.labels_of(("yes", "no")) == ("yes", "no") and per_item.labels_of(("yes", "no")) == ()
    assert (shared.statistic, per_item.statistic) == ("kappa", "chance_corrected_accuracy")
    assert (shared.gold_unit, per_item.gold_unit) == ("label", "position")
    assert (shared.words, per_item.words) == ("shared labels", "options per item")


def test_chance_is_one_over_the_labels_or_the_mean_of_one_over_each_items_options() -> None:
    assert OptionKind.SHARED_LABELS.chance([2, 4], 3) == pytest.approx(1 / 3)
    assert OptionKind.PER_ITEM.chance([2, 4], 3) == pytest.approx((1 / 2 + 1 / 4) / 2)
    assert math.isnan(OptionKind.PER_ITEM.chance([], 3))


def test_null_golds_permute_shared_labels_and_redraw_positions_within_each_item(seed: int) -> None:
    golds, sizes = [0, 0, 0, 1, 2, 2] * 20, [3, 4, 5, 3, 4, 5] * 20
    shared = OptionKind.SHARED_LABELS.null_golds(golds, sizes, np.random.default_rng(seed))
    assert sorted(shared) == sorted(golds) and list(shared) != golds
    redrawn = OptionKind.PER_ITEM.null_golds(golds, sizes, np.random.default_rng(seed))
    assert all(0 <= gold < size for gold, size in zip(redrawn, sizes, strict=True))
    assert set(redrawn) == {0, 1, 2, 3, 4}


def test_gold_counts_are_by_label_or_by_position() -> None:
    shared = make_synthetic("cue-word", 30)
    assert set(shared.gold_counts) == set(shared.labels)
    per_item = make_synthetic("longest-option", 30)
    assert set(per_item.gold_counts) == {str(k) for k in range(max(per_item.option_counts))}


def test_a_cue_table_reads_its_kind_back_and_refuses_an_unknown_one() -> None:
    table = find_cues(make_synthetic("cue-word", 60))
    data = json.loads(json.dumps(table.to_dict()))
    assert data["kind"] == "shared_labels" and read_cues(Fields(data, "cues.json")).kind is OptionKind.SHARED_LABELS
    with pytest.raises(ReaderError, match=r"cues\.json.*kind.*expected one of 'shared_labels', 'per_item'"):
        read_cues(Fields({**data, "kind": "labels"}, "cues.json"))
