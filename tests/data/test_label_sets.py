"""Finding a fixed label set written as per-item options, and reading it as shared labels."""

from __future__ import annotations

from pfungst.data import Benchmark, Item
from pfungst.data.label_sets import detect_label_set


def _benchmark(options: list[tuple[str, ...]], golds: list[int]) -> Benchmark:
    items = [
        Item(f"q{i}", f"question {i}", opts, gold) for i, (opts, gold) in enumerate(zip(options, golds, strict=True))
    ]
    return Benchmark("toy", tuple(items))


def test_the_same_options_in_the_same_order_become_shared_labels() -> None:
    benchmark = _benchmark([("Yes", "No")] * 4, [0, 1, 1, 1])
    view = detect_label_set(benchmark)
    assert view.benchmark.option_kind == "shared_labels"
    assert view.benchmark.labels == ("Yes", "No")
    assert view.benchmark.gold_counts == {"Yes": 1, "No": 3}
    assert [item.answer for item in view.benchmark] == [item.answer for item in benchmark]
    assert view.detection.detected and view.detection.items_reordered == 0
    assert view.benchmark.provenance.steps[-1].startswith("fixed label set detected: every item offers the same 2")


def test_the_same_options_in_varying_order_map_gold_to_the_label_string() -> None:
    benchmark = _benchmark([("No", "Yes"), ("Yes", "No"), ("No", "Yes"), ("Yes", "No")], [1, 0, 0, 1])
    view = detect_label_set(benchmark)
    assert view.benchmark.labels == ("No", "Yes")  # the first item's order
    assert [item.answer for item in view.benchmark] == ["Yes", "Yes", "No", "No"]
    assert [item.gold for item in view.benchmark] == [1, 1, 0, 0]
    assert view.detection.items_reordered == 2
    assert "in varying order (2 of 4 items differ from the first)" in view.detection.describe()


def test_items_with_their_own_options_stay_per_item() -> None:
    benchmark = _benchmark([("Yes", "No"), ("Yes", "No"), ("Yes", "Maybe")], [0, 1, 0])
    view = detect_label_set(benchmark)
    assert view.benchmark is benchmark
    assert not view.detection.detected
    assert view.detection.reason == "item 'q2' offers other options than item 'q0'"


def test_a_superset_of_the_labels_is_not_the_same_label_set() -> None:
    view = detect_label_set(_benchmark([("a", "b"), ("a", "b", "c")], [0, 2]))
    assert view.benchmark.option_kind == "per_item"
    assert "offers other options" in view.detection.reason


def test_an_item_that_repeats_an_option_is_not_a_label_set() -> None:
    view = detect_label_set(_benchmark([("x", "x", "y"), ("x", "x", "y")], [0, 2]))
    assert view.benchmark.option_kind == "per_item"
    assert view.detection.reason == "item 'q0' repeats an option"


def test_a_single_item_is_left_as_it_is() -> None:
    view = detect_label_set(_benchmark([("Yes", "No")], [0]))
    assert view.benchmark.option_kind == "per_item"
    assert not view.detection.detected


def test_the_search_can_be_turned_off() -> None:
    benchmark = _benchmark([("True", "False")] * 3, [0, 1, 0])
    view = detect_label_set(benchmark, enabled=False)
    assert view.benchmark is benchmark
    assert view.detection.to_dict() == {
        "enabled": False,
        "detected": False,
        "labels": [],
        "n_items": 3,
        "items_reordered": 0,
        "reason": "the search was turned off",
    }


def test_a_shared_label_benchmark_is_left_as_it_is() -> None:
    items = tuple(Item(str(i), f"q{i}", ("yes", "no"), i % 2) for i in range(4))
    benchmark = Benchmark("shared", items, option_kind="shared_labels", labels=("yes", "no"))
    view = detect_label_set(benchmark)
    assert view.benchmark is benchmark
    assert view.detection.reason == "the benchmark already has a shared label set"
