"""``formats``: the base format and formats sampled from its grammar: accuracy per format and the spread (Sclar et
al. 2024)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.formats import FormatGrammar, PromptFormat
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, StressRun, own_outcomes_findings
from pfungst.stress.perturbations.formats.metric import FormatSpread, format_spread
from pfungst.stress.perturbations.params import check_count_param

__all__ = ["FormatsPerturbation"]


@dataclass(frozen=True)
class FormatsPerturbation:
    """Every item in the base format and in formats sampled from its grammar (the variant is the format's name):
    the format spread.

    Raises:
        ConfigError: ``n`` is not a whole number of at least 1.
    """

    name: ClassVar[str] = "formats"
    description: ClassVar[str] = "n formats from the format grammar: accuracy per format, spread (Sclar et al. 2024)"
    stage: ClassVar[int] = FIRST_PASS

    n: int = 8
    """Formats asked: the base format plus ``n - 1`` sampled (seeded) from its grammar."""

    def __post_init__(self) -> None:
        check_count_param(self.name, "n", self.n)

    def prompt_formats(self, run: StressRun) -> dict[str, PromptFormat]:
        """The base format (by its name) and ``format 1`` ... ``format n-1``, drawn from the run's seed."""
        formats = {run.config.run.format_name: run.base}
        if self.n > 1:
            drawn = FormatGrammar(base=run.base).sample(self.n, run.config.run.seed)
            sampled = [f for f in drawn if f != run.base][: self.n - 1]
            formats.update({f"format {index}": f for index, f in enumerate(sampled, start=1)})
        return formats

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Format after format, every item."""
        return run.format_cells(self.name, self.prompt_formats(run))

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Accuracy per format, best minus worst."""
        formats = len({o.format for o in asked.of(self.name)})
        return own_outcomes_findings(self.name, run, asked, FormatSpread, f"{formats} formats", format_spread)
