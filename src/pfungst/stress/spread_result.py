"""What a format-spread measurement found: accuracy per format and the spread (:func:`~pfungst.stress.spread.
format_spread`), or the best and worst format a budgeted search judged (:func:`~pfungst.stress.spread.search_spread`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pfungst.blocks import Block, Facts, Figure, Table, format_estimate, format_number, methods_note
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate
from pfungst.stress.estimates import estimates_table

__all__ = ["FormatAccuracy", "FormatSpread", "SpreadSearch"]


@dataclass(frozen=True)
class FormatAccuracy:
    """The accuracy of one prompt format."""

    format: str
    """The format's name."""
    accuracy: Estimate
    """Share of its items answered correctly, with a Wilson interval."""
    n: int
    """Items it was asked."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {"format": self.format, "accuracy": self.accuracy.to_dict(), "n": self.n}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> FormatAccuracy:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))


@dataclass(frozen=True)
class FormatSpread:
    """Accuracy per format on the same items, and the spread between the best and the worst."""

    KIND: ClassVar[str] = "format-spread"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Format spread"
    """The result's heading in reports."""

    formats: tuple[FormatAccuracy, ...]
    """One entry per format, best first (ties by name)."""
    spread: Estimate
    """Best minus worst accuracy, with a paired bootstrap interval over items. The observed maximum of noisy
    accuracies is biased upwards, so on few items the spread overstates the true one."""
    best: str
    """The format with the highest accuracy."""
    worst: str
    """The format with the lowest accuracy."""
    n_formats: int
    """How many formats were compared."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "formats": [entry.to_dict() for entry in self.formats],
            "spread": self.spread.to_dict(),
            "best": self.best,
            "worst": self.worst,
            "n_formats": self.n_formats,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> FormatSpread:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """The spread, the best and worst format, accuracy per format as a table and a plot."""
        accuracies = [entry.accuracy.to_dict() for entry in self.formats]
        rows = tuple(
            (entry.format, format_estimate(accuracy), format_number(entry.n))
            for entry, accuracy in zip(self.formats, accuracies, strict=True)
        )
        figure = Figure(
            "intervals",
            "Accuracy per prompt format (best first)",
            {"labels": [entry.format for entry in self.formats], "estimates": accuracies, "axis": "accuracy"},
        )
        facts = Facts((("best", self.best), ("worst", self.worst), ("formats", format_number(self.n_formats))))
        return (
            estimates_table("Spread", [("best - worst accuracy", self.spread)]),
            facts,
            Table("Accuracy per format", ("format", "accuracy [CI]", "items"), rows, note=methods_note(accuracies)),
            figure,
        )


@dataclass(frozen=True)
class SpreadSearch:
    """The outcome of a budgeted Thompson-sampling search for the best and the worst format."""

    KIND: ClassVar[str] = "spread-search"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Format spread search"
    """The result's heading in reports."""

    best: FormatAccuracy
    """The format judged best, with the accuracy of the items it was asked."""
    worst: FormatAccuracy
    """The format judged worst, likewise."""
    spread: Estimate
    """Best minus worst observed accuracy. Its interval, (best low - worst high, best high - worst low) from the two
    Wilson intervals, is conservative: it covers at least at ``level`` when both intervals do."""
    budget: int
    """Item evaluations allowed."""
    evaluations: int
    """Item evaluations spent (at most ``budget``)."""
    pulls: dict[str, tuple[int, int]]
    """Per format: (items answered correctly, items asked)."""
    history: tuple[tuple[str, int, int], ...]
    """Every pull in order: (format, items asked, items answered correctly)."""
    seed: int
    """Seed of the sampling and of the item order."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "best": self.best.to_dict(),
            "worst": self.worst.to_dict(),
            "spread": self.spread.to_dict(),
            "budget": self.budget,
            "evaluations": self.evaluations,
            "pulls": {name: list(counts) for name, counts in self.pulls.items()},
            "history": [list(entry) for entry in self.history],
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> SpreadSearch:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """The best and worst format found and their spread, the evaluations spent, items asked per format."""
        named = [
            (f"best: {self.best.format}", self.best.accuracy),
            (f"worst: {self.worst.format}", self.worst.accuracy),
            ("spread (best - worst)", self.spread),
        ]
        rows = tuple((name, format_number(counts[0]), format_number(counts[1])) for name, counts in self.pulls.items())
        evaluations = f"{format_number(self.evaluations)} of a budget of {format_number(self.budget)}"
        facts = Facts((("evaluations", evaluations), ("seed", format_number(self.seed))))
        return (
            estimates_table("Best and worst format found", named),
            facts,
            Table("Items asked per format", ("format", "right", "asked"), rows),
        )
