"""A stress run's short answer (``StressResult.summary_lines()``): what ``pfungst stress`` prints by default.

The verdict's finding in one sentence, the plain accuracy against chance, each measured check against its threshold,
and, last, where the model's answers are cached (a rerun asks the model only what is not there yet). Every table is
in the result file and prints with ``--verbose``. Nothing is computed here: each figure is read from the result.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pfungst.blocks import format_estimate, format_number, short_model

if TYPE_CHECKING:
    from pfungst.stress.comparison import StressComparison
    from pfungst.stress.stress_result import StressResult

__all__ = ["comparison_summary_lines", "stress_summary_lines"]

_CHECK_WORDS = {"bad": "above it (interval)", "warn": "above it (value only)", "good": "below it"}
"""How a measured check reads against its threshold."""


def stress_summary_lines(result: StressResult) -> tuple[str, ...]:
    """What was stressed, the finding, the plain accuracy, each measured check, the warnings, the cache."""
    settings = result.provenance.settings
    title = (
        f"Stress of {short_model(result.model)} on {result.benchmark.get('name', '?')} ({result.n_items} items, "
        f"rule {settings.get('rule', '?')}, format {settings.get('format', '?')})"
    )
    lines = [title, result.verdict.finding, *_accuracy_lines(result), *_check_lines(result)]
    if result.warnings:
        lines.append(f"{len(result.warnings)} warning(s) about what was skipped: in the result file, and --verbose.")
    lines.append(cache_line(settings))
    return tuple(lines)


def comparison_summary_lines(comparison: StressComparison) -> tuple[str, ...]:
    """Per model its verdict and plain accuracy, then how far the rankings agree (Kendall's W), then the cache."""
    results = comparison.results
    benchmark = results[0].benchmark.get("name", "?") if results else "?"
    lines = [f"Stress of {len(results)} models on {benchmark}"]
    for name, result in zip(comparison.rank_stability.models, results, strict=False):
        plain = _plain(result)
        lines.append(f"{name}: {result.verdict.label}; {plain}" if plain else f"{name}: {result.verdict.label}")
    lines.append(
        f"Rankings agree across variants: Kendall's W {format_estimate(comparison.rank_stability.concordance)}."
    )
    if results:
        lines.append(cache_line(results[0].provenance.settings))
    return tuple(lines)


def cache_line(settings: dict[str, object]) -> str:
    """Where the model's answers are kept, so that a rerun is fast (``--cache`` chooses the file)."""
    cache = str(settings.get("cache") or "")
    if not cache or cache == ":memory:":
        return "Model answers were not cached (an in-memory cache): a rerun asks the model again."
    return f"Model answers are cached in {cache}: a rerun asks the model only what is not there yet (--cache FILE)."


def _accuracy_lines(result: StressResult) -> list[str]:
    plain = _plain(result)
    return [f"{plain[0].upper()}{plain[1:]}."] if plain else []


def _plain(result: StressResult) -> str:
    plain = next((a for a in result.accuracies if a.perturbation == "identity"), None)
    if plain is None:
        return ""
    chance = plain.accuracy.baseline
    against = "" if math.isnan(chance) else f" (chance {format_number(chance)})"
    return f"plain accuracy {format_estimate(plain.accuracy.to_dict())}{against}"


def _check_lines(result: StressResult) -> list[str]:
    """One sentence per measured check: its figure with the interval, against its threshold."""
    return [
        f"{check.aspect.capitalize()}: {check.name} {format_estimate(check.estimate.to_dict())}, threshold "
        f"{format_number(check.threshold)}: {_CHECK_WORDS.get(check.status, check.status)}."
        for check in result.verdict.checks
        if check.status != "info"
    ]
