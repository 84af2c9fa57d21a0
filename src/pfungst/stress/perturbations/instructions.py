"""``instructions``: the base format under instruction paraphrases: MaxP, AvgP, CPS and spread (Mizrahi et al.
2024)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pfungst.errors import ConfigError
from pfungst.evaluate.engine import Cell
from pfungst.evaluate.formats import PromptFormat
from pfungst.stress.multiprompt import MultiPromptStats, multiprompt_stats
from pfungst.stress.perturbations.base import FIRST_PASS, Asked, Findings, StressRun, own_outcomes_findings
from pfungst.stress.perturbations.params import check_param

__all__ = ["BUILTIN_INSTRUCTIONS", "InstructionsPerturbation"]

BUILTIN_INSTRUCTIONS = (
    "",
    "The following is a multiple choice question. Choose the correct answer.",
    "Answer the following multiple choice question with the label of the correct option.",
    "Read the question and select the best answer from the options below.",
    "Choose the single best answer.",
    "Here is a question with several possible answers. Exactly one is correct; reply with its label.",
)
"""Instruction paraphrases always tried by ``instructions`` (the empty one is the format without instruction)."""


@dataclass(frozen=True)
class InstructionsPerturbation:
    """Every item under every instruction paraphrase (the variant is ``paraphrase N``): multi-prompt statistics.

    Raises:
        ConfigError: a paraphrase that is empty or not text, or a ``file`` that cannot be read or holds no line.
    """

    name: ClassVar[str] = "instructions"
    description: ClassVar[str] = "instruction paraphrases (texts, file): MaxP, AvgP, CPS, spread (Mizrahi et al. 2024)"
    stage: ClassVar[int] = FIRST_PASS

    texts: tuple[str, ...] = ()
    """Paraphrases of your own, tried after :data:`BUILTIN_INSTRUCTIONS`."""
    file: Path | None = None
    """A UTF-8 file of more paraphrases, one a line (blank lines skipped; a file with none is refused). It is read
    when the perturbation is built: its lines join ``texts`` and ``file`` becomes None, so the result records the
    texts themselves."""

    def __post_init__(self) -> None:
        texts = tuple(self.texts) if isinstance(self.texts, tuple | list) else (self.texts,)
        if self.file is not None:
            try:
                lines = Path(self.file).read_text(encoding="utf-8").split("\n")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(
                    f"perturbation 'instructions': parameter 'file': cannot read {self.file} ({exc})"
                ) from exc
            found = tuple(line.strip() for line in lines if line.strip())
            if not found:
                raise ConfigError(
                    f"perturbation 'instructions': parameter 'file': {self.file} holds no paraphrase (it is empty or "
                    "blank). Write one paraphrase a line, or leave file out for the built-in paraphrases alone"
                )
            texts += found
        for text in texts:
            check_param(self.name, "texts", text, isinstance(text, str) and bool(text.strip()), "non-empty texts")
        object.__setattr__(self, "texts", texts)
        object.__setattr__(self, "file", None)

    def prompt_formats(self, run: StressRun) -> dict[str, PromptFormat]:
        """The base format under each paraphrase, built-in ones first, each text once: ``paraphrase 0`` ..."""
        texts = dict.fromkeys(BUILTIN_INSTRUCTIONS + self.texts)
        return {
            f"paraphrase {index}": dataclasses.replace(run.base, instruction=text) for index, text in enumerate(texts)
        }

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Paraphrase after paraphrase, every item."""
        return run.format_cells(self.name, self.prompt_formats(run))

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """MaxP, AvgP, CPS and the spread over the paraphrases."""
        return own_outcomes_findings(
            self.name, run, asked, MultiPromptStats, "instruction paraphrases", multiprompt_stats, by="format"
        )
