"""``permutations``: all orders of each item's options, or a seeded sample of them: the metrics of ``cyclic``
over those orders."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Permutations
from pfungst.stress.metrics import CircularMetrics, circular_metrics
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, StressRun, own_outcomes_findings

__all__ = ["PermutationsPerturbation"]


class PermutationsPerturbation:
    """All orders of each item's options, or a seeded sample of them: the metrics of cyclic over those orders."""

    name = "permutations"
    description = "all n! orders or a seeded sample of them (--permutations): the same metrics over all orders"
    stage = BY_ITEM
    results = (CircularMetrics,)

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Each item in every arrangement."""
        return [
            cell for item in run.benchmark for cell in run.cells(item, Permutations(run.config.permutations), self.name)
        ]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Circular accuracy, consistency and fluctuation over the arrangements."""
        return own_outcomes_findings(self.name, run, asked, CircularMetrics, "permutations", circular_metrics)
