"""Variants: changes to how an item is shown that should not change a model's answer.

A :class:`Variant` turns one item into the presentations to ask about: each an arrangement of the options (STYLE rule
13: the arrangement carries its map back to the original indices) and, for shuffled IDs, the labels to show. Every
random choice is seeded per item (``seed`` and the item id), so the same seed gives the same presentations whatever
the item order or subset. Adding a variant is one class here and one line in :data:`VARIANTS`.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.registry import Registry

__all__ = [
    "VARIANTS",
    "MovedAnswer",
    "Cyclic",
    "Identity",
    "Permutations",
    "Presentation",
    "ShuffledIds",
    "TopTwo",
    "Variant",
    "get_variant",
]


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


@dataclass(frozen=True)
class Cyclic:
    """Every cyclic rotation of the options (n per item; shift 0 is the original order), as in CircularEval.

    Example:
        >>> item = Item(id="q", text="?", options=("x", "y", "z"), gold=0)
        >>> [(p.variant, p.arranged.order) for p in Cyclic().present(item, ("A", "B", "C"), seed=0)]
        [('shift 0', (0, 1, 2)), ('shift 1', (1, 2, 0)), ('shift 2', (2, 0, 1))]
    """

    name: str = "cyclic"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """Rotation ``s`` shows original option ``(p + s) mod n`` at position ``p``."""
        n = item.n_options
        return tuple(
            Presentation(f"shift {shift}", ArrangedItem(item, tuple((p + shift) % n for p in range(n))))
            for shift in range(n)
        )


@dataclass(frozen=True)
class Permutations:
    """All ``n!`` orders, or a seeded sample of ``sample`` distinct orders that always includes the original."""

    sample: int | None = None
    """How many orders per item; ``None`` for all of them."""
    name: str = "permutations"

    def __post_init__(self) -> None:
        if self.sample is not None and (
            isinstance(self.sample, bool) or not isinstance(self.sample, int) or self.sample < 1
        ):
            raise ConfigError(f"permutations: sample must be a positive number of orders or None, got {self.sample!r}")

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """Orders named ``order 0`` (the original), ``order 1``, ... in lexicographic or drawn order."""
        n = item.n_options
        identity = tuple(range(n))
        if self.sample is None or self.sample >= math.factorial(n):
            orders = list(itertools.permutations(identity))
        else:
            rng = _rng(seed, item)
            chosen = {identity}
            orders = [identity]
            while len(orders) < self.sample:
                order = tuple(rng.sample(identity, n))
                if order not in chosen:
                    chosen.add(order)
                    orders.append(order)
        return tuple(Presentation(f"order {index}", ArrangedItem(item, order)) for index, order in enumerate(orders))


@dataclass(frozen=True)
class MovedAnswer:
    """The gold option moved to each slot in turn, the others kept in their original relative order (the
    answer-moving attack of Zheng et al. 2024).

    Example:
        >>> item = Item(id="q", text="?", options=("x", "y", "z"), gold=1)
        >>> [(p.variant, p.arranged.order) for p in MovedAnswer().present(item, ("A", "B", "C"), seed=0)]
        [('slot 1', (1, 0, 2)), ('slot 2', (0, 1, 2)), ('slot 3', (0, 2, 1))]
    """

    name: str = "answer-moved"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """One presentation per slot ``k`` (1-based in its name) with the gold option at position ``k - 1``."""
        others = [index for index in range(item.n_options) if index != item.gold]
        return tuple(
            Presentation(f"slot {slot + 1}", ArrangedItem(item, tuple(others[:slot] + [item.gold] + others[slot:])))
            for slot in range(item.n_options)
        )


@dataclass(frozen=True)
class ShuffledIds:
    """The original order under a seeded shuffle of the labels (``B. x  D. y  A. z  C. w``): a model drawn to a
    label token follows the label, one drawn to a position stays; this separates token bias from position bias."""

    name: str = "ids-shuffled"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """One presentation whose labels are a permutation of ``labels`` other than the original (when two of them
        differ)."""
        rng = _rng(seed, item)
        shuffled = list(labels)
        while len(set(labels)) > 1 and tuple(shuffled) == labels:  # identical labels have no other order
            rng.shuffle(shuffled)
        return (Presentation("ids shuffled", ArrangedItem.identity(item), tuple(shuffled)),)


@dataclass(frozen=True)
class TopTwo:
    """The model's two favourite options placed next to each other (positions 1 and 2) or at the two ends (first and
    last), the rest in original order between (Pezeshkpour & Hruschka 2024). Needs the model's top two per item."""

    top: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Item id -> original indices of the model's first and second choice in a plain pass."""
    name: str = "top2"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """``adjacent`` and ``ends``; an item with fewer than 3 options has no distinct pair and gets none."""
        if item.id not in self.top:
            raise ConfigError(f"top2: no first and second choice known for item '{item.id}'; run a plain pass first")
        first, second = self.top[item.id]
        if item.n_options < 3:
            return ()
        rest = [index for index in range(item.n_options) if index not in (first, second)]
        return (
            Presentation("adjacent", ArrangedItem(item, (first, second, *rest))),
            Presentation("ends", ArrangedItem(item, (first, *rest, second))),
        )


VARIANTS: Registry[type[Variant]] = Registry(
    "variant",
    {
        "identity": Identity,
        "cyclic": Cyclic,
        "permutations": Permutations,
        "answer-moved": MovedAnswer,
        "ids-shuffled": ShuffledIds,
        "top2": TopTwo,
    },
    group=None,
)
"""Variant family name -> its class (built with no arguments unless stated)."""


def get_variant(name: str) -> Variant:
    """The variant family ``name`` with default settings.

    Raises:
        ConfigError: an unknown name (close matches and every name listed).
    """
    variant: Variant = VARIANTS.resolve(name)()
    return variant


def _rng(seed: int, item: Item) -> random.Random:
    """A generator seeded by the run seed and the item id, independent of item order."""
    return random.Random(f"{seed}:{item.id}")
