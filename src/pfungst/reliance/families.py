"""Model families and the per-family test: is accuracy higher where the shortcut works, across models and datasets?

Family rule (when no mapping is given): the model's name with trailing version segments removed, repeatedly, where
a version segment (:data:`VERSION_SEGMENT`) is ``-`` followed by 3 to 8 digits (``0613``, ``003``, ``20240229``),
an ISO date (``2024-05-13``), ``preview``, ``latest`` or ``v`` and a version number (``v0.2``). So
``gpt-4-0613`` and ``gpt-4-0125-preview`` -> ``gpt-4``; ``gpt-3.5-turbo-0125`` -> ``gpt-3.5-turbo``;
``text-davinci-003`` -> ``text-davinci``; ``claude-3-opus-20240229`` -> ``claude-3-opus``; a name without a version
segment is its own family.

Per family, each (model, dataset) pair gives one accuracy on the shortcut-solvable items and one on the rest; a
one-sided paired t-test asks whether the mean difference exceeds 0 (Pacchiardi et al. 2024, second experiment),
and Benjamini-Hochberg adjusts across families. Power: :func:`pfungst.stats.detectable_difference` is the smallest
true mean difference that the test would detect with 80% probability, at that many pairs and the observed spread.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from pfungst.errors import ConfigError
from pfungst.reliance.result import FamilyTest, ModelReliance
from pfungst.stats import Estimate, benjamini_hochberg, detectable_difference, paired_t_test

__all__ = ["VERSION_SEGMENT", "family_of", "family_tests"]

VERSION_SEGMENT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{3,8}|preview|latest|v\d+(?:\.\d+)*)\Z", re.IGNORECASE)
"""A trailing version segment of a model name; :func:`family_of` removes these."""


def family_of(model: str, families: Mapping[str, str] | None = None) -> str:
    """The family of ``model``: from ``families`` when given, else by the version rule of the module docstring.

    Raises:
        ConfigError: ``families`` is given and has no entry for ``model``.

    Example:
        >>> [family_of(m) for m in ("gpt-4-0125-preview", "gpt-3.5-turbo-0613", "text-davinci-003", "llama-3-8b")]
        ['gpt-4', 'gpt-3.5-turbo', 'text-davinci', 'llama-3-8b']
    """
    if families is not None:
        if model not in families:
            raise ConfigError(
                f"model {model!r} has no family in the families mapping (it names "
                f"{len(families)} models). Add it, or pass families=None for the name rule."
            )
        return families[model]
    name = model
    while (match := VERSION_SEGMENT.search(name)) and match.start() > 0:
        name = name[: match.start()]
    return name


def family_tests(
    models: Sequence[ModelReliance], alpha: float = 0.05, level: float = 0.95, power: float = 0.8
) -> tuple[FamilyTest, ...]:
    """One paired t-test per family over its (model, dataset) pairs, then Benjamini-Hochberg across families.

    Pairs where either side has no items are left out (and said so in the note). Families without a p-value (fewer
    than 2 pairs, or differences that do not vary) get NaN q-values and are not part of the adjustment. The
    within-label test (mean ``difference_within_label`` > 0) is adjusted across families separately.
    """
    grouped: dict[str, list[ModelReliance]] = {}
    for entry in models:
        grouped.setdefault(entry.family, []).append(entry)
    tests = [_family_test(name, members, alpha, level, power) for name, members in grouped.items()]
    raw = _adjust([t.test.pvalue for t in tests], alpha)
    within = _adjust([t.within_label.pvalue for t in tests], alpha)
    return tuple(
        replace(
            test,
            qvalue=raw[i][0],
            rejected=raw[i][1],
            qvalue_within_label=within[i][0],
            rejected_within_label=within[i][1],
        )
        for i, test in enumerate(tests)
    )


def _adjust(pvalues: list[float], alpha: float) -> list[tuple[float, bool]]:
    """(q-value, rejected) per p-value; NaN p-values stay out of the adjustment and get (NaN, False)."""
    adjusted = benjamini_hochberg(pvalues, alpha=alpha, nan_policy="omit")
    return list(zip(adjusted.qvalues, adjusted.rejected, strict=True))


def _one_sided_t(first: np.ndarray, second: np.ndarray, level: float) -> tuple[Estimate, float]:
    """The one-sided paired t-test of ``first - second`` > 0 and the SD of the differences (needs 2 pairs)."""
    if first.size < 2:
        mean = float(np.mean(first - second)) if first.size else math.nan
        return Estimate(
            value=mean, method="paired t-test: not run (fewer than 2 pairs)", n=int(first.size), baseline=0.0
        ), math.nan
    return (paired_t_test(first, second, alternative="greater", level=level), float(np.std(first - second, ddof=1)))


def _family_test(name: str, members: list[ModelReliance], alpha: float, level: float, power: float) -> FamilyTest:
    usable = [m for m in members if m.n_solvable > 0 and m.n_rest > 0]
    left_out = len(members) - len(usable)
    notes = [f"{left_out} pair(s) left out: no items on one side"] if left_out else []
    solvable = np.array([m.accuracy_solvable.value for m in usable], dtype=float)
    rest = np.array([m.accuracy_rest.value for m in usable], dtype=float)
    test, sd = _one_sided_t(solvable, rest, level)
    if len(usable) < 2:
        notes.append(f"{len(usable)} usable pair(s): a paired t-test needs at least 2")
    elif math.isnan(test.pvalue):
        notes.append("the differences do not vary: no t statistic")
    within = np.array(
        [m.difference_within_label.value for m in usable if not math.isnan(m.difference_within_label.value)],
        dtype=float,
    )
    within_test, within_sd = _one_sided_t(within, np.zeros_like(within), level)
    return FamilyTest(
        family=name,
        models=tuple(dict.fromkeys(m.model for m in members)),
        datasets=tuple(dict.fromkeys(m.dataset for m in members)),
        n_pairs=len(usable),
        test=test,
        sd_difference=sd,
        detectable_difference=detectable_difference(len(usable), sd, alpha, power),
        qvalue=math.nan,
        rejected=False,
        within_label=within_test,
        qvalue_within_label=math.nan,
        rejected_within_label=False,
        detectable_within_label=detectable_difference(within.size, within_sd, alpha, power),
        note="; ".join(notes),
        alpha=alpha,
        power=power,
    )
