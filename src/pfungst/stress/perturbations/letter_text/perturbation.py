"""``letter-text``: every item under ``letter`` and ``generate`` (Wang et al. 2024, "My Answer is C"): how often the
label-probability choice and the generated answer agree, each one's accuracy, and the cross-table."""

from __future__ import annotations

from pfungst.evaluate.engine import Cell
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, FindingsBuilder, StressRun
from pfungst.stress.perturbations.letter_text.metric import LetterTextAgreement, letter_text_agreement
from pfungst.stress.perturbations.originals import original_cells, original_outcomes

__all__ = ["LetterTextPerturbation"]

_RULES = ("letter", "generate")


class LetterTextPerturbation:
    """The plain items under ``letter`` and ``generate`` (asked here only where ``identity`` or ``rules`` does not
    ask them already), compared item by item."""

    name = "letter-text"
    description = "letter probabilities versus the generated answer: agreement, accuracy of each, cross-table"
    stage = FIRST_PASS

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """The plain questions under either rule that no other perturbation asks."""
        return original_cells(run, self.name, [run.config.run.rule_named(name) for name in _RULES])

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Agreement of the two rules' choices."""
        found = FindingsBuilder(self.name, "letter")
        letter, text = (original_outcomes(run, asked, self.name, name) for name in _RULES)
        if letter and text:
            found.add(
                LetterTextAgreement,
                "letter versus generate",
                lambda: letter_text_agreement(letter, text, **run.estimation),
            )
        return found.findings()
