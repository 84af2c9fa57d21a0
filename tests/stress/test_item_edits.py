"""Variants that edit an item's content: the question removed, an option replaced by "None of the above"."""

from __future__ import annotations

import pytest

from pfungst.data import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.formats import get_format
from pfungst.stress.perturbations.choices_only.variant import ChoicesOnly
from pfungst.stress.perturbations.none_of_the_above.variant import (
    NONE_OF_THE_ABOVE,
    NoneOfTheAbove,
    assign_replacements,
)


def test_choices_only_removes_the_question_and_its_fields_but_keeps_options_and_format() -> None:
    item = Item("q", "Premise. Hypothesis?", ("yes", "no"), 1, fields={"premise": "Premise."})
    (shown,) = ChoicesOnly().present(item, ("A", "B"), seed=0)
    assert shown.arranged.item.text == "" and dict(shown.arranged.item.fields) == {}
    assert shown.arranged.item.id == "q" and shown.arranged.gold == 1
    assert get_format("mmlu").render(shown.arranged).text == "\nA. yes\nB. no\nAnswer:"


@pytest.mark.parametrize(
    ("kind", "removed", "options", "gold"),
    [
        ("gold", 0, ("no", NONE_OF_THE_ABOVE), 1),
        ("distractor", 1, ("yes", NONE_OF_THE_ABOVE), 0),
    ],
)
def test_a_two_option_item_keeps_one_option_and_gains_none_of_the_above(
    kind: str, removed: int, options: tuple[str, ...], gold: int
) -> None:
    item = Item("q", "?", ("yes", "no"), 0)
    (shown,) = NoneOfTheAbove({"q": (kind, removed)}).present(item, ("A", "B"), seed=0)  # type: ignore[dict-item]
    assert shown.variant == f"{kind} replaced" and shown.arranged.options == options and shown.arranged.gold == gold


def test_a_replacement_that_names_the_wrong_option_is_refused() -> None:
    item = Item("q", "?", ("a", "b", "c"), 2)
    with pytest.raises(ConfigError, match=r"item 'q': option 1 is not its gold \(gold is 2\)"):
        NoneOfTheAbove({"q": ("gold", 1)}).present(item, (), seed=0)
    with pytest.raises(ConfigError, match="no replaced option chosen for item 'q'"):
        NoneOfTheAbove().present(item, (), seed=0)


def test_items_with_one_option_are_not_assigned_and_odd_counts_round_the_gold_half_down() -> None:
    items = [Item(f"q{i}", "?", ("a", "b"), 0) for i in range(5)] + [Item("solo", "?", ("a",), 0)]
    assigned = assign_replacements(items, seed=3)
    assert "solo" not in assigned and sum(kind == "gold" for kind, _ in assigned.values()) == 2
