from __future__ import annotations

import dataclasses
import pickle

import pytest

from pfungst.data import Benchmark, Item


def _benchmark() -> Benchmark:
    items = [
        Item("a", "Capital of France?", ["Paris", "Rome"], 0, {"passage": "p"}, {"subject": "geo"}),
        Item("b", "2+2?", ["3", "4"], 1),
        Item("c", "Capital of France?", ["Rome", "Paris"], 0),
    ]
    return Benchmark("toy", items)


def test_items_and_benchmarks_are_immutable() -> None:
    benchmark = _benchmark()
    with pytest.raises(dataclasses.FrozenInstanceError):
        benchmark[0].gold = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        benchmark[0].fields["passage"] = "changed"  # type: ignore[index]
    assert isinstance(benchmark.items, tuple) and isinstance(benchmark[0].options, tuple)


def test_slicing_and_filtering_return_benchmarks_and_record_the_step() -> None:
    benchmark = _benchmark()
    head = benchmark[:2]
    assert isinstance(head, Benchmark) and [i.id for i in head] == ["a", "b"]
    france = benchmark.filter(lambda item: "France" in item.text, "France only")
    assert [i.id for i in france] == ["a", "c"]
    assert france.provenance.steps == ("France only: kept 2 of 3",)
    assert benchmark.select(["c"])[0].id == "c"


def test_deduplicate_keeps_the_first_and_says_how_many_it_dropped() -> None:
    deduplicated = _benchmark().deduplicate()
    assert [i.id for i in deduplicated] == ["a", "b"]
    assert deduplicated.provenance.steps[-1] == "deduplicate texts: dropped 1"


def test_to_frame_has_one_row_per_item_with_fields_and_metadata() -> None:
    frame = _benchmark().to_frame()
    assert list(frame["id"]) == ["a", "b", "c"]
    assert list(frame["answer"]) == ["Paris", "4", "Rome"]
    assert frame.loc[0, "field.passage"] == "p" and frame.loc[0, "meta.subject"] == "geo"


def test_items_pickle_and_hash_for_parallel_workers() -> None:
    benchmark = _benchmark()
    assert pickle.loads(pickle.dumps(benchmark)) == benchmark
    assert len({*benchmark.items, *benchmark.items}) == 3


def test_gold_counts_by_position_cover_every_slot() -> None:
    assert _benchmark().gold_counts == {"0": 2, "1": 1}
