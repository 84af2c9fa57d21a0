"""Arranged items: options in a given order, mapped back to the original indices."""

from __future__ import annotations

import pytest

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem

ITEM = Item(id="q1", text="Capital of France?", options=("Rome", "Paris", "Oslo", "Bern"), gold=1)


def test_arranged_options_follow_the_order() -> None:
    arranged = ArrangedItem(ITEM, (3, 1, 0, 2))
    assert arranged.options == ("Bern", "Paris", "Rome", "Oslo")


def test_gold_is_the_arranged_position_of_the_gold_option() -> None:
    assert ArrangedItem(ITEM, (3, 2, 0, 1)).gold == 3
    assert ArrangedItem(ITEM, (1, 0, 2, 3)).gold == 0


def test_original_and_position_are_inverse_maps() -> None:
    arranged = ArrangedItem(ITEM, (2, 0, 3, 1))
    assert [arranged.original(p) for p in range(4)] == [2, 0, 3, 1]
    assert [arranged.position(arranged.original(p)) for p in range(4)] == [0, 1, 2, 3]
    assert arranged.options[arranged.position(ITEM.gold)] == "Paris"


def test_values_map_back_to_original_order() -> None:
    arranged = ArrangedItem(ITEM, (2, 0, 3, 1))
    assert arranged.to_original_order(("Oslo", "Rome", "Bern", "Paris")) == ITEM.options


def test_identity_keeps_the_original_order() -> None:
    arranged = ArrangedItem.identity(ITEM)
    assert arranged.options == ITEM.options
    assert arranged.gold == ITEM.gold
    assert arranged.is_identity
    assert not ArrangedItem(ITEM, (1, 0, 2, 3)).is_identity


def test_order_from_a_list_is_stored_as_a_tuple() -> None:
    arranged = ArrangedItem(ITEM, [3, 2, 1, 0])  # type: ignore[arg-type]
    assert arranged.order == (3, 2, 1, 0)
    assert hash(arranged) == hash(ArrangedItem(ITEM, (3, 2, 1, 0)))


@pytest.mark.parametrize("order", [(0, 1, 2), (0, 1, 2, 2), (0, 1, 2, 4), (1, 2, 3, 4, 0)])
def test_an_order_that_is_not_a_permutation_is_rejected(order: tuple[int, ...]) -> None:
    with pytest.raises(ConfigError, match=r"item 'q1': order .* is not a permutation of its 4 option indices"):
        ArrangedItem(ITEM, order)


def test_an_out_of_range_position_is_rejected() -> None:
    with pytest.raises(ConfigError, match="4 is not an option index; expected 0..3"):
        ArrangedItem.identity(ITEM).original(4)


def test_to_dict_names_the_item_and_the_order() -> None:
    assert ArrangedItem(ITEM, (1, 0, 2, 3)).to_dict() == {"item": "q1", "order": [1, 0, 2, 3]}
