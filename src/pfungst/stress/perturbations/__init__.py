"""Perturbations of a stress run, one module each (:class:`~pfungst.stress.perturbations.base.Perturbation`).

:data:`PERTURBATIONS` lists them in run order; installed packages add their own through the
``pfungst.perturbations`` entry-point group. ``pfungst formats --what perturbations``, :class:`StressConfig`'s
checks and the suite all read this one registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pfungst.errors import ConfigError
from pfungst.registry import Registry
from pfungst.stress.perturbations.params import coerce_params, parse_spec

__all__ = ["PERTURBATIONS", "build_perturbation", "get_perturbation", "perturbation_inputs", "resolve_perturbations"]

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
        "pride": f"{_HERE}.pride.perturbation:PridePerturbation",
        "rules": f"{_HERE}.rules:RulesPerturbation",
        "formats": f"{_HERE}.formats.perturbation:FormatsPerturbation",
        "spread-search": f"{_HERE}.spread_search.perturbation:SpreadSearchPerturbation",
        "instructions": f"{_HERE}.instructions:InstructionsPerturbation",
        "choices-only": f"{_HERE}.choices_only.perturbation:ChoicesOnlyPerturbation",
        "none-of-the-above": f"{_HERE}.none_of_the_above.perturbation:NoneOfTheAbovePerturbation",
        "letter-text": f"{_HERE}.letter_text.perturbation:LetterTextPerturbation",
    },
    group="pfungst.perturbations",
)
"""Perturbation name -> its class (or an instance), as ``"module:Name"``; the order is the run's order. A class is
built with the parameters given (``-p pride:fraction=0.1``), or none."""


def get_perturbation(name: str, **params: Any) -> Any:
    """The perturbation registered as ``name``, built with ``params`` (text values converted to the parameters'
    types: :func:`~pfungst.stress.perturbations.params.coerce_params`).

    Raises:
        ConfigError: an unknown name (close matches and every name listed), an unknown parameter (its parameters
            listed), a value out of range (the perturbation says which), or an entry that is not a
            :class:`~pfungst.stress.perturbations.base.Perturbation`.

    Example:
        >>> get_perturbation("pride", fraction="0.1").fraction
        0.1
    """
    from pfungst.stress.perturbations.base import Perturbation  # base brings the engine and NumPy: only when used

    target = PERTURBATIONS.resolve(name)
    if not isinstance(target, type) and params:
        raise ConfigError(f"perturbation '{name}' is registered as an instance and takes no parameters")
    with PERTURBATIONS.plugin_code(name, "construction"):
        perturbation = target(**coerce_params(name, target, params)) if isinstance(target, type) else target
    if not isinstance(perturbation, Perturbation) or perturbation.name != name:
        raise ConfigError(
            f"perturbation '{name}' ({PERTURBATIONS[name]!r}) is not a Perturbation named '{name}': it needs name, "
            "description, stage, results, plan(run, asked) and analyse(run, asked)"
        )
    return perturbation


def build_perturbation(spec: Any) -> Any:
    """A perturbation from a name (``"pride"``), a spec written ``"pride:fraction=0.1"``, a recorded
    ``{"name": ..., "params": {...}}`` or an instance (returned as it is, once checked).

    Raises:
        ConfigError: as :func:`get_perturbation`, or a spec of none of these forms.
    """
    from pfungst.stress.perturbations.base import Perturbation

    if isinstance(spec, str):
        name, params = parse_spec(spec)
        return get_perturbation(name, **params)
    if isinstance(spec, Mapping) and isinstance(spec.get("name"), str) and isinstance(spec.get("params", {}), Mapping):
        return get_perturbation(spec["name"], **spec.get("params", {}))
    if isinstance(spec, Perturbation) and not isinstance(spec, type):
        PERTURBATIONS.check(spec.name)
        return spec
    raise ConfigError(
        f"a perturbation is a name, 'name:key=value', {{'name', 'params'}} or a Perturbation, found {spec!r:.60}"
    )


def perturbation_inputs(specs: Iterable[Any]) -> list[Path]:
    """The files the perturbations written ``name:key=value`` read: each value given to a parameter annotated
    ``Path`` (``-p instructions:file=paraphrases.txt``), so that no output may overwrite one.

    Raises:
        ConfigError: as :func:`get_perturbation`.
    """
    found: list[Path] = []
    for spec in specs:
        if isinstance(spec, str):
            name, params = parse_spec(spec)
            target = PERTURBATIONS.resolve(name)
            if isinstance(target, type):
                found += [v for v in coerce_params(name, target, params).values() if isinstance(v, Path)]
    return found


def resolve_perturbations(specs: Iterable[Any]) -> tuple[Any, ...]:
    """Every perturbation of a run, built and in registry order, ``identity`` first (added when not given).

    Raises:
        ConfigError: as :func:`build_perturbation`, or one perturbation given twice.
    """
    built: dict[str, Any] = {}
    for spec in specs:
        perturbation = build_perturbation(spec)
        if perturbation.name in built:
            raise ConfigError(
                f"perturbation '{perturbation.name}' is given twice; give it once, with all its parameters"
            )
        built[perturbation.name] = perturbation
    built.setdefault("identity", get_perturbation("identity"))
    return tuple(built[name] for name in PERTURBATIONS if name in built)
