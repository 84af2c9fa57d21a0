from __future__ import annotations

import numpy as np
import pytest

from pfungst.data.summary import summarize
from pfungst.data.synthetic import SYNTHETIC, make_synthetic
from pfungst.errors import ConfigError


def _pick_longest_accuracy(benchmark, seed: int) -> float:
    rng = np.random.default_rng(seed)
    right = 0
    for item in benchmark:
        lengths = [len(option) for option in item.options]
        longest = [i for i, length in enumerate(lengths) if length == max(lengths)]
        right += int(rng.choice(longest)) == item.gold
    return right / len(benchmark)


def test_longest_option_toy_gives_pick_longest_a_chance_corrected_accuracy_near_037(seed: int) -> None:
    benchmark = make_synthetic("longest-option", n_items=4000, seed=seed)
    artifacts = [item.metadata["artifact"] for item in benchmark]
    assert artifacts.count("longest") / 4000 == pytest.approx(0.45, abs=0.03)
    assert artifacts.count("tied") / 4000 == pytest.approx(0.15, abs=0.02)
    accuracy = _pick_longest_accuracy(benchmark, seed)
    assert (accuracy - 0.25) / 0.75 == pytest.approx(0.37, abs=0.03)


def test_longest_option_gold_positions_carry_no_signal(seed: int) -> None:
    summary = summarize(make_synthetic("longest-option", n_items=2000, seed=seed))
    assert summary.gold_uniformity.pvalue > 0.001


def test_cue_word_is_planted_in_contradiction_hypotheses(seed: int) -> None:
    benchmark = make_synthetic("cue-word", n_items=3000, seed=seed)
    assert benchmark.option_kind == "shared_labels"
    by_label = {label: [i for i in benchmark if i.answer == label] for label in benchmark.labels}
    rate = {
        label: np.mean(["never" in i.fields["hypothesis"].split() for i in items]) for label, items in by_label.items()
    }
    assert rate["contradiction"] == pytest.approx(0.70, abs=0.04)
    assert rate["entailment"] == pytest.approx(0.05, abs=0.02)
    assert all("never" not in i.fields["premise"].split() for i in benchmark)


def test_gold_position_skew_is_detected_and_control_is_not(seed: int) -> None:
    skewed = summarize(make_synthetic("gold-position", n_items=400, seed=seed))
    control = summarize(make_synthetic("control", n_items=400, seed=seed))
    assert skewed.gold_uniformity.pvalue < 1e-6
    assert skewed.majority.ci is not None and skewed.majority.ci.low > 0.55
    assert control.majority.ci is not None and control.majority.ci.low < 0.30


def test_same_seed_same_items_and_different_seed_different_items() -> None:
    for name in SYNTHETIC:
        assert make_synthetic(name, 20, seed=3).items == make_synthetic(name, 20, seed=3).items
        assert make_synthetic(name, 20, seed=3).items != make_synthetic(name, 20, seed=4).items


def test_unknown_synthetic_name_suggests_the_close_one() -> None:
    with pytest.raises(ConfigError, match=r"Did you mean: cue-word\?"):
        make_synthetic("cue-wrd")
