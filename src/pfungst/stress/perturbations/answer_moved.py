"""``answer-moved``: the gold option moved to each slot in turn (the answer-moving attack of Zheng et al. 2024)."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import MovedAnswer
from pfungst.stress.metrics import MovedAnswerAccuracy, moved_answer_accuracy
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, StressRun, own_outcomes_findings

__all__ = ["AnswerMovedPerturbation"]


class AnswerMovedPerturbation:
    """Each item with its gold option in every slot: accuracy per slot, the best-minus-worst gap, the worst case."""

    name = "answer-moved"
    description = "the gold option moved to each slot (answer-moving attack): accuracy per slot, worst case"
    stage = BY_ITEM

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """One cell per item and slot."""
        return [cell for item in run.benchmark for cell in run.cells(item, MovedAnswer(), self.name)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Accuracy per gold slot."""
        return own_outcomes_findings(
            self.name, run, asked, MovedAnswerAccuracy, "gold moved to each slot", moved_answer_accuracy
        )
