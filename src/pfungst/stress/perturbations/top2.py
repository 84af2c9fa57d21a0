"""``top2``: the model's two favourite options next to each other versus at the two ends (Pezeshkpour & Hruschka
2024); planned from the plain pass's scores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.engine import Cell, plan_cell
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.variants import Presentation
from pfungst.stress.metrics import PairedDifference, paired_difference
from pfungst.stress.perturbations.base import (
    AFTER_FIRST_PASS,
    Asked,
    Findings,
    FindingsBuilder,
    StressRun,
    scores_warning,
)

__all__ = ["TopTwoPerturbation", "TopTwo"]


@dataclass(frozen=True)
class TopTwo:
    """The model's two favourite options placed next to each other (positions 1 and 2) or at the two ends (first and
    last), the rest in original order between (Pezeshkpour & Hruschka 2024). Needs the model's top two per item."""

    top: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Item id -> original indices of the model's first and second choice in a plain pass."""
    name: str = "top2"

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """``adjacent`` and ``ends``; an item with fewer than 3 options has no distinct pair and gets none."""
        if item.id not in self.top:
            raise ConfigError(f"top2: no first and second choice known for item '{item.id}'; run a plain pass first")
        first, second = self.top[item.id]
        if item.n_options < 3:
            return ()
        rest = [index for index in range(item.n_options) if index not in (first, second)]
        return (
            Presentation("adjacent", ArrangedItem(item, (first, second, *rest))),
            Presentation("ends", ArrangedItem(item, (first, *rest, second))),
        )


class TopTwoPerturbation:
    """Each item with at least three options, its plain pass's first and second choice placed adjacent (positions 1
    and 2) and at the ends: accuracy of both and their paired difference."""

    name = "top2"
    description = "the model's top two options adjacent versus at the two ends (Pezeshkpour & Hruschka 2024)"
    stage = AFTER_FIRST_PASS

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Both placements of every item the plain pass ranked (none under a rule without option scores)."""
        if not run.config.rule_scores_options:
            return []
        top = {o.item_id: _top_two(o) for o in asked.of("identity") if o.status == "ok" and o.n_options >= 3}
        variant = TopTwo(top)
        return [cell for item in run.benchmark if item.id in top for cell in run.cells(item, variant, self.name)]

    def max_requests(self, run: StressRun) -> int:
        """The most requests it may send, known before the first pass: both placements of every item with three or
        more options (each placement costs what its rule asks of the item, whatever the order). Items the plain
        pass could not rank, questions it shares with the first pass and cached answers only lower it."""
        if not run.config.rule_scores_options:
            return 0
        placeholder = TopTwo({item.id: (0, 1) for item in run.benchmark if item.n_options >= 3})
        cells = [
            cell
            for item in run.benchmark
            if item.id in placeholder.top
            for cell in run.cells(item, placeholder, self.name)
        ]
        return sum(len(plan_cell(cell).requests) for cell in cells)

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Accuracy adjacent versus at the ends, paired by item."""
        found = FindingsBuilder(self.name, run.config.run.rule)
        if not run.config.rule_scores_options:
            found.warnings.append(scores_warning(self.name, run.config.run.rule))
            return found.findings()
        outcomes = asked.of(self.name)
        if outcomes:
            found.add(
                PairedDifference,
                f"{run.config.run.rule}, top two adjacent versus at the ends",
                lambda: paired_difference(
                    [o for o in outcomes if o.variant == "adjacent"],
                    [o for o in outcomes if o.variant == "ends"],
                    names=("adjacent", "ends"),
                    clusters=run.clusters,
                    **run.estimation,
                ),
            )
        return found.findings()


def _top_two(outcome: Outcome) -> tuple[int, int]:
    """The original indices of the outcome's two highest-scored options (ties to the earlier position)."""
    ranked = sorted(range(outcome.n_options), key=lambda p: (-outcome.scores[p], p))
    return outcome.order[ranked[0]], outcome.order[ranked[1]]
