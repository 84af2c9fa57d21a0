"""The ``choices-only`` variant: the item with its question removed, so the model sees only the options.

The arranged item is the edited item (same id), so outcomes read ``gold`` and ``chosen`` against the options the model
was shown.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from pfungst.data.item import Item
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.variants import Presentation

__all__ = ["ChoicesOnly"]


@dataclass(frozen=True)
class ChoicesOnly:
    """The item with its question removed (text and named fields emptied), the options and the format unchanged:
    what the model can answer from the options alone (Balepur, Ravichander & Rudinger 2024).

    Example:
        >>> item = Item(id="q", text="2 + 2 =", options=("3", "4"), gold=1)
        >>> [(p.variant, p.arranged.item.text, p.arranged.options) for p in ChoicesOnly().present(item, (), 0)]
        [('choices only', '', ('3', '4'))]
    """

    name: str = "choices-only"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """One presentation: the options in their original order without the question."""
        blank = dataclasses.replace(item, text="", fields={})
        return (Presentation("choices only", ArrangedItem.identity(blank)),)
