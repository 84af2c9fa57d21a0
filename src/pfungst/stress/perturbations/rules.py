"""``rules``: the plain items under every scoring rule compared (``--rules``): accuracy and selection bias per rule."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Identity
from pfungst.stress.metrics import SelectionBias, selection_bias
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, FindingsBuilder, StressRun

__all__ = ["RulesPerturbation"]


class RulesPerturbation:
    """Each item once under each compared rule (the variant is the rule's name): selection bias per rule."""

    name = "rules"
    description = "every scoring rule in --rules on the plain items: accuracy and selection bias per rule"
    stage = FIRST_PASS

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Rule after rule, every item."""
        return [
            cell
            for rule in run.config.compared_rules()
            for item in run.benchmark
            for cell in run.cells(item, Identity(), self.name, rule=rule, label=rule.name)
        ]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Selection bias by position under each rule (subject ``<rule>, rules``: the main rule's plain pass is
        ``<rule>, identity`` already, and one kind and subject name one analysis)."""
        found = FindingsBuilder(self.name, run.config.run.rule)
        outcomes = asked.of(self.name)
        for rule in dict.fromkeys(o.rule for o in outcomes):
            chosen = [o for o in outcomes if o.rule == rule]
            found.add(
                SelectionBias,
                f"{rule}, rules, by position",
                lambda chosen=chosen: selection_bias(chosen, by="position", **run.estimation),  # type: ignore[misc]
                rule=rule,
            )
        return found.findings()
