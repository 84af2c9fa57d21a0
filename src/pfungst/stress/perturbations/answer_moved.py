"""``answer-moved``: the gold option moved to each slot in turn (the answer-moving attack of Zheng et al. 2024)."""

from __future__ import annotations

from dataclasses import dataclass

from pfungst.data.item import Item
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Presentation
from pfungst.stress.metrics import MovedAnswerAccuracy, moved_answer_accuracy
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, StressRun, own_outcomes_findings

__all__ = ["AnswerMovedPerturbation", "MovedAnswer"]


@dataclass(frozen=True)
class MovedAnswer:
    """The gold option moved to each slot in turn, the others kept in their original relative order (the
    answer-moving attack of Zheng et al. 2024).

    Example:
        >>> item = Item(id="q", text="?", options=("x", "y", "z"), gold=1)
        >>> [(p.variant, p.arranged.order) for p in MovedAnswer().present(item, ("A", "B", "C"), seed=0)]
        [('slot 1', (1, 0, 2)), ('slot 2', (0, 1, 2)), ('slot 3', (0, 2, 1))]
    """

    name: str = "answer-moved"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """One presentation per slot ``k`` (1-based in its name) with the gold option at position ``k - 1``."""
        others = [index for index in range(item.n_options) if index != item.gold]
        return tuple(
            Presentation(f"slot {slot + 1}", ArrangedItem(item, tuple(others[:slot] + [item.gold] + others[slot:])))
            for slot in range(item.n_options)
        )


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
