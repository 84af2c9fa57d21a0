"""Stress metrics: pure functions of :class:`~pfungst.evaluate.outcome.Outcome` sequences; none calls a model.

Every figure is an :class:`~pfungst.stats.Estimate` with its interval (Wilson for shares, a percentile bootstrap
over items otherwise, with an explicit seed), the baseline it must beat, and a p-value where a test applies.
"""

from pfungst.stress.metrics.accuracy import VariantAccuracy, proportion_estimate, variant_accuracies
from pfungst.stress.metrics.arrangement_effects import (
    MovedAnswerAccuracy,
    PairedDifference,
    moved_answer_accuracy,
    paired_difference,
)
from pfungst.stress.metrics.circular import CircularMetrics, circular_metrics
from pfungst.stress.metrics.id_bias import SelectionBias, selection_bias

__all__ = [
    "MovedAnswerAccuracy",
    "CircularMetrics",
    "PairedDifference",
    "SelectionBias",
    "VariantAccuracy",
    "moved_answer_accuracy",
    "circular_metrics",
    "paired_difference",
    "proportion_estimate",
    "selection_bias",
    "variant_accuracies",
]
