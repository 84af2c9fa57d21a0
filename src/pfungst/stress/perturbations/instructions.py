"""``instructions``: the base format under instruction paraphrases: MaxP, AvgP, CPS and spread (Mizrahi et al.
2024)."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.stress.multiprompt import MultiPromptStats, multiprompt_stats
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, StressRun, own_outcomes_findings

__all__ = ["InstructionsPerturbation"]


class InstructionsPerturbation:
    """Every item under every instruction paraphrase (the variant is ``paraphrase N``): multi-prompt statistics."""

    name = "instructions"
    description = "instruction paraphrases: MaxP, AvgP, CPS and spread (Mizrahi et al. 2024)"
    stage = FIRST_PASS
    results = (MultiPromptStats,)

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Paraphrase after paraphrase, every item."""
        return run.format_cells(self.name, run.paraphrases)

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """MaxP, AvgP, CPS and the spread over the paraphrases."""
        return own_outcomes_findings(
            self.name, run, asked, MultiPromptStats, "instruction paraphrases", multiprompt_stats, by="format"
        )
