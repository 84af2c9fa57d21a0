"""An item's options in a given order, carrying the map back to the original option indices (STYLE rule 13).

Scoring never reads state that an earlier stage mutated: the arranged item *is* the permutation, so a decision made
at an arranged position is mapped back to the original option with :meth:`ArrangedItem.original`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pfungst.data.item import Item
from pfungst.errors import ConfigError

__all__ = ["ArrangedItem"]


@dataclass(frozen=True)
class ArrangedItem:
    """An item whose options are shown in ``order``: position ``p`` shows original option ``order[p]``.

    Example:
        >>> item = Item(id="q1", text="2 + 2 =", options=("3", "4", "5"), gold=1)
        >>> arranged = ArrangedItem(item, (2, 1, 0))
        >>> arranged.options, arranged.gold, arranged.original(0)
        (('5', '4', '3'), 1, 2)
    """

    item: Item
    """The item as the benchmark defines it (options in original order)."""
    order: tuple[int, ...]
    """``order[position]`` is the original index of the option shown at ``position``; a permutation."""

    def __post_init__(self) -> None:
        order = tuple(self.order)
        object.__setattr__(self, "order", order)
        n = self.item.n_options
        if sorted(order) != list(range(n)):
            raise ConfigError(
                f"item '{self.item.id}': order {list(order)} is not a permutation of its {n} option indices "
                f"0..{n - 1}. Give each original index exactly once."
            )

    @classmethod
    def identity(cls, item: Item) -> ArrangedItem:
        """The item with its options in their original order."""
        return cls(item, tuple(range(item.n_options)))

    @property
    def options(self) -> tuple[str, ...]:
        """The option texts in arranged order."""
        return tuple(self.item.options[index] for index in self.order)

    @property
    def gold(self) -> int:
        """The arranged position of the gold option."""
        return self.order.index(self.item.gold)

    @property
    def n_options(self) -> int:
        """How many options the item has."""
        return len(self.order)

    @property
    def is_identity(self) -> bool:
        """Whether the options are in their original order."""
        return self.order == tuple(range(len(self.order)))

    def original(self, position: int) -> int:
        """The original option index of the option shown at arranged ``position``.

        Raises:
            ConfigError: ``position`` is not a valid arranged position.
        """
        self._check(position)
        return self.order[position]

    def position(self, original: int) -> int:
        """The arranged position at which original option ``original`` is shown.

        Raises:
            ConfigError: ``original`` is not a valid option index.
        """
        self._check(original)
        return self.order.index(original)

    def to_original_order(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """Per-position ``values`` (arranged order) re-ordered to the original option order.

        Raises:
            ConfigError: ``values`` does not have one entry per option.
        """
        if len(values) != len(self.order):
            raise ConfigError(f"expected {len(self.order)} values (one per option), got {len(values)}")
        mapped: list[Any] = [None] * len(self.order)
        for position, original in enumerate(self.order):
            mapped[original] = values[position]
        return tuple(mapped)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: the item id and the order."""
        return {"item": self.item.id, "order": list(self.order)}

    def _check(self, index: int) -> None:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self.order):
            raise ConfigError(
                f"item '{self.item.id}': {index!r} is not an option index; expected 0..{len(self.order) - 1}"
            )
