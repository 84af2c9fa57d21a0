"""How a benchmark's items offer their choices (:class:`OptionKind`): one shared label set, or options per item.

The two layouts differ in what a gold answer is (a label, or a position among the item's own options), what guessing
scores, what a null copy draws and which statistic corrects for chance. Each of those is a member of the type, so code
asks the benchmark's kind (``benchmark.option_kind.has_positions``, ``.class_names(...)``) instead of comparing names;
a result file records the kind by its value (``"per_item"``, ``"shared_labels"``) and :meth:`OptionKind.named` reads it
back.

Example:
    >>> kind = OptionKind.named("shared_labels")
    >>> kind.has_positions, kind.statistic, kind.class_names(("yes", "no"), 2)
    (False, 'kappa', ('yes', 'no'))
    >>> OptionKind.PER_ITEM.class_names((), 3), OptionKind.PER_ITEM.words
    (('A', 'B', 'C'), 'options per item')
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from pfungst.errors import ConfigError, unknown_name_message

if TYPE_CHECKING:
    import numpy as np

__all__ = ["OptionKind", "position_name"]


def position_name(position: int) -> str:
    """An option position as a reader sees it: ``A``, ``B``, ... then ``27``, ``28``, ... past 26 options."""
    return string.ascii_uppercase[position] if position < 26 else str(position + 1)


class OptionKind(StrEnum):
    """``shared_labels``: every item chooses from one label set (NLI, yes/no); ``per_item``: each has its own choices.

    A member is its value as text (``OptionKind.PER_ITEM == "per_item"``, written as such to JSON); everything that
    differs between the two is one of its members below.
    """

    SHARED_LABELS = "shared_labels"
    PER_ITEM = "per_item"

    @classmethod
    def named(cls, name: object) -> OptionKind:
        """The kind called ``name`` (a member is returned as it is).

        Raises:
            ConfigError: ``name`` is no kind; the message lists the kinds.
        """
        if isinstance(name, OptionKind):
            return name
        try:
            return cls(str(name))
        except ValueError:
            raise ConfigError(unknown_name_message("option kind", str(name), [kind.value for kind in cls])) from None

    @property
    def has_positions(self) -> bool:
        """Whether a gold answer is a position among the item's own options (per-item choices, whose order is meant to
        be arbitrary, so a skewed gold slot, a longest-option rule and option-level features apply); a shared label
        set has labels, not positions."""
        return self is OptionKind.PER_ITEM

    @property
    def words(self) -> str:
        """The kind in words: ``shared labels`` or ``options per item``."""
        return "options per item" if self.has_positions else "shared labels"

    @property
    def gold_unit(self) -> str:
        """What one gold answer is: a ``position`` or a ``label``."""
        return "position" if self.has_positions else "label"

    @property
    def statistic(self) -> str:
        """The chance-corrected statistic a verdict reads: ``chance_corrected_accuracy`` for per-item choices (always
        answering the usual slot exploits a real artifact, which kappa would hide), Cohen's ``kappa`` for shared labels
        (a constant majority guess scores 0: label imbalance is not a surface cue)."""
        return "chance_corrected_accuracy" if self.has_positions else "kappa"

    def class_names(self, labels: Sequence[str], width: int) -> tuple[str, ...]:
        """The names of the gold classes: the ``labels``, or the first ``width`` position names (``A``, ``B``, ...)."""
        if self.has_positions:
            return tuple(position_name(k) for k in range(width))
        return tuple(labels)

    def answer_name(self, labels: Sequence[str], answer: int) -> str:
        """Gold class ``answer`` by name: its label, or its position name (also past the labels)."""
        if not self.has_positions and answer < len(labels):
            return labels[answer]
        return position_name(answer)

    def labels_of(self, labels: Sequence[str]) -> tuple[str, ...]:
        """The shared label set (``labels``), or none for per-item choices."""
        return () if self.has_positions else tuple(labels)

    def chance(self, n_options: Sequence[int], n_labels: int) -> float:
        """Guessing's accuracy: the mean of ``1 / K`` over items with ``n_options`` choices, or ``1 / n_labels``."""
        if not self.has_positions:
            return 1 / n_labels
        if not n_options:
            return float("nan")
        import numpy as np  # the data stage loads without numpy; only scoring needs it

        return float(np.mean([1 / k for k in n_options]))

    def null_golds(self, golds: Sequence[int], n_options: Sequence[int], rng: np.random.Generator) -> np.ndarray:
        """Gold answers independent of the items: the labels permuted across items (their distribution kept), or each
        item's gold redrawn uniformly among its own options."""
        if self.has_positions:
            import numpy as np  # the data stage loads without numpy; only scoring needs it

            return np.array([rng.integers(0, k) for k in n_options], dtype=int)
        return rng.permutation(list(golds))
