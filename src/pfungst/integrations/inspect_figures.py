"""The arrangement figures of an expanded inspect task, computed from its outcomes by pfungst's stress metrics.

inspect's metrics (:mod:`pfungst.integrations.inspect_ai`) report the values of these figures in its log and viewer;
:func:`arrangement_figures` computes the same figures with their intervals from the log read back
(:func:`pfungst.integrations.inspect_log.read_inspect_log`), so the two can be compared number for number. Needs no
inspect_ai.

- accuracy: share of arranged samples answered right (Wilson interval, chance baseline);
- per-position accuracy and RStd: :func:`~pfungst.stress.metrics.selection_bias` by position over every arranged
  sample (each sample counts once: an item asked in its n cyclic rotations has its gold once at each position);
- circular accuracy and consistency: :func:`~pfungst.stress.metrics.circular_metrics` over the arrangements of each
  perturbation that asks an item more than once (cyclic, permutations, answer-moved).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import accuracy_estimate
from pfungst.stats import Estimate
from pfungst.stress.metrics import (
    CircularMetrics,
    SelectionBias,
    VariantAccuracy,
    circular_metrics,
    selection_bias,
    variant_accuracies,
)

__all__ = ["ArrangementFigures", "arrangement_figures", "circular_perturbations"]


@dataclass(frozen=True)
class ArrangementFigures:
    """Accuracy, per-position accuracy, RStd, and circular accuracy and consistency per perturbation."""

    accuracy: Estimate
    """Share of arranged samples answered right; Wilson interval; baseline chance (mean ``1 / K``)."""
    positions: SelectionBias
    """Recall per gold position (1-based) and RStd over every arranged sample."""
    circular: Mapping[str, CircularMetrics]
    """Perturbation -> circular accuracy, consistency and fluctuation over its arrangements (only perturbations
    that ask an item more than once, and only where every item has its original order among them)."""
    variants: tuple[VariantAccuracy, ...]
    """Accuracy of each perturbation's variant (``cyclic`` ``shift 1``, ``answer-moved`` ``slot 3``), Wilson
    intervals: the answer-moving attack reads off the ``slot`` rows."""
    n_samples: int
    """Arranged samples (outcomes) the figures rest on."""
    n_items: int
    """Distinct original items."""
    warnings: tuple[str, ...] = ()
    """Why a perturbation has no circular figures (an item without its original order: a run cut short)."""
    not_computed: tuple[str, ...] = ()
    """Perturbations that ask items more than once but whose circular figures could not be computed."""

    def values(self) -> dict[str, float]:
        """Figure name -> value, named as the inspect metrics name them in the log (``accuracy``, ``position_1``,
        ``rstd``, ``circular_accuracy_cyclic``, ``consistency_cyclic``)."""
        found = {"accuracy": self.accuracy.value, **position_values(self.positions), "rstd": self.positions.rstd.value}
        for perturbation, metrics in self.circular.items():
            found[f"circular_accuracy_{perturbation}"] = metrics.circular.value
            found[f"consistency_{perturbation}"] = metrics.consistency.value
        for perturbation in self.not_computed:
            found[f"circular_accuracy_{perturbation}"] = found[f"consistency_{perturbation}"] = math.nan
        return found

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "accuracy": self.accuracy.to_dict(),
            "positions": self.positions.to_dict(),
            "circular": {name: metrics.to_dict() for name, metrics in self.circular.items()},
            "variants": [variant.to_dict() for variant in self.variants],
            "n_samples": self.n_samples,
            "n_items": self.n_items,
            "warnings": list(self.warnings),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per figure: ``name``, ``value``, ``value_low``, ``value_high`` (:meth:`Estimate.columns
        <pfungst.stats.estimate.Estimate.columns>`; NaN bounds without an interval), ``baseline``, ``n`` (the figures
        of :meth:`values`, then the accuracy of each variant)."""
        estimates: list[tuple[str, Estimate]] = [("accuracy", self.accuracy)]
        positions = zip(self.positions.ids, self.positions.recalls, strict=True)
        estimates += [(f"position_{name}", recall) for name, recall in positions]
        estimates.append(("rstd", self.positions.rstd))
        for perturbation, metrics in self.circular.items():
            estimates += [
                (f"circular_accuracy_{perturbation}", metrics.circular),
                (f"consistency_{perturbation}", metrics.consistency),
            ]
        estimates += [(f"accuracy {v.perturbation}: {v.variant}", v.accuracy) for v in self.variants]
        return pd.DataFrame(
            [
                {
                    "name": name,
                    **estimate.columns("value"),
                    "baseline": estimate.baseline,
                    "n": estimate.n,
                }
                for name, estimate in estimates
            ]
        )

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value:.3f}" for name, value in self.values().items())
        return f"ArrangementFigures({shown}, n_samples={self.n_samples})"


