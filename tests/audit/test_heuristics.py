"""Zero-training baselines: length, position, majority label and HANS heuristics, with their estimates."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pfungst import load
from pfungst.audit.heuristics import (
    HeuristicConfig,
    gold_position,
    hans_heuristics,
    longest_option,
    majority_label,
    run_heuristics,
    shortest_option,
)
from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError

LABELS = ("entailment", "neutral", "contradiction")
FAST = HeuristicConfig(n_resamples=200, n_permutations=200)


def test_longest_option_recovers_the_planted_chance_corrected_accuracy(seed: int) -> None:
    result = longest_option(make_synthetic("longest-option", 4000, seed=seed), config=FAST)
    assert result.chance_corrected_accuracy.value == pytest.approx(0.37, abs=0.03)
    assert result.accuracy.baseline == pytest.approx(0.25)
    assert result.kappa.ci is not None and result.kappa.ci.low > 0.2 and result.kappa.pvalue < 0.01
    assert result.tie_rate == pytest.approx(0.15 + 0.40 * 0.1, abs=0.1)  # planted ties plus chance ones


def test_ties_are_broken_at_random_with_the_seed() -> None:
    items = tuple(Item(str(i), "q", ("aa", "bb", "c"), 0) for i in range(400))
    bench = Benchmark("ties", items)
    first = longest_option(bench, config=HeuristicConfig(seed=1, n_resamples=10, n_permutations=10))
    again = longest_option(bench, config=HeuristicConfig(seed=1, n_resamples=10, n_permutations=10))
    assert first.tie_rate == 1.0
    assert first.predictions == again.predictions
    assert set(first.predictions) == {0, 1} and 0.4 < np.mean(first.predictions) < 0.6


def test_shortest_option_picks_the_shortest() -> None:
    bench = Benchmark("short", (Item("a", "q", ("long one", "s", "medium"), 1),))
    result = shortest_option(bench, config=HeuristicConfig(n_resamples=10, n_permutations=10))
    assert result.predictions == (1,) and result.accuracy.value == 1.0 and result.tie_rate == 0.0


def test_gold_position_finds_slot_a_and_rejects_uniformity() -> None:
    result = gold_position(make_synthetic("gold-position", 800), config=FAST)
    assert set(result.predictions) == {0}
    assert result.accuracy.value == pytest.approx(0.66, abs=0.05)
    assert result.uniformity.pvalue < 1e-20
    assert result.position_counts[0] > 2 * max(result.position_counts[1:])


def test_uniformity_expectation_allows_for_mixed_option_counts() -> None:
    items = [Item(f"a{i}", "q", ("x", "y"), i % 2) for i in range(40)]
    items += [Item(f"b{i}", "q", ("x", "y", "z", "w"), i % 4) for i in range(40)]
    result = gold_position(Benchmark("mixed", tuple(items)), config=FAST)
    assert result.expected_counts == pytest.approx((30.0, 30.0, 10.0, 10.0))
    assert result.uniformity.pvalue == pytest.approx(1.0)


def test_gold_position_is_cross_fitted_not_learned_in_sample() -> None:
    # Gold is 0 for ten items and 1 for ten. In-sample, "the most frequent position" is right on half of them;
    # leave-one-out, each held-out item's position is the minority among the other nineteen, so it is never right.
    items = tuple(Item(str(i), "q", ("x", "y"), 0 if i < 10 else 1) for i in range(20))
    config = HeuristicConfig(n_splits=20, n_resamples=10, n_permutations=10)
    result = gold_position(Benchmark("even", items), config=config)
    assert result.accuracy.value == 0.0


def test_truthfulqa_position_heuristic_is_perfect(shared_data: Path) -> None:
    bench = load(shared_data / "truthfulqa" / "mc_task.json")
    result = gold_position(bench, config=FAST)
    assert result.accuracy.value == 1.0
    assert result.position_counts[0] == len(bench) and result.uniformity.pvalue < 1e-100


def test_arct_longer_warrant_is_right_more_often_on_train(shared_data: Path) -> None:
    train = load(shared_data / "arct" / "train.tsv")
    longest, shortest = longest_option(train, config=FAST), shortest_option(train, config=FAST)
    assert longest.accuracy.value == pytest.approx(0.582, abs=0.01)
    assert longest.accuracy.value + shortest.accuracy.value == pytest.approx(1.0, abs=0.07)  # ties differ
    assert longest.kappa.ci is not None and longest.kappa.ci.low > 0.05


def test_majority_label_has_kappa_zero_and_beats_nothing() -> None:
    bench = make_synthetic("cue-word", 600)
    result = majority_label(bench, config=FAST)
    assert abs(result.kappa.value) < 0.05
    assert result.accuracy.value == pytest.approx(result.accuracy.baseline, abs=0.05)
    with pytest.raises(ConfigError, match="needs a shared label set"):
        majority_label(make_synthetic("control", 20))
    with pytest.raises(ConfigError, match="needs per-item options"):
        longest_option(bench)


def test_hans_overlap_and_subsequence_counts_per_label() -> None:
    rows = [
        ("the cat sat on the mat", "the cat sat", 0),
        ("the cat sat on the mat", "the mat sat", 0),
        ("a dog ran", "a dog ran fast", 1),
        ("a dog ran", "dog a", 2),
    ]
    items = tuple(
        Item(str(i), f"{p} / {h}", LABELS, g, fields={"premise": p, "hypothesis": h})
        for i, (p, h, g) in enumerate(rows)
    )
    counts, predictors = hans_heuristics(Benchmark("nli", items, "shared_labels", LABELS), config=FAST)
    table = {(c.heuristic, c.label): (c.holds, c.total) for c in counts}
    assert table[("lexical_overlap", "entailment")] == (2, 2)
    assert table[("lexical_overlap", "contradiction")] == (1, 1)
    assert table[("subsequence", "entailment")] == (1, 2)
    assert table[("subsequence", "contradiction")] == (0, 1)
    overlap = predictors[0]
    assert overlap.coverage == 0.75 and overlap.accuracy.value == pytest.approx(2 / 3)
    assert overlap.predictions == (0, 0, -1, 0)


def test_mnli_overlap_holds_mostly_for_entailment(shared_data: Path) -> None:
    report = run_heuristics(load(shared_data / "mnli" / "dev_matched.tsv"), config=FAST)
    counts = {(c.heuristic, c.label): c.holds for c in report.hans_counts}
    assert counts[("lexical_overlap", "entailment")] == 214
    assert counts[("lexical_overlap", "neutral")] == 2 and counts[("lexical_overlap", "contradiction")] == 25
    overlap = next(r for r in report.results if r.name == "hans_lexical_overlap")
    assert overlap.accuracy.ci is not None and overlap.accuracy.ci.low > overlap.accuracy.baseline


def test_report_lists_applicable_heuristics_and_serialises() -> None:
    report = run_heuristics(make_synthetic("gold-position", 200), config=FAST)
    frame = report.to_frame()
    assert list(frame["heuristic"]) == ["longest_option", "shortest_option", "gold_position"]
    data = json.loads(json.dumps(report.to_dict()))
    assert data["results"][2]["uniformity"]["pvalue"] < 0.01
    per_item = report.results[0].to_frame()
    assert len(per_item) == 200 and per_item["correct"].mean() == pytest.approx(report.results[0].accuracy.value)
