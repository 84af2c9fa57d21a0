"""``formats``: the base format and formats sampled from its grammar: accuracy per format and the spread (Sclar et
al. 2024)."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, FindingsBuilder, StressRun
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
        found = FindingsBuilder(self.name, run.config.rule)
        outcomes = asked.of(self.name)
        if outcomes:
            found.add(
                FormatSpread,
                f"{run.config.rule}, {len({o.format for o in outcomes})} formats",
                lambda: format_spread(outcomes, **run.estimation),
            )
        return found.findings()
