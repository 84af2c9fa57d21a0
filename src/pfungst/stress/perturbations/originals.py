"""The plain (unedited) questions a probe compares its edited questions with, under each rule, asked only once.

The main rule's plain questions are ``identity``'s; another rule's are ``rules``' when that perturbation runs and
compares it; otherwise the probe asks them itself, as its variant ``original``. The cache and the engine's
de-duplication make a question asked twice cost nothing twice, but asking them once keeps the accuracy table free of
copies.
"""

from __future__ import annotations

from collections.abc import Sequence

from pfungst.evaluate.engine import Cell
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.scoring import ScoringRule
from pfungst.evaluate.variants import Identity
from pfungst.stress.perturbations.base import Asked, StressRun

__all__ = ["ORIGINAL", "original_cells", "original_outcomes", "probe_rules"]

ORIGINAL = "original"
"""The variant name of the plain questions a probe asks itself."""


def probe_rules(run: StressRun) -> tuple[ScoringRule, ...]:
    """The main rule, then every rule of ``--rules``, each once: the rules a probe reports."""
    return tuple(run.config.run.rule_named(name) for name in dict.fromkeys((run.config.run.rule, *run.config.rules)))


def _covered(run: StressRun, rule: str) -> str:
    """The perturbation that asks the plain questions under ``rule`` anyway (empty when none does)."""
    if rule == run.config.run.rule:
        return "identity"
    if "rules" in run.config.names and rule in run.config.rules:
        return "rules"
    return ""


def original_cells(run: StressRun, perturbation: str, rules: Sequence[ScoringRule]) -> list[Cell]:
    """The plain questions under each of ``rules`` that no other perturbation of the run asks."""
    return [
        cell
        for rule in rules
        if not _covered(run, rule.name)
        for item in run.benchmark
        for cell in run.cells(item, Identity(), perturbation, rule=rule, label=ORIGINAL)
    ]


def original_outcomes(run: StressRun, asked: Asked, perturbation: str, rule: str) -> list[Outcome]:
    """The plain questions' outcomes under ``rule``, from whichever perturbation asked them."""
    source = _covered(run, rule)
    if source == "identity":
        return asked.of("identity")
    if source == "rules":
        return [o for o in asked.of("rules") if o.rule == rule]
    return [o for o in asked.of(perturbation) if o.variant == ORIGINAL and o.rule == rule]
