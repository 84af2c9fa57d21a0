"""Stress a model: option orders, option IDs, prompt formats, instructions and scoring rules that should not change
its answers, and how much they do.

``stress(benchmark, model)`` (:func:`pfungst.stress.suite.stress`) runs the perturbations and returns a
:class:`StressResult`; ``score(benchmark, model)`` (:func:`pfungst.stress.score_run.score`) is the same run with
``identity`` alone and returns a :class:`~pfungst.evaluate.ScoreResult`; :func:`compare` ranks several models'
results. The engine it drives (formats, scoring rules,
variants, :class:`~pfungst.evaluate.Outcome`) is :mod:`pfungst.evaluate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.lazy import lazy_exports

if TYPE_CHECKING:
    from pfungst.stress.comparison import StressComparison, compare, correctness_by_variant
    from pfungst.stress.metrics import (
        CircularMetrics,
        MovedAnswerAccuracy,
        PairedDifference,
        SelectionBias,
        VariantAccuracy,
        circular_metrics,
        moved_answer_accuracy,
        paired_difference,
        selection_bias,
        variant_accuracies,
    )
    from pfungst.stress.multiprompt import MultiPromptStats, combined_performance_score, multiprompt_stats
    from pfungst.stress.perturbations import PERTURBATIONS, get_perturbation
    from pfungst.stress.perturbations.base import Perturbation
    from pfungst.stress.perturbations.choices_only.metric import ChoicesOnlyAccuracy, choices_only_accuracy
    from pfungst.stress.perturbations.formats.metric import FormatSpread, format_spread
    from pfungst.stress.perturbations.instructions import BUILTIN_INSTRUCTIONS
    from pfungst.stress.perturbations.letter_text.metric import LetterTextAgreement, letter_text_agreement
    from pfungst.stress.perturbations.none_of_the_above.metric import NoneOfTheAboveEffect, none_of_the_above_effect
    from pfungst.stress.perturbations.pride.estimate import (
        PrideResult,
        Prior,
        choose_estimation_items,
        debias,
        estimate_prior,
        run_pride,
    )
    from pfungst.stress.perturbations.spread_search.metric import SpreadSearch, search_spread
    from pfungst.stress.ranks import RankStability, rank_stability
    from pfungst.stress.score_run import score
    from pfungst.stress.stress_config import DEFAULT_PERTURBATIONS, StressConfig
    from pfungst.stress.stress_result import Analysis, PerturbationCost, StressResult, read_outcomes
    from pfungst.stress.suite import stress

__all__ = [
    "BUILTIN_INSTRUCTIONS",
    "DEFAULT_PERTURBATIONS",
    "PERTURBATIONS",
    "Analysis",
    "ChoicesOnlyAccuracy",
    "LetterTextAgreement",
    "NoneOfTheAboveEffect",
    "MovedAnswerAccuracy",
    "CircularMetrics",
    "FormatSpread",
    "MultiPromptStats",
    "PairedDifference",
    "Perturbation",
    "PerturbationCost",
    "PrideResult",
    "Prior",
    "RankStability",
    "SelectionBias",
    "SpreadSearch",
    "StressComparison",
    "StressConfig",
    "StressResult",
    "VariantAccuracy",
    "moved_answer_accuracy",
    "choices_only_accuracy",
    "choose_estimation_items",
    "circular_metrics",
    "combined_performance_score",
    "compare",
    "correctness_by_variant",
    "debias",
    "estimate_prior",
    "format_spread",
    "get_perturbation",
    "letter_text_agreement",
    "multiprompt_stats",
    "none_of_the_above_effect",
    "paired_difference",
    "run_pride",
    "rank_stability",
    "read_outcomes",
    "score",
    "search_spread",
    "selection_bias",
    "stress",
    "variant_accuracies",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "StressComparison": "pfungst.stress.comparison",
        "compare": "pfungst.stress.comparison",
        "correctness_by_variant": "pfungst.stress.comparison",
        "ChoicesOnlyAccuracy": "pfungst.stress.perturbations.choices_only.metric",
        "CircularMetrics": "pfungst.stress.metrics",
        "LetterTextAgreement": "pfungst.stress.perturbations.letter_text.metric",
        "NoneOfTheAboveEffect": "pfungst.stress.perturbations.none_of_the_above.metric",
        "choices_only_accuracy": "pfungst.stress.perturbations.choices_only.metric",
        "letter_text_agreement": "pfungst.stress.perturbations.letter_text.metric",
        "none_of_the_above_effect": "pfungst.stress.perturbations.none_of_the_above.metric",
        "MovedAnswerAccuracy": "pfungst.stress.metrics",
        "PairedDifference": "pfungst.stress.metrics",
        "SelectionBias": "pfungst.stress.metrics",
        "VariantAccuracy": "pfungst.stress.metrics",
        "circular_metrics": "pfungst.stress.metrics",
        "moved_answer_accuracy": "pfungst.stress.metrics",
        "paired_difference": "pfungst.stress.metrics",
        "selection_bias": "pfungst.stress.metrics",
        "variant_accuracies": "pfungst.stress.metrics",
        "MultiPromptStats": "pfungst.stress.multiprompt",
        "combined_performance_score": "pfungst.stress.multiprompt",
        "multiprompt_stats": "pfungst.stress.multiprompt",
        "PERTURBATIONS": "pfungst.stress.perturbations",
        "get_perturbation": "pfungst.stress.perturbations",
        "Perturbation": "pfungst.stress.perturbations.base",
        "PrideResult": "pfungst.stress.perturbations.pride.estimate",
        "Prior": "pfungst.stress.perturbations.pride.estimate",
        "choose_estimation_items": "pfungst.stress.perturbations.pride.estimate",
        "debias": "pfungst.stress.perturbations.pride.estimate",
        "estimate_prior": "pfungst.stress.perturbations.pride.estimate",
        "run_pride": "pfungst.stress.perturbations.pride.estimate",
        "RankStability": "pfungst.stress.ranks",
        "rank_stability": "pfungst.stress.ranks",
        "score": "pfungst.stress.score_run",
        "FormatSpread": "pfungst.stress.perturbations.formats.metric",
        "SpreadSearch": "pfungst.stress.perturbations.spread_search.metric",
        "format_spread": "pfungst.stress.perturbations.formats.metric",
        "search_spread": "pfungst.stress.perturbations.spread_search.metric",
        "BUILTIN_INSTRUCTIONS": "pfungst.stress.perturbations.instructions",
        "DEFAULT_PERTURBATIONS": "pfungst.stress.stress_config",
        "StressConfig": "pfungst.stress.stress_config",
        "Analysis": "pfungst.stress.stress_result",
        "PerturbationCost": "pfungst.stress.stress_result",
        "StressResult": "pfungst.stress.stress_result",
        "read_outcomes": "pfungst.stress.stress_result",
        "stress": "pfungst.stress.suite",
    },
    globals(),
)
