"""``none-of-the-above``: WiCkeD (arXiv 2502.18316): a seeded half of the items with the gold replaced by "None of the
above" (then the gold), the other half with one distractor replaced; accuracy change per rule, paired by item."""

from __future__ import annotations

from collections.abc import Sequence

from pfungst.data.item import Item
from pfungst.evaluate.engine import Cell
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, FindingsBuilder, StressRun
from pfungst.stress.perturbations.none_of_the_above.metric import (
    DISTRACTOR_REPLACED,
    GOLD_REPLACED,
    NoneOfTheAboveEffect,
    none_of_the_above_effect,
)
from pfungst.stress.perturbations.none_of_the_above.variant import (
    NoneOfTheAbove,
    assign_replacements,
    has_collective_option,
)
from pfungst.stress.perturbations.originals import original_cells, original_outcomes, probe_rules

__all__ = ["NoneOfTheAbovePerturbation"]


def _eligible(items: Sequence[Item]) -> tuple[list[Item], list[str]]:
    """The items to substitute, and the ids of those skipped because an option already refers to the others."""
    skipped = [item.id for item in items if has_collective_option(item)]
    return [item for item in items if item.id not in set(skipped)], skipped


class NoneOfTheAbovePerturbation:
    """Each item (but those already offering "none / all of the above") with one option replaced by "None of the
    above", put last, under the main rule and each of ``--rules``."""

    name = "none-of-the-above"
    description = 'WiCkeD: gold or a distractor replaced by "None of the above": accuracy change per rule, paired'
    stage = FIRST_PASS

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """The substituted items under each rule, and the plain questions no other perturbation asks."""
        items, _ = _eligible(list(run.benchmark))
        variant = NoneOfTheAbove(assign_replacements(items, run.config.run.seed))
        rules = probe_rules(run)
        edited = [
            cell
            for rule in rules
            for item in items
            if item.id in variant.replaced
            for cell in run.cells(item, variant, self.name, rule=rule)
        ]
        return edited + original_cells(run, self.name, rules)

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """The accuracy change of each rule, overall and per half."""
        found = FindingsBuilder(self.name, run.config.run.rule)
        _, skipped = _eligible(list(run.benchmark))
        outcomes = asked.of(self.name)
        for rule in probe_rules(run):
            mine = [o for o in outcomes if o.rule == rule.name and o.variant in (GOLD_REPLACED, DISTRACTOR_REPLACED)]
            if not mine:
                continue
            plain = original_outcomes(run, asked, self.name, rule.name)
            found.add(
                NoneOfTheAboveEffect,
                f"{rule.name}, one option replaced",
                lambda mine=mine, plain=plain: none_of_the_above_effect(  # type: ignore[misc]
                    mine, plain, skipped=skipped, **run.estimation
                ),
                rule=rule.name,
            )
        if skipped:
            found.warnings.append(
                f"none-of-the-above: {len(skipped)} items skipped: an option already refers to the others "
                f"(e.g. '{skipped[0]}')"
            )
        return found.findings()
