"""Outcomes as a prompt x item matrix of correct answers, items paired across prompts: what the format spread and
the multi-prompt estimates compare."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome

__all__ = ["CorrectnessTable", "correctness_table"]

_GROUPINGS = ("format", "variant", "rule", "perturbation")


class CorrectnessTable(NamedTuple):
    """Whether each item was answered correctly under each prompt, items paired across prompts."""

    names: tuple[str, ...]
    """The prompts (formats, variants, ...) in first-seen order."""
    item_ids: tuple[str, ...]
    """The items, in first-seen order; every prompt answered each of them once."""
    correct: np.ndarray
    """Boolean matrix, one row per name and one column per item."""


def correctness_table(outcomes: Sequence[Outcome], *, by: str = "format") -> CorrectnessTable:
    """Arrange outcomes as a prompt x item matrix of correct answers, checking that items are paired.

    Args:
        outcomes: One outcome per (prompt, item).
        by: The outcome field that names the prompt: ``format``, ``variant``, ``rule`` or ``perturbation``.

    Raises:
        ConfigError: ``by`` is not one of those fields, fewer than two prompts, a (prompt, item) pair occurs twice,
            or the prompts did not all answer the same items.

    Example:
        >>> from pfungst.evaluate.outcome import Outcome
        >>> def answer(fmt, item, chosen):
        ...     return Outcome(item, "formats", fmt, "letter", fmt, (0, 1), ("A", "B"), 0, chosen, chosen, "ok",
        ...                    (0.0, -1.0))
        >>> table = correctness_table([answer("f1", "q1", 0), answer("f2", "q1", 1)])
        >>> table.names, table.correct.tolist()
        (('f1', 'f2'), [[True], [False]])
    """
    if by not in _GROUPINGS:
        raise ConfigError(f"cannot group outcomes by {by!r}; expected one of {', '.join(_GROUPINGS)}")
    cells: dict[str, dict[str, bool]] = {}
    for outcome in outcomes:
        row = cells.setdefault(str(getattr(outcome, by)), {})
        if outcome.item_id in row:
            raise ConfigError(
                f"item '{outcome.item_id}' occurs twice for {by} '{getattr(outcome, by)}'; expected one outcome per "
                f"({by}, item). Filter the outcomes to one rule and one variant first."
            )
        row[outcome.item_id] = outcome.correct
    if len(cells) < 2:
        raise ConfigError(f"found {len(cells)} distinct {by} value(s); comparing prompts needs at least 2")
    names = tuple(cells)
    item_ids = tuple(dict.fromkeys(item for row in cells.values() for item in row))
    for name in names:
        missing = [item for item in item_ids if item not in cells[name]]
        if missing:
            raise ConfigError(
                f"{by} '{name}' has no outcome for {len(missing)} item(s) others answered (first: '{missing[0]}'); "
                "a paired comparison needs every prompt on the same items. Keep only the items all prompts answered."
            )
    matrix = np.array([[cells[name][item] for item in item_ids] for name in names], dtype=bool)
    return CorrectnessTable(names, item_ids, matrix)
