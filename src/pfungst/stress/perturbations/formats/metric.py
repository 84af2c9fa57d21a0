"""What ``formats`` measures (FormatSpread, Sclar et al., ICLR 2024): accuracy per prompt format on the same items,
and the spread between the best and the worst format, with a paired bootstrap interval."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pfungst.blocks import Block, Facts, Figure, Table, format_estimate, format_number, methods_note
from pfungst.evaluate.outcome import Outcome
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate, bootstrap_interval
from pfungst.stress.correctness_table import correctness_table
from pfungst.stress.estimates import estimates_table
from pfungst.stress.perturbations.format_accuracy import FormatAccuracy, format_accuracy

__all__ = ["FormatSpread", "format_spread"]


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


def format_spread(
    outcomes: Sequence[Outcome], *, seed: int, n_bootstrap: int = 1000, level: float = 0.95
) -> FormatSpread:
    """Accuracy per prompt format and the spread between the best and the worst, on the same items.

    Args:
        outcomes: One outcome per (format, item); every format must have answered the same items.
        seed: Seed of the bootstrap.
        n_bootstrap: Bootstrap resamples of the items.
        level: Coverage of the intervals.

    Raises:
        ConfigError: See :func:`correctness_table`.

    Example:
        >>> from pfungst.evaluate.outcome import Outcome
        >>> def answer(fmt, item, chosen):
        ...     return Outcome(item, "formats", fmt, "letter", fmt, (0, 1), ("A", "B"), 0, chosen, chosen, "ok",
        ...                    (0.0, -1.0))
        >>> outcomes = [answer("plain", f"q{i}", 0) for i in range(4)]
        >>> outcomes += [answer("fancy", f"q{i}", int(i < 3)) for i in range(4)]
        >>> result = format_spread(outcomes, seed=0)
        >>> result.best, result.worst, result.spread.value
        ('plain', 'fancy', 0.75)
    """
    table = correctness_table(outcomes, by="format")
    n_items = len(table.item_ids)
    accuracies = [
        format_accuracy(name, int(row.sum()), n_items, level)
        for name, row in zip(table.names, table.correct, strict=True)
    ]
    accuracies.sort(key=lambda entry: (-entry.accuracy.value, entry.format))
    matrix = table.correct.astype(float)

    def statistic(index: np.ndarray) -> float:
        means = matrix[:, index].mean(axis=1)
        return float(means.max() - means.min())

    ci = bootstrap_interval(statistic, n_items, n_resamples=n_bootstrap, seed=seed, level=level)
    spread = Estimate(
        value=accuracies[0].accuracy.value - accuracies[-1].accuracy.value,
        method="best minus worst format accuracy; paired bootstrap over items",
        n=n_items,
        ci=ci,
    )
    return FormatSpread(tuple(accuracies), spread, accuracies[0].format, accuracies[-1].format, len(accuracies))
