"""A perturbation as a third-party package would add one: one module, one ``pfungst.perturbations`` entry point.

It shows every item with its options in reverse order and reports the accuracy there against the plain pass's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pfungst.blocks import Block, Facts, format_estimate
from pfungst.data.item import Item
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Presentation
from pfungst.stats import Estimate
from pfungst.stress.estimates import estimate_from_dict
from pfungst.stress.metrics import proportion_estimate
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, FindingsBuilder, StressRun


@dataclass(frozen=True)
class Reversed:
    """The options in reverse order."""

    name: str = "reversed"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        return (Presentation("reversed", ArrangedItem(item, tuple(reversed(range(item.n_options))))),)


@dataclass(frozen=True)
class ReversedAccuracy:
    """Accuracy with the options reversed."""

    KIND: ClassVar[str] = "pfungst-plugin.reversed"
    TITLE: ClassVar[str] = "Options reversed"
    accuracy: Estimate
    n_items: int

    def to_dict(self) -> dict[str, Any]:
        return {"accuracy": self.accuracy.to_dict(), "n_items": self.n_items}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReversedAccuracy:
        return cls(estimate_from_dict(data["accuracy"]), int(data["n_items"]))

    def blocks(self) -> tuple[Block, ...]:
        return (Facts((("accuracy reversed", format_estimate(self.accuracy.to_dict())),)),)


class ReversedPerturbation:
    """Every item with its options reversed."""

    name = "reversed"
    description = "the options in reverse order: accuracy there"
    stage = BY_ITEM
    results = (ReversedAccuracy,)

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        return [cell for item in run.benchmark for cell in run.cells(item, Reversed(), self.name)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        found = FindingsBuilder(self.name, run.config.rule)
        outcomes = asked.of(self.name)
        right = sum(outcome.correct for outcome in outcomes)
        found.add(
            ReversedAccuracy,
            f"{run.config.rule}, options reversed",
            lambda: ReversedAccuracy(proportion_estimate(right, len(outcomes)), len(outcomes)),
        )
        return found.findings()