def position_values(positions: SelectionBias) -> dict[str, float]:
    """``position_1``, ``position_2``, ... -> recall where the gold was shown there (NaN where it never was)."""
    return {f"position_{name}": recall.value for name, recall in zip(positions.ids, positions.recalls, strict=True)}


def circular_perturbations(outcomes: Sequence[Outcome]) -> list[str]:
    """The perturbations, in first-seen order, that asked some item in more than one arrangement."""
    counts: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        per_item = counts.setdefault(outcome.perturbation, {})
        per_item[outcome.item_id] = per_item.get(outcome.item_id, 0) + 1
    return [name for name, per_item in counts.items() if max(per_item.values()) > 1]


def per_sample(outcomes: Sequence[Outcome]) -> list[Outcome]:
    """The outcomes with each (item, perturbation, variant) as an item of its own, so that selection bias, which
    takes one outcome per item, counts every arranged sample."""
    return [
        dataclasses.replace(outcome, item_id=f"{outcome.item_id}|{outcome.perturbation}|{outcome.variant}")
        for outcome in outcomes
    ]


def arrangement_figures(
    outcomes: Sequence[Outcome], *, seed: int = 0, n_bootstrap: int = 1000, level: float = 0.95
) -> ArrangementFigures:
    """The figures of an expanded task's outcomes (one scoring rule and format).

    Args:
        outcomes: Every scored sample, as :func:`~pfungst.integrations.inspect_samples.outcome_from_metadata` gives.
        seed: Seed of the bootstrap intervals.
        n_bootstrap: Bootstrap resamples (0: values without bootstrap intervals, as the inspect metrics use).
        level: Coverage of every interval.

    A perturbation whose items lack their original order (a run cut short) gets no circular figures: it is named
    in ``warnings`` and its values are NaN.

    Raises:
        ConfigError: no outcomes, or an item asked twice in one arrangement of one perturbation.

    Example:
        >>> from pfungst.data.item import Item
        >>> from pfungst.integrations.inspect_samples import arrange, outcome_from_metadata
        >>> item = Item(id="q1", text="?", options=("x", "y"), gold=0)
        >>> always_a = [outcome_from_metadata(s.metadata, 0, where="doc") for s in arrange(item, ["cyclic"], seed=0)]
        >>> figures = arrangement_figures(always_a, n_bootstrap=0)
        >>> {name: round(value, 3) for name, value in figures.values().items()}  # doctest: +NORMALIZE_WHITESPACE
        {'accuracy': 0.5, 'position_1': 1.0, 'position_2': 0.0, 'rstd': 50.0, 'circular_accuracy_cyclic': 0.0,
         'consistency_cyclic': 0.0}
    """
    if not outcomes:
        raise ConfigError("arrangement_figures needs outcomes, but none were given. Pass every scored sample.")
    estimation: dict[str, Any] = {"seed": seed, "n_bootstrap": n_bootstrap, "level": level}
    circular: dict[str, CircularMetrics] = {}
    warnings: list[str] = []
    for name in circular_perturbations(outcomes):
        try:
            circular[name] = circular_metrics([o for o in outcomes if o.perturbation == name], **estimation)
        except ConfigError as exc:  # a run cut short, or inspect showing metrics while samples still come in
            warnings.append(f"circular metrics of {name} not computed: {exc}")
    return ArrangementFigures(
        accuracy=accuracy_estimate(sum(o.correct for o in outcomes), [o.n_options for o in outcomes], level),
        positions=selection_bias(per_sample(outcomes), by="position", **estimation),
        circular=circular,
        variants=variant_accuracies(outcomes, level=level),
        n_samples=len(outcomes),
        n_items=len({o.item_id for o in outcomes}),
        warnings=tuple(warnings),
        not_computed=tuple(name for name in circular_perturbations(outcomes) if name not in circular),
    )
