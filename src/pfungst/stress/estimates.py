"""The report rows that show estimates, shared by every stress result type (results read their estimates back
through :class:`pfungst.schema.Fields`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pfungst.blocks import ESTIMATE_COLUMNS, Table, estimate_row, methods_note
from pfungst.stats import Estimate

__all__ = ["estimates_table", "shared_baseline"]


def estimates_table(caption: str, named: Sequence[tuple[str, Estimate]]) -> Table:
    """One row per named estimate (:data:`~pfungst.blocks.ESTIMATE_COLUMNS`), their methods in the note."""
    dicts = [(label, estimate.to_dict()) for label, estimate in named]
    return Table(
        caption,
        ESTIMATE_COLUMNS,
        tuple(estimate_row(label, estimate) for label, estimate in dicts),
        note=methods_note([estimate for _, estimate in dicts]),
    )


def shared_baseline(estimates: Sequence[Estimate]) -> list[list[Any]]:
    """A chance line for a plot when every estimate has the same baseline (none when any differs or is missing)."""
    baselines = {estimate.to_dict()["baseline"] for estimate in estimates}
    return [[baselines.pop(), "chance"]] if len(baselines) == 1 and None not in baselines else []
