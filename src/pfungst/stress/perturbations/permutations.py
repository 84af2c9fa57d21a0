"""``permutations``: all orders of each item's options, or a seeded sample of them: the metrics of ``cyclic``
over those orders."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Permutations
from pfungst.stress.metrics import CircularMetrics, circular_metrics
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, StressRun, own_outcomes_findings
from pfungst.stress.perturbations.params import check_param, is_count

__all__ = ["PermutationsPerturbation"]


@dataclass(frozen=True)
class PermutationsPerturbation:
    """All orders of each item's options, or a seeded sample of them: the metrics of cyclic over those orders.

    Raises:
        ConfigError: ``n`` is neither a whole number of at least 1 nor ``"all"``.
    """

    name: ClassVar[str] = "permutations"
    description: ClassVar[str] = "a seeded sample of n orders, or all of them (n=all): the same metrics over them"
    stage: ClassVar[int] = BY_ITEM

    n: int | Literal["all"] = 6
    """Orders per item: a seeded sample of this many (fewer where the item has fewer), or ``"all"`` ``n!``."""

    def __post_init__(self) -> None:
        ok = self.n == "all" or is_count(self.n)
        check_param(self.name, "n", self.n, ok, "a whole number of at least 1, or 'all'")

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Each item in every arrangement."""
        variant = Permutations(None if self.n == "all" else self.n)
        return [cell for item in run.benchmark for cell in run.cells(item, variant, self.name)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Circular accuracy, consistency and fluctuation over the arrangements."""
        return own_outcomes_findings(self.name, run, asked, CircularMetrics, "permutations", circular_metrics)
