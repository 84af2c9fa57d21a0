"""``cyclic``: every cyclic rotation of each item's options (n per item): circular accuracy, consistency,
fluctuation."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Cyclic
from pfungst.stress.metrics import CircularMetrics, circular_metrics
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, StressRun, own_outcomes_findings

__all__ = ["CyclicPerturbation"]


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
