"""Mitigation: counterbalanced gold positions and AFLite filtering of predictable items."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import sparse

from pfungst.audit.heuristics import HeuristicConfig, gold_position, longest_option
from pfungst.audit.mitigate import (
    ORIGINAL_POSITIONS_KEY,
    ROTATION_KEY,
    AFLiteConfig,
    counterbalance,
    featurize_ngrams,
    filter_predictable,
)
from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError, DataError

FAST = HeuristicConfig(n_resamples=10, n_permutations=10)


def test_counterbalance_makes_gold_positions_uniform_and_keeps_every_answer(seed: int) -> None:
    source = make_synthetic("gold-position", 600, seed=seed)
    balanced = counterbalance(source, seed=seed)
    assert gold_position(source, config=FAST).uniformity.pvalue < 1e-20
    assert gold_position(balanced, config=FAST).uniformity.pvalue > 0.99
    assert balanced.gold_counts == {"0": 150, "1": 150, "2": 150, "3": 150}
    for before, after in zip(source, balanced, strict=True):
        assert sorted(after.options) == sorted(before.options)
        assert after.answer == before.answer and after.id == before.id
        original = after.metadata[ORIGINAL_POSITIONS_KEY]
        assert [before.options[i] for i in original] == list(after.options)
        shift, size = after.metadata[ROTATION_KEY], before.n_options
        assert after.options == tuple(before.options[(p - shift) % size] for p in range(size))  # cyclic


def test_counterbalance_balances_each_option_count_and_records_provenance() -> None:
    items = [Item(f"a{i}", "q", ("x", "y", "z"), 0) for i in range(7)]
    items += [Item(f"b{i}", "q", ("x", "y"), 1) for i in range(6)]
    balanced = counterbalance(Benchmark("mixed", tuple(items)), seed=3)
    three = np.bincount([item.gold for item in balanced if item.n_options == 3], minlength=3)
    two = np.bincount([item.gold for item in balanced if item.n_options == 2], minlength=2)
    assert sorted(three) == [2, 2, 3] and list(two) == [3, 3]
    assert "counterbalance (seed=3)" in balanced.provenance.steps[-1]
    assert counterbalance(Benchmark("mixed", tuple(items)), seed=3) == balanced


def test_counterbalancing_twice_still_maps_back_to_the_source() -> None:
    source = make_synthetic("control", 40)
    twice = counterbalance(counterbalance(source, seed=1), seed=2)
    for before, after in zip(source, twice, strict=True):
        assert [before.options[i] for i in after.metadata[ORIGINAL_POSITIONS_KEY]] == list(after.options)


def test_counterbalance_refuses_shared_labels() -> None:
    with pytest.raises(ConfigError, match="needs per-item options"):
        counterbalance(make_synthetic("cue-word", 10))


def _never_share(bench: Benchmark) -> float:
    contradiction = [item for item in bench if item.answer == "contradiction"]
    return float(np.mean(["never" in item.fields["hypothesis"].split() for item in contradiction]))


def test_aflite_removes_mostly_cued_items_and_the_cue_fades(seed: int) -> None:
    source = make_synthetic("cue-word", 600, seed=seed)
    config = AFLiteConfig(ensemble_size=16, cutoff=20, seed=seed)
    result = filter_predictable(source, config=config)
    removed = [item for item in source if item.id in set(result.removed)]
    cued_share_removed = np.mean([item.metadata["artifact"] == "never" for item in removed])
    cued_share_source = np.mean([item.metadata["artifact"] == "never" for item in source])
    assert _never_share(source) > 0.6 and _never_share(result.benchmark) < 0.45
    assert cued_share_removed > 0.5 and cued_share_removed > 2 * cued_share_source
    assert len(result.benchmark) + len(result.removed) == len(source)
    frame = result.to_frame()
    assert frame["removed"].sum() == len(result.removed)
    assert frame.loc[frame["removed"], "predictability"].min() > config.threshold
    json.dumps(result.to_dict())


def test_aflite_stops_at_the_target_size_and_is_seeded() -> None:
    source = make_synthetic("cue-word", 300)
    config = AFLiteConfig(ensemble_size=8, cutoff=40, threshold=0.0, target_size=250, seed=5)
    result = filter_predictable(source, config=config)
    assert len(result.benchmark) == 250 and result.stop_reason == "reached target_size=250"
    assert filter_predictable(source, config=config).removed == result.removed
    assert "AFLite filter (seed=5" in result.benchmark.provenance.steps[-1]


def test_default_features_for_per_item_choices_are_one_block_per_position() -> None:
    bench = Benchmark("p", (Item("a", "q", ("red apple", "blue sky"), 1), Item("b", "q", ("red", "sky", "x y"), 2)))
    features, target = featurize_ngrams(bench)
    # vocabulary {apple, blue, red, sky} per position ("x", "y" are dropped), then longest, shortest, relative length
    assert features.shape == (2, 3 * 4 + 3 * 3)
    assert list(target) == [1, 2]
    dense = features.toarray()
    assert dense[0, 12:18].tolist() == [1, 0, 0, 0, 1, 0]  # two words each: characters break the tie
    assert dense[1, 12:18].tolist() == [0, 0, 1, 1, 1, 0]  # "x y" the longest; "red" and "sky" tie for shortest


def test_aflite_removes_the_items_a_length_cue_answers() -> None:
    source = make_synthetic("longest-option", 400)
    before = longest_option(source).chance_corrected_accuracy.value
    filtered = filter_predictable(source, config=AFLiteConfig(seed=0))
    after = longest_option(filtered.benchmark).chance_corrected_accuracy.value
    assert before > 0.3 and after < before - 0.1


def test_aflite_accepts_any_featurizer_and_checks_its_shape() -> None:
    # Half the items leak their answer through the one feature; the other half show 0 there.
    source = Benchmark("leak", tuple(Item(str(i), "q", ("x", "y"), i % 2) for i in range(200)))

    def leak_first_half(bench: Benchmark) -> tuple[sparse.csr_matrix, np.ndarray]:
        gold = np.array([item.gold for item in bench])
        signal = np.where(np.arange(len(bench)) < 100, 2.0 * gold - 1.0, 0.0)
        return sparse.csr_matrix(signal[:, None]), gold

    result = filter_predictable(source, leak_first_half, config=AFLiteConfig(ensemble_size=32, cutoff=25))
    removed = sorted(int(item_id) for item_id in result.removed)
    assert len(removed) == 100 and max(removed) < 100
    with pytest.raises(DataError, match="one row and one target per item"):
        filter_predictable(source, lambda bench: (np.zeros((3, 1)), np.zeros(3)))
