"""``cyclic``: every cyclic rotation of each item's options (n per item): circular accuracy, consistency,
fluctuation."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Cyclic
from pfungst.stress.metrics import CircularMetrics, circular_metrics
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, FindingsBuilder, StressRun

__all__ = ["CyclicPerturbation", "circular_findings"]


class CyclicPerturbation:
    """Every cyclic rotation of each item's options (n per item): circular accuracy, consistency, fluctuation."""

    name = "cyclic"
    description = "every cyclic rotation of the options: circular accuracy, consistency, fluctuation (n passes)"
    stage = BY_ITEM
    results = (CircularMetrics,)

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Each item in every arrangement."""
        return [cell for item in run.benchmark for cell in run.cells(item, Cyclic(), self.name)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Circular accuracy, consistency and fluctuation over the arrangements."""
        return circular_findings(self.name, run, asked, "cyclic rotations")


def circular_findings(name: str, run: StressRun, asked: Asked, arrangements: str) -> Findings:
    """Circular accuracy, consistency and fluctuation of perturbation ``name``'s outcomes (none when it asked none).

    ``arrangements`` names the orders in the result's subject (``"cyclic rotations"``, ``"permutations"``).
    """
    found = FindingsBuilder(name, run.config.rule)
    outcomes = asked.of(name)
    if outcomes:
        found.add(
            CircularMetrics,
            f"{run.config.rule}, {arrangements}",
            lambda: circular_metrics(outcomes, **run.estimation),
        )
    return found.findings()
