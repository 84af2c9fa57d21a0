"""Outcomes grouped by item, after checking they come from one scoring rule and one format."""

from __future__ import annotations

from collections.abc import Sequence

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome

__all__ = ["group_by_item", "one_per_item"]


def group_by_item(outcomes: Sequence[Outcome], metric: str, what: str) -> dict[str, list[Outcome]]:
    """Item id -> its outcomes, in first-seen order.

    Args:
        outcomes: The outcomes of one perturbation.
        metric: The calling metric's name, for messages.
        what: What the caller needs, in words ("every arrangement of each item"), for messages.

    Raises:
        ConfigError: no outcomes, or outcomes of several rules or formats.
    """
    if not outcomes:
        raise ConfigError(f"{metric} needs outcomes, but none were given. Pass {what}.")
    for field in ("rule", "format"):
        values = sorted({getattr(outcome, field) for outcome in outcomes})
        if len(values) > 1:
            raise ConfigError(
                f"{metric} needs outcomes of one {field}, but found {len(values)}: "
                f"{', '.join(values)}. Call it once per {field}."
            )
    groups: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.item_id, []).append(outcome)
    return groups


def one_per_item(outcomes: Sequence[Outcome], metric: str, what: str) -> dict[str, Outcome]:
    """Item id -> its one outcome, in first-seen order.

    Raises:
        ConfigError: no outcomes, outcomes of several rules or formats, or an item more than once.
    """
    groups = group_by_item(outcomes, metric, what)
    for item_id, group in groups.items():
        if len(group) > 1:
            raise ConfigError(
                f"{metric} needs one outcome per item, but item '{item_id}' appears {len(group)} times. "
                "Pass the outcomes of a single variant."
            )
    return {item_id: group[0] for item_id, group in groups.items()}
