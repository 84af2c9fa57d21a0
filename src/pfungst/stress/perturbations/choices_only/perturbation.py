"""``choices-only``: every item asked with its question removed, under every rule (Balepur, Ravichander & Rudinger
2024): accuracy against chance and the majority position, against the full question, and the items solved anyway."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, FindingsBuilder, StressRun
from pfungst.stress.perturbations.choices_only.metric import ChoicesOnlyAccuracy, choices_only_accuracy
from pfungst.stress.perturbations.choices_only.variant import ChoicesOnly
from pfungst.stress.perturbations.originals import original_cells, original_outcomes, probe_rules

__all__ = ["ChoicesOnlyPerturbation"]

_VARIANT = "choices only"


class ChoicesOnlyPerturbation:
    """Each item without its question (options and format unchanged) under the main rule and each of ``--rules``;
    under cloze rules, which never show the options, this is the options' prior likelihood."""

    name = "choices-only"
    description = "the question removed, options kept, under every rule: accuracy vs chance, majority, full question"
    stage = FIRST_PASS

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Every item without its question under each rule, and the plain questions no other perturbation asks."""
        rules = probe_rules(run)
        edited = [
            cell
            for rule in rules
            for item in run.benchmark
            for cell in run.cells(item, ChoicesOnly(), self.name, rule=rule)
        ]
        return edited + original_cells(run, self.name, rules)

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """The choices-only accuracy of each rule against its baselines and the full questions."""
        found = FindingsBuilder(self.name, run.config.run.rule)
        outcomes = asked.of(self.name)
        for rule in probe_rules(run):
            mine = [o for o in outcomes if o.rule == rule.name and o.variant == _VARIANT]
            if not mine:
                continue
            full = original_outcomes(run, asked, self.name, rule.name)
            found.add(
                ChoicesOnlyAccuracy,
                f"{rule.name}, question removed",
                lambda mine=mine, full=full: choices_only_accuracy(mine, full, **run.estimation),  # type: ignore[misc]
                rule=rule.name,
            )
        return found.findings()
