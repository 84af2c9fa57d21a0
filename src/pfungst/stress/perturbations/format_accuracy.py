"""The accuracy of one prompt format, with its Wilson interval: what ``formats`` lists per format and what
``spread-search`` reports for the best and the worst format it found."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate, wilson_interval

__all__ = ["FormatAccuracy", "format_accuracy"]


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


def format_accuracy(name: str, successes: int, n: int, level: float) -> FormatAccuracy:
    """The accuracy of format ``name``: ``successes`` of ``n`` items right, with a Wilson interval at ``level``."""
    value = successes / n if n else float("nan")
    estimate = Estimate(value=value, method="accuracy; Wilson interval", n=n, ci=wilson_interval(successes, n, level))
    return FormatAccuracy(name, estimate, n)
