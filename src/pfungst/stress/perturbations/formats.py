"""``formats``: the base format and formats sampled from its grammar: accuracy per format and the spread (Sclar et
al. 2024)."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, StressRun, own_outcomes_findings
from pfungst.stress.spread import FormatSpread, format_spread

__all__ = ["FormatsPerturbation"]


class FormatsPerturbation:
    """Every item in every format of the run (the variant is the format's name): the format spread."""

    name = "formats"
    description = "formats sampled from the format grammar: accuracy per format, format spread (Sclar et al. 2024)"
    stage = FIRST_PASS
    results = (FormatSpread,)

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Format after format, every item."""
        return run.format_cells(self.name, run.formats)

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Accuracy per format, best minus worst."""
        formats = len({o.format for o in asked.of(self.name)})
        return own_outcomes_findings(self.name, run, asked, FormatSpread, f"{formats} formats", format_spread)
