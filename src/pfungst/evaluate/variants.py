"""Variants: changes to how an item is shown that should not change a model's answer.

A :class:`Variant` turns one item into the presentations to ask about: each an arrangement of the options (STYLE rule
13: the arrangement carries its map back to the original indices) and, for shuffled IDs, the labels to show. Every
random choice is seeded per item (:func:`item_rng`), so the same seed gives the same presentations whatever the item
order or subset.

Here is what evaluation itself needs: the protocol, :class:`Identity` (the plain pass, all that ``score`` asks) and the
seeding. Each perturbation's own variant lives beside it in :mod:`pfungst.stress.perturbations` (``Cyclic`` in
``cyclic.py``, ``ChoicesOnly`` in ``choices_only/variant.py``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pfungst.data.item import Item
from pfungst.evaluate.arrangement import ArrangedItem

__all__ = ["Identity", "Presentation", "Variant", "item_rng"]


@dataclass(frozen=True)
class Presentation:
    """One way of showing an item: its options in an arrangement, optionally under other labels."""

    variant: str
    """The member of the variant family: ``identity``, ``shift 2``, ``slot 3``, ``ids shuffled``, ``adjacent``."""
    arranged: ArrangedItem
    """The item with its options in the order shown."""
    labels: tuple[str, ...] = ()
    """Labels to show at each position instead of the format's own; empty to keep the format's."""


@runtime_checkable
class Variant(Protocol):
    """A family of presentations of an item."""

    @property
    def name(self) -> str:
        """The family's name (``cyclic``); it is the ``perturbation`` of the outcomes."""
        ...

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """The presentations of ``item``; ``labels`` are the format's labels for it; ``seed`` fixes random choices."""
        ...


@dataclass(frozen=True)
class Identity:
    """The item as the benchmark gives it."""

    name: str = "identity"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """One presentation: the original order."""
        return (Presentation("identity", ArrangedItem.identity(item)),)


def item_rng(seed: int, item: Item) -> random.Random:
    """A generator seeded by the run seed and the item id, independent of item order: every random choice of a
    variant draws from it, so the same seed gives the same presentations whatever the item order or subset."""
    return random.Random(f"{seed}:{item.id}")
