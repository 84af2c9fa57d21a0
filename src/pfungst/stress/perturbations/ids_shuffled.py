"""``ids-shuffled``: the option labels shuffled, the order kept, which tells label bias from position bias."""

from __future__ import annotations

from dataclasses import dataclass

from pfungst.data.item import Item
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Presentation, item_rng
from pfungst.stress.metrics import PairedDifference, SelectionBias, paired_difference, selection_bias
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, FindingsBuilder, StressRun

__all__ = ["IdsShuffledPerturbation", "ShuffledIds"]


@dataclass(frozen=True)
class ShuffledIds:
    """The original order under a seeded shuffle of the labels (``B. x  D. y  A. z  C. w``): a model drawn to a
    label token follows the label, one drawn to a position stays; this separates token bias from position bias."""

    name: str = "ids-shuffled"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """One presentation whose labels are a permutation of ``labels`` other than the original (when two of them
        differ)."""
        rng = item_rng(seed, item)
        shuffled = list(labels)
        while len(set(labels)) > 1 and tuple(shuffled) == labels:  # identical labels have no other order
            rng.shuffle(shuffled)
        return (Presentation("ids shuffled", ArrangedItem.identity(item), tuple(shuffled)),)


class IdsShuffledPerturbation:
    """Each item under a seeded shuffle of its labels: selection bias by label and by position, and accuracy
    against the plain pass."""

    name = "ids-shuffled"
    description = "the option labels shuffled, order kept: per-label versus per-position bias"
    stage = BY_ITEM

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """One cell per item."""
        return [cell for item in run.benchmark for cell in run.cells(item, ShuffledIds(), self.name)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Selection bias by label and by position; paired accuracy against the plain pass."""
        rule, found = run.config.run.rule, FindingsBuilder(self.name, run.config.run.rule)
        shuffled, plain = asked.of(self.name), asked.of("identity")
        if not shuffled:
            return found.findings()
        for by in ("label", "position"):
            found.add(
                SelectionBias,
                f"{rule}, ids shuffled, by {by}",
                lambda by=by: selection_bias(shuffled, by=by, **run.estimation),  # type: ignore[misc]
            )
        found.add(
            PairedDifference,
            f"{rule}, identity versus ids shuffled",
            lambda: paired_difference(
                plain,
                shuffled,
                names=("identity", "ids shuffled"),
                clusters=run.clusters,
                **run.estimation,
            ),
        )
        return found.findings()
