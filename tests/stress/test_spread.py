"""FormatSpread: accuracy per format on paired items, and the budgeted Thompson-sampling search."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.stats import wilson_interval
from pfungst.stress.correctness_table import correctness_table
from pfungst.stress.perturbations.formats.metric import format_spread
from pfungst.stress.perturbations.spread_search.metric import search_spread


def _answer(fmt: str, item: int, right: bool) -> Outcome:
    chosen = 0 if right else 1
    return Outcome(f"q{item}", "formats", fmt, "letter", fmt, (0, 1), ("A", "B"), 0, chosen, chosen, "ok", (0.0, -1.0))


def _outcomes(correct_counts: dict[str, int], n_items: int) -> list[Outcome]:
    return [_answer(fmt, i, i < right) for fmt, right in correct_counts.items() for i in range(n_items)]


def test_best_worst_and_spread_of_three_formats(seed: int) -> None:
    result = format_spread(_outcomes({"plain": 5, "fancy": 9, "terse": 2}, 10), seed=seed)
    assert [entry.format for entry in result.formats] == ["fancy", "plain", "terse"]
    assert (result.best, result.worst, result.n_formats) == ("fancy", "terse", 3)
    assert result.spread.value == pytest.approx(0.7)
    assert result.spread.ci is not None and result.spread.ci.low <= 0.7 <= result.spread.ci.high
    assert result.formats[0].accuracy.ci == wilson_interval(9, 10)
    assert result.formats[0].n == 10
    assert json.loads(json.dumps(result.to_dict()))["best"] == "fancy"


def test_formats_that_agree_on_every_item_have_a_zero_spread_interval(seed: int) -> None:
    # paired resampling: both formats are right on the same items in every resample, so the spread is always 0
    outcomes = _outcomes({"one": 6, "two": 6}, 10)
    result = format_spread(outcomes, seed=seed)
    assert result.spread.value == 0.0
    assert result.spread.ci is not None and (result.spread.ci.low, result.spread.ci.high) == (0.0, 0.0)


def test_correctness_table_pairs_items_across_formats() -> None:
    table = correctness_table(_outcomes({"a": 1, "b": 2}, 3))
    assert table.names == ("a", "b") and table.item_ids == ("q0", "q1", "q2")
    assert table.correct.tolist() == [[True, False, False], [True, True, False]]


def test_spread_needs_two_formats_on_the_same_items() -> None:
    with pytest.raises(ConfigError, match=r"found 1 distinct format value\(s\)"):
        format_spread(_outcomes({"only": 3}, 5), seed=0)
    outcomes = _outcomes({"a": 3, "b": 3}, 5)[:-1]
    with pytest.raises(ConfigError, match=r"format 'b' has no outcome for 1 item\(s\) others answered \(first: 'q4'\)"):
        format_spread(outcomes, seed=0)
    with pytest.raises(ConfigError, match=r"item 'q0' occurs twice for format 'a'"):
        format_spread(outcomes + outcomes[:1], seed=0)
    with pytest.raises(ConfigError, match=r"cannot group outcomes by 'gold'"):
        correctness_table(outcomes, by="gold")


class _Oracle:
    """A fake model whose formats have known accuracies; records what it was asked."""

    def __init__(self, accuracies: dict[str, float], n_items: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.correct = {fmt: rng.random(n_items) < accuracy for fmt, accuracy in accuracies.items()}
        self.asked: dict[str, list[int]] = {fmt: [] for fmt in accuracies}

    def __call__(self, fmt: str, items: Sequence[int]) -> list[bool]:
        self.asked[fmt] += list(items)
        return [bool(self.correct[fmt][item]) for item in items]


ACCURACIES = {"f0": 0.5, "f1": 0.9, "f2": 0.5, "f3": 0.1}


def test_search_finds_the_best_and_the_worst_format_within_budget(seed: int) -> None:
    oracle = _Oracle(ACCURACIES, 200, seed)
    result = search_spread(list(ACCURACIES), 200, oracle, budget=400, batch=10, seed=seed)
    assert (result.best.format, result.worst.format) == ("f1", "f3")
    assert result.evaluations <= 400
    assert result.spread.value == pytest.approx(result.best.accuracy.value - result.worst.accuracy.value)
    assert result.spread.value > 0.5
    for fmt, asked in oracle.asked.items():
        assert len(asked) == len(set(asked)) == result.pulls[fmt][1]  # no item asked twice in one format
        assert result.pulls[fmt][0] == int(oracle.correct[fmt][asked].sum())
    assert all(size <= 10 for _, size, _ in result.history)


def test_search_interval_is_the_wilson_bounds_difference(seed: int) -> None:
    result = search_spread(list(ACCURACIES), 200, _Oracle(ACCURACIES, 200, seed), budget=400, seed=seed)
    best, worst = result.best.accuracy.ci, result.worst.accuracy.ci
    assert best is not None and worst is not None and result.spread.ci is not None
    assert (result.spread.ci.low, result.spread.ci.high) == (best.low - worst.high, best.high - worst.low)


def test_the_same_seed_gives_the_same_pulls(seed: int) -> None:
    first = search_spread(list(ACCURACIES), 200, _Oracle(ACCURACIES, 200, 1), budget=200, seed=seed)
    second = search_spread(list(ACCURACIES), 200, _Oracle(ACCURACIES, 200, 1), budget=200, seed=seed)
    assert first.pulls == second.pulls and first.history == second.history
    assert json.loads(json.dumps(first.to_dict()))["seed"] == seed


def test_a_format_that_has_seen_every_item_is_not_asked_again() -> None:
    oracle = _Oracle({"a": 0.8, "b": 0.3}, 10, 0)
    result = search_spread(["a", "b"], 10, oracle, budget=100, batch=4, seed=0)
    assert result.evaluations == 20
    assert sorted(oracle.asked["a"]) == sorted(oracle.asked["b"]) == list(range(10))
    assert {result.best.format, result.worst.format} == {"a", "b"}


def test_search_rejects_a_small_budget_or_a_single_format() -> None:
    oracle = _Oracle({"a": 0.5, "b": 0.5}, 50, 0)
    with pytest.raises(ConfigError, match=r"budget 19 is below 2 \* batch = 20"):
        search_spread(["a", "b"], 50, oracle, budget=19, batch=10, seed=0)
    with pytest.raises(ConfigError, match=r"at least 2 distinct formats"):
        search_spread(["a"], 50, oracle, budget=100, seed=0)
    with pytest.raises(ConfigError, match=r"returned 0 answers for 10 items"):
        search_spread(["a", "b"], 50, lambda fmt, items: [], budget=100, seed=0)
