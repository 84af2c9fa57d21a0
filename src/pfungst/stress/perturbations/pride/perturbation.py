"""``pride``: PriDe debiasing (Zheng et al. 2024): the ID prior from cyclic passes on a K% sample of items, one
debiased pass for the rest. Reuses ``cyclic``'s passes when that runs too."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from pfungst.data.item import Item
from pfungst.evaluate.engine import Cell
from pfungst.stress.costs import PLAIN, cost_of
from pfungst.stress.metrics import SelectionBias, selection_bias
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, FindingsBuilder, StressRun, scores_warning
from pfungst.stress.perturbations.cyclic import Cyclic
from pfungst.stress.perturbations.params import check_param
from pfungst.stress.perturbations.pride.estimate import choose_estimation_items, run_pride
from pfungst.stress.perturbations.pride.result import PrideResult

__all__ = ["ESTIMATE", "PridePerturbation", "pride_items"]

ESTIMATE = "pride-estimate"
"""The label of PriDe's own cyclic passes (asked only when ``cyclic`` does not run)."""
_ROTATIONS = "cyclic"


def pride_items(items: Sequence[Item], fraction: float, seed: int) -> tuple[str, ...]:
    """The seeded sample of items whose cyclic passes estimate PriDe's prior, drawn per option count so that every
    count present gets a prior (at least one item each), in benchmark order."""
    groups: dict[int, list[str]] = defaultdict(list)
    for item in items:
        groups[item.n_options].append(item.id)
    chosen = {item_id for n, ids in groups.items() for item_id in choose_estimation_items(ids, fraction, seed + n)}
    return tuple(item.id for item in items if item.id in chosen)


@dataclass(frozen=True)
class PridePerturbation:
    """The prior over positions from every rotation of a sample of items; every item debiased: accuracy before and
    after, the debiased answers' selection bias, and what it costs alone.

    Raises:
        ConfigError: ``fraction`` is not a number in (0, 1].
    """

    name: ClassVar[str] = "pride"
    description: ClassVar[str] = (
        "PriDe: ID prior from cyclic passes on a sample (fraction), a debiased pass for the rest"
    )
    stage: ClassVar[int] = FIRST_PASS

    fraction: float = 0.05
    """Share of items (a seeded sample, at least one per option count) whose cyclic passes estimate the prior."""

    def __post_init__(self) -> None:
        value = self.fraction
        ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1
        check_param(self.name, "fraction", value, ok, "a number in (0, 1] (0.05 is 5% of items)")

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Every rotation of the estimation items, unless ``cyclic`` asks them anyway (none under a rule without
        option scores)."""
        if not run.config.rule_scores_options or _ROTATIONS in run.config.names:
            return []
        chosen = set(pride_items(list(run.benchmark), self.fraction, run.config.run.seed))
        return [cell for item in run.benchmark if item.id in chosen for cell in run.cells(item, Cyclic(), ESTIMATE)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """The prior, the debiased accuracy and answers, their selection bias, and the cost of PriDe alone."""
        rule = run.config.run.rule
        found = FindingsBuilder(self.name, rule)
        if not run.config.rule_scores_options:
            found.warnings.append(scores_warning(self.name, rule))
            return found.findings()
        estimation_items = pride_items(list(run.benchmark), self.fraction, run.config.run.seed)
        estimation = set(estimation_items)
        rotations = asked.of(_ROTATIONS) or asked.of(ESTIMATE)
        cyclic = [o for o in rotations if o.item_id in estimation]
        plain = asked.of(PLAIN)
        result = found.add(
            PrideResult,
            f"{rule}, K = {self.fraction:.0%}",
            lambda: run_pride(plain, cyclic, estimation_items, fraction=self.fraction),
        )
        if isinstance(result, PrideResult):
            debiased = list(result.outcomes)
            found.outcomes.extend(debiased)
            found.add(
                SelectionBias,
                f"{rule}, PriDe debiased, by position",
                lambda: selection_bias(debiased, by="position", **run.estimation),
                variant="debiased",
            )
        source = _ROTATIONS if any(p.cell.perturbation == _ROTATIONS for p in asked.plans) else ESTIMATE
        own = [
            plan
            for plan in asked.plans
            if (plan.cell.perturbation == source) == (plan.cell.presentation.arranged.item.id in estimation)
            and plan.cell.perturbation in (source, PLAIN)
        ]
        found.costs.append(cost_of(self.name, own, asked.plans))
        return found.findings()
