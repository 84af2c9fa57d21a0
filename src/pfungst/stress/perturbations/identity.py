"""``identity``: the items as given, always run; the plain pass every other perturbation is compared with."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Identity
from pfungst.stress.metrics import SelectionBias, selection_bias
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, FindingsBuilder, StressRun

__all__ = ["IdentityPerturbation"]


class IdentityPerturbation:
    """Each item once, options in their original order: accuracy, per-position recall, RStd, chosen positions."""

    name = "identity"
    description = "the items as given (always run): accuracy, per-ID recall, RStd, predicted-ID distribution"
    stage = BY_ITEM

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """One cell per item."""
        return [cell for item in run.benchmark for cell in run.cells(item, Identity(), self.name)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Selection bias by position of the plain pass."""
        found = FindingsBuilder(self.name, run.config.run.rule)
        outcomes = asked.of(self.name)
        found.add(
            SelectionBias,
            f"{run.config.run.rule}, identity, by position",
            lambda: selection_bias(outcomes, by="position", **run.estimation),
        )
        return found.findings()
