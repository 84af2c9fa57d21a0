"""Estimates read back from result JSON, and the report rows that show them: shared by every stress result type.

``Estimate.to_dict()`` writes NaN as null; reading turns null back into NaN, so a result read from its JSON writes
the same JSON again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pfungst.blocks import ESTIMATE_COLUMNS, Table, estimate_row, methods_note
from pfungst.stats import ConfidenceInterval, Estimate

__all__ = [
    "estimate_from_dict",
    "estimates_from_dicts",
    "estimates_table",
    "interval_from_dict",
    "number",
    "shared_baseline",
]


def number(value: Any) -> float:
    """A JSON number as a float; null (how NaN is written) reads as NaN."""
    return math.nan if value is None else float(value)


def interval_from_dict(data: Mapping[str, Any]) -> ConfidenceInterval:
    """The interval that :meth:`ConfidenceInterval.to_dict` wrote."""
    return ConfidenceInterval(number(data["low"]), number(data["high"]), float(data.get("level", 0.95)))


def estimate_from_dict(data: Mapping[str, Any]) -> Estimate:
    """The estimate that :meth:`Estimate.to_dict` wrote (:meth:`Estimate.from_dict`: every value's type checked).

    Example:
        >>> estimate = estimate_from_dict({"value": 0.5, "ci": None, "pvalue": None, "method": "wilson", "n": 4})
        >>> estimate.value, estimate.ci, math.isnan(estimate.pvalue)
        (0.5, None, True)
    """
    return Estimate.from_dict(data)


def estimates_from_dicts(data: Sequence[Mapping[str, Any]]) -> tuple[Estimate, ...]:
    """Several estimates, in order."""
    return tuple(estimate_from_dict(entry) for entry in data)


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
