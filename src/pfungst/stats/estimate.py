"""The record every figure is: an :class:`Estimate` with its interval, p-value, baseline, method and size.

Field names follow one convention (``value``, ``ci`` with ``low`` / ``high``, ``pvalue``, ``baseline``,
``method``, ``n``), modelled on SciPy's result objects (STYLE.md rule 7). Reading one from JSON is
:func:`pfungst.schema.read_estimate` (schema reads statistics; statistics know nothing of schemas).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pfungst.serialization import to_jsonable

__all__ = ["ConfidenceInterval", "Estimate"]


@dataclass(frozen=True)
class ConfidenceInterval:
    """A two-sided interval at ``level`` (0.95 unless stated)."""

    low: float
    high: float
    level: float = 0.95

    def to_dict(self) -> dict[str, float | None]:
        """A JSON-safe dict (a NaN bound, from an interval without data, becomes None)."""
        return {
            "low": to_jsonable(self.low),
            "high": to_jsonable(self.high),
            "level": self.level,
        }


@dataclass(frozen=True)
class Estimate:
    """A figure with what it takes to read it: interval, p-value, the baseline it must beat, and how it was made."""

    value: float
    """The point estimate (or the test statistic, for a test)."""
    method: str
    """How it was computed, e.g. ``"wilson"``, ``"chi-squared test of uniform gold positions"``."""
    n: int
    """Number of observations it rests on."""
    ci: ConfidenceInterval | None = None
    """Confidence interval of ``value``; None for a pure test statistic."""
    pvalue: float = math.nan
    """P-value of the method's null hypothesis; NaN when no test applies."""
    baseline: float = math.nan
    """What ``value`` must beat (chance, majority class); NaN when none applies."""

    def columns(self, name: str) -> dict[str, float]:
        """The value and its interval as the columns of a table row: ``name``, ``name_low`` and ``name_high`` (NaN
        bounds without an interval); the one place a frame spells an estimate out.

        Example:
            >>> Estimate(0.5, "wilson", 10, ConfidenceInterval(0.2, 0.8)).columns("accuracy")
            {'accuracy': 0.5, 'accuracy_low': 0.2, 'accuracy_high': 0.8}
        """
        low, high = (self.ci.low, self.ci.high) if self.ci is not None else (math.nan, math.nan)
        return {name: self.value, f"{name}_low": low, f"{name}_high": high}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (NaN becomes None)."""
        return {
            "value": to_jsonable(self.value),
            "ci": self.ci.to_dict() if self.ci else None,
            "pvalue": to_jsonable(self.pvalue),
            "baseline": to_jsonable(self.baseline),
            "method": self.method,
            "n": self.n,
        }
