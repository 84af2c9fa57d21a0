"""Perturbations of a stress run, one module each (:class:`~pfungst.stress.perturbations.base.Perturbation`).

:data:`PERTURBATIONS` lists them in run order; installed packages add their own through the
``pfungst.perturbations`` entry-point group. ``pfungst formats --what perturbations``, :class:`StressConfig`'s
checks and the suite all read this one registry.
"""

from __future__ import annotations

from typing import Any

from pfungst.errors import ConfigError
from pfungst.registry import Registry

__all__ = ["PERTURBATIONS", "get_perturbation"]

_HERE = "pfungst.stress.perturbations"

PERTURBATIONS: Registry[Any] = Registry(
    "perturbation",
    {
        "identity": f"{_HERE}.identity:IdentityPerturbation",
        "cyclic": f"{_HERE}.cyclic:CyclicPerturbation",
        "permutations": f"{_HERE}.permutations:PermutationsPerturbation",
        "answer-moved": f"{_HERE}.answer_moved:AnswerMovedPerturbation",
        "ids-shuffled": f"{_HERE}.ids_shuffled:IdsShuffledPerturbation",
        "top2": f"{_HERE}.top2:TopTwoPerturbation",
        "pride": f"{_HERE}.pride:PridePerturbation",
        "rules": f"{_HERE}.rules:RulesPerturbation",
        "formats": f"{_HERE}.formats:FormatsPerturbation",
        "spread-search": f"{_HERE}.spread_search:SpreadSearchPerturbation",
        "instructions": f"{_HERE}.instructions:InstructionsPerturbation",
        "choices-only": f"{_HERE}.choices_only:ChoicesOnlyPerturbation",
        "none-of-the-above": f"{_HERE}.none_of_the_above:NoneOfTheAbovePerturbation",
        "letter-text": f"{_HERE}.letter_text:LetterTextPerturbation",
    },
    group="pfungst.perturbations",
)
"""Perturbation name -> its class (or an instance), as ``"module:Name"``; the order is the run's order."""


def get_perturbation(name: str) -> Any:
    """The perturbation registered as ``name`` (a class is built with no arguments).

    Raises:
        ConfigError: an unknown name (close matches and every name listed), or an entry that is not a
            :class:`~pfungst.stress.perturbations.base.Perturbation`.
    """
    from pfungst.stress.perturbations.base import Perturbation  # base imports the results, which read this registry

    target = PERTURBATIONS.resolve(name)
    with PERTURBATIONS.plugin_code(name, "construction"):
        perturbation = target() if isinstance(target, type) else target
    if not isinstance(perturbation, Perturbation) or perturbation.name != name:
        raise ConfigError(
            f"perturbation '{name}' ({PERTURBATIONS[name]!r}) is not a Perturbation named '{name}': it needs name, "
            "description, stage, results, plan(run, asked) and analyse(run, asked)"
        )
    return perturbation
