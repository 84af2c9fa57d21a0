"""The ``none-of-the-above`` variant (WiCkeD, arXiv 2502.18316): one option replaced by "None of the above", and which
option each item has replaced.

The arranged item is the edited item (same id), so outcomes read ``gold`` and ``chosen`` against the options the model
was shown.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.variants import Presentation

__all__ = ["NONE_OF_THE_ABOVE", "NoneOfTheAbove", "Replaced", "assign_replacements", "has_collective_option"]

NONE_OF_THE_ABOVE = "None of the above"
"""The option text that replaces one option (WiCkeD, arXiv 2502.18316)."""

Replaced = Literal["gold", "distractor"]

_COLLECTIVE = re.compile(
    r"\b(none|all|neither|both)\s+(of\s+)?(the\s+)?(above|these|them|options|choices|answers)\b", re.IGNORECASE
)
"""An option that speaks about the other options ("None of the above", "all of these", "both of them")."""


def has_collective_option(item: Item) -> bool:
    """Whether an option already refers to the others ("None of the above", "All of these"): such items are skipped
    by the substitution, since a second "none of the above" would be ambiguous.

    Example:
        >>> has_collective_option(Item(id="q", text="?", options=("red", "All of the above"), gold=1))
        True
    """
    return any(_COLLECTIVE.search(option) for option in item.options)


def assign_replacements(items: Sequence[Item], seed: int) -> dict[str, tuple[Replaced, int]]:
    """A seeded half of ``items`` (rounded down) gets its gold replaced, the rest one seeded distractor.

    Items with fewer than two options are left out (nothing to replace). The assignment depends on the item ids and
    the seed only.

    Returns:
        Item id -> what is replaced and the original index of the replaced option.

    Example:
        >>> items = [Item(id=f"q{i}", text="?", options=("a", "b", "c"), gold=0) for i in range(4)]
        >>> sorted(kind for kind, _ in assign_replacements(items, seed=0).values())
        ['distractor', 'distractor', 'gold', 'gold']
    """
    eligible = sorted(item.id for item in items if item.n_options >= 2)
    shuffled = random.Random(f"nota:{seed}").sample(eligible, len(eligible))
    gold_half = set(shuffled[: len(shuffled) // 2])
    assigned: dict[str, tuple[Replaced, int]] = {}
    for item in items:
        if item.id not in eligible:
            continue
        if item.id in gold_half:
            assigned[item.id] = ("gold", item.gold)
        else:
            others = [index for index in range(item.n_options) if index != item.gold]
            assigned[item.id] = ("distractor", random.Random(f"nota:{seed}:{item.id}").choice(others))
    return assigned


@dataclass(frozen=True)
class NoneOfTheAbove:
    """One option removed and "None of the above" added as the last option (where the phrase makes sense); when the
    gold was removed, "None of the above" is the gold.

    Example:
        >>> item = Item(id="q", text="?", options=("x", "y", "z"), gold=1)
        >>> (presented,) = NoneOfTheAbove({"q": ("gold", 1)}).present(item, (), 0)
        >>> presented.variant, presented.arranged.options, presented.arranged.gold
        ('gold replaced', ('x', 'z', 'None of the above'), 2)
    """

    replaced: Mapping[str, tuple[Replaced, int]] = field(default_factory=dict)
    """Item id -> what is replaced and the original index of the replaced option
    (:func:`assign_replacements`)."""
    name: str = "none-of-the-above"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """``gold replaced`` or ``distractor replaced``: the other options in original order, then the new one."""
        if item.id not in self.replaced:
            raise ConfigError(f"none-of-the-above: no replaced option chosen for item '{item.id}'")
        kind, removed = self.replaced[item.id]
        if not 0 <= removed < item.n_options or (kind == "gold") != (removed == item.gold):
            raise ConfigError(
                f"none-of-the-above: item '{item.id}': option {removed} is not its {kind} (gold is {item.gold})"
            )
        kept = [index for index in range(item.n_options) if index != removed]
        options = tuple(item.options[index] for index in kept) + (NONE_OF_THE_ABOVE,)
        gold = len(kept) if kind == "gold" else kept.index(item.gold)
        edited = dataclasses.replace(item, options=options, gold=gold)
        return (Presentation(f"{kind} replaced", ArrangedItem.identity(edited)),)
