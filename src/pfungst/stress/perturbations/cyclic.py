"""``cyclic``: every cyclic rotation of each item's options (n per item): circular accuracy, consistency,
fluctuation."""

from __future__ import annotations

from dataclasses import dataclass

from pfungst.data.item import Item
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Presentation
from pfungst.stress.metrics import CircularMetrics, circular_metrics
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, StressRun, own_outcomes_findings

__all__ = ["CyclicPerturbation", "Cyclic"]


@dataclass(frozen=True)
class Cyclic:
    """Every cyclic rotation of the options (n per item; shift 0 is the original order), as in CircularEval.

    Example:
        >>> item = Item(id="q", text="?", options=("x", "y", "z"), gold=0)
        >>> [(p.variant, p.arranged.order) for p in Cyclic().present(item, ("A", "B", "C"), seed=0)]
        [('shift 0', (0, 1, 2)), ('shift 1', (1, 2, 0)), ('shift 2', (2, 0, 1))]
    """

    name: str = "cyclic"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """Rotation ``s`` shows original option ``(p + s) mod n`` at position ``p``."""
        n = item.n_options
        return tuple(
            Presentation(f"shift {shift}", ArrangedItem(item, tuple((p + shift) % n for p in range(n))))
            for shift in range(n)
        )


class CyclicPerturbation:
    """Every cyclic rotation of each item's options (n per item): circular accuracy, consistency, fluctuation."""

    name = "cyclic"
    description = "every cyclic rotation of the options: circular accuracy, consistency, fluctuation (n passes)"
    stage = BY_ITEM

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Each item in every arrangement."""
        return [cell for item in run.benchmark for cell in run.cells(item, Cyclic(), self.name)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Circular accuracy, consistency and fluctuation over the arrangements."""
        return own_outcomes_findings(self.name, run, asked, CircularMetrics, "cyclic rotations", circular_metrics)
