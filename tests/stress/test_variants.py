"""Arrangement variants (evaluate's Identity, each perturbation's own): every one through the Variant contract, then
each family's own promises."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import pytest

from pfungst.data import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.variants import Identity, Presentation, Variant
from pfungst.stress.perturbations.answer_moved import MovedAnswer
from pfungst.stress.perturbations.cyclic import Cyclic
from pfungst.stress.perturbations.ids_shuffled import ShuffledIds
from pfungst.stress.perturbations.permutations import Permutations
from pfungst.stress.perturbations.top2 import TopTwo

LABELS = ("A", "B", "C", "D", "E")
ITEMS = [
    Item("two", "Pick one.", ("yes", "no"), 1),
    Item("three", "Pick one.", ("red", "green", "blue"), 0),
    Item("four", "Pick one.", ("w", "x", "y", "z"), 2),
    Item("five", "Pick one.", ("p", "q", "r", "s", "t"), 4),
]

# How the contract builds each arrangement variant for an item; top2 needs the model's first and second choice.
BUILDERS: dict[str, Callable[[Item], Variant]] = {
    "identity": lambda item: Identity(),
    "cyclic": lambda item: Cyclic(),
    "permutations": lambda item: Permutations(sample=4),
    "answer-moved": lambda item: MovedAnswer(),
    "ids-shuffled": lambda item: ShuffledIds(),
    "top2": lambda item: TopTwo({item.id: (item.n_options - 1, 0)}),
}


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.id)
@pytest.mark.parametrize("name", list(BUILDERS))
def test_every_presentation_is_a_permutation_of_the_items_options(name: str, item: Item, seed: int) -> None:
    variant = BUILDERS[name](item)
    assert isinstance(variant, Variant) and variant.name == name
    labels = LABELS[: item.n_options]
    presentations = variant.present(item, labels, seed)
    assert all(isinstance(p, Presentation) for p in presentations)
    for presentation in presentations:
        arranged = presentation.arranged
        assert arranged.item is item
        assert sorted(arranged.order) == list(range(item.n_options))
        assert sorted(arranged.options) == sorted(item.options)
        assert presentation.labels == () or sorted(presentation.labels) == sorted(labels)
    assert len({p.variant for p in presentations}) == len(presentations)  # members are told apart by name
    assert variant.present(item, labels, seed) == presentations  # the same seed, the same presentations


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.id)
def test_identity_is_the_original_order_under_the_formats_labels(item: Item) -> None:
    (presentation,) = Identity().present(item, LABELS[: item.n_options], seed=0)
    assert (presentation.variant, presentation.labels) == ("identity", ())
    assert presentation.arranged.is_identity


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.id)
def test_cyclic_rotations_put_every_option_at_every_position_once(item: Item) -> None:
    n = item.n_options
    presentations = Cyclic().present(item, LABELS[:n], seed=0)
    orders = [p.arranged.order for p in presentations]
    assert [p.variant for p in presentations] == [f"shift {s}" for s in range(n)]
    assert len(set(orders)) == n and orders[0] == tuple(range(n))
    for position in range(n):
        assert sorted(order[position] for order in orders) == list(range(n))
    assert [p.arranged.gold for p in presentations] == [(item.gold - s) % n for s in range(n)]


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.id)
def test_answer_moved_puts_gold_at_each_slot_and_keeps_the_others_in_order(item: Item) -> None:
    presentations = MovedAnswer().present(item, LABELS[: item.n_options], seed=0)
    others = [index for index in range(item.n_options) if index != item.gold]
    assert [p.variant for p in presentations] == [f"slot {k}" for k in range(1, item.n_options + 1)]
    for slot, presentation in enumerate(presentations):
        order = presentation.arranged.order
        assert presentation.arranged.gold == slot
        assert [index for index in order if index != item.gold] == others


def test_answer_moved_on_a_four_option_item_by_hand() -> None:
    item = Item("q", "?", ("w", "x", "y", "z"), 2)
    orders = [p.arranged.order for p in MovedAnswer().present(item, LABELS[:4], seed=0)]
    assert orders == [(2, 0, 1, 3), (0, 2, 1, 3), (0, 1, 2, 3), (0, 1, 3, 2)]


def test_sampled_permutations_are_distinct_and_include_the_original(seed: int) -> None:
    item = ITEMS[3]  # 5 options: 120 orders
    presentations = Permutations(sample=7).present(item, LABELS, seed)
    orders = [p.arranged.order for p in presentations]
    assert len(orders) == 7 == len(set(orders))
    assert orders[0] == (0, 1, 2, 3, 4) and presentations[0].variant == "order 0"
    assert [p.variant for p in presentations] == [f"order {k}" for k in range(7)]


def test_sampled_permutations_depend_on_the_seed_and_the_item_id_only(seed: int) -> None:
    options = ("p", "q", "r", "s", "t")
    first, twin = Item("first", "?", options, 0), Item("twin", "?", options, 0)
    variant = Permutations(sample=6)

    def orders(item: Item, at: int) -> list[tuple[int, ...]]:
        return [p.arranged.order for p in variant.present(item, LABELS, at)]

    assert orders(first, seed) == orders(first, seed)
    assert orders(first, seed) != orders(first, seed + 1)
    assert orders(first, seed) != orders(twin, seed)  # the same content under another id is drawn afresh
    # No state is shared between items: asking about the twin first changes nothing for the first item.
    before = orders(first, seed)
    orders(twin, seed)
    assert orders(first, seed) == before


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.id)
def test_all_permutations_give_n_factorial_orders(item: Item) -> None:
    orders = [p.arranged.order for p in Permutations(None).present(item, LABELS[: item.n_options], seed=0)]
    assert len(orders) == math.factorial(item.n_options) == len(set(orders))
    assert orders[0] == tuple(range(item.n_options))


def test_a_sample_of_at_least_n_factorial_gives_every_order_once() -> None:
    orders = [p.arranged.order for p in Permutations(sample=10).present(ITEMS[1], LABELS[:3], seed=0)]
    assert sorted(orders) == list(itertools.permutations(range(3)))


@pytest.mark.parametrize("sample", [0, -2, 1.5, True, "6"])
def test_permutations_reject_a_sample_that_is_not_a_positive_count(sample: object) -> None:
    with pytest.raises(ConfigError, match=r"permutations: sample must be a positive number of orders or None"):
        Permutations(sample=sample)  # type: ignore[arg-type]


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.id)
def test_shuffled_ids_keep_the_order_and_show_other_labels(item: Item, seed: int) -> None:
    labels = LABELS[: item.n_options]
    (presentation,) = ShuffledIds().present(item, labels, seed)
    assert presentation.variant == "ids shuffled" and presentation.arranged.is_identity
    assert sorted(presentation.labels) == sorted(labels)
    assert presentation.labels != labels


def test_shuffled_ids_vary_with_the_seed() -> None:
    item = ITEMS[3]
    shown = {ShuffledIds().present(item, LABELS, at)[0].labels for at in range(10)}
    assert len(shown) > 1


def test_shuffled_ids_of_identical_labels_return_instead_of_looping() -> None:
    (presentation,) = ShuffledIds().present(ITEMS[0], ("A", "A"), seed=0)
    assert presentation.labels == ("A", "A")


def test_top2_places_the_favourites_adjacent_and_at_the_ends() -> None:
    item = Item("q", "?", ("w", "x", "y", "z"), 0)
    adjacent, ends = TopTwo({"q": (2, 0)}).present(item, LABELS[:4], seed=0)
    assert (adjacent.variant, adjacent.arranged.order) == ("adjacent", (2, 0, 1, 3))
    assert (ends.variant, ends.arranged.order) == ("ends", (2, 1, 3, 0))


def test_top2_gives_nothing_for_a_two_option_item() -> None:
    assert TopTwo({"two": (1, 0)}).present(ITEMS[0], LABELS[:2], seed=0) == ()


def test_top2_without_the_models_choices_says_to_run_a_plain_pass() -> None:
    with pytest.raises(ConfigError, match=r"top2: no first and second choice known for item 'four'; run a plain pass"):
        TopTwo({}).present(ITEMS[2], LABELS[:4], seed=0)
