"""What :func:`~pfungst.stress.ranks.rank_stability` found: places per model and variant, their agreement, the
largest shift and paired comparisons; written to and read back from JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from pfungst.blocks import Section
from pfungst.errors import ConfigError
from pfungst.provenance import Provenance
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields, read_dataclass
from pfungst.stats import ConfidenceInterval, Estimate
from pfungst.stress.sections import rank_chapter, ranks_overview

__all__ = ["ModelRank", "PairwiseComparison", "RankShift", "RankStability", "VariantAgreement"]


@dataclass(frozen=True)
class ModelRank:
    """One model's accuracy and leaderboard place under one variant."""

    model: str
    """The model's name."""
    variant: str
    """The variant's name."""
    accuracy: Estimate
    """Share of the variant's items answered correctly, with a Wilson interval."""
    rank: float
    """Leaderboard place among the models on this variant: 1 is the most accurate; ties share the average place."""
    rank_ci: ConfidenceInterval
    """Percentile bootstrap interval of ``rank``, items resampled jointly for all models on this variant."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "model": self.model,
            "variant": self.variant,
            "accuracy": self.accuracy.to_dict(),
            "rank": self.rank,
            "rank_ci": self.rank_ci.to_dict(),
        }


@dataclass(frozen=True)
class PairwiseComparison:
    """Whether one model is more accurate than another on one variant, on the same items."""

    first: str
    """The first model (earlier in the input)."""
    second: str
    """The second model."""
    variant: str
    """The variant both were scored on."""
    difference: Estimate
    """accuracy(first) - accuracy(second): paired bootstrap interval, exact McNemar p-value, baseline 0."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "first": self.first,
            "second": self.second,
            "variant": self.variant,
            "difference": self.difference.to_dict(),
        }


@dataclass(frozen=True)
class VariantAgreement:
    """How far two variants order the models alike."""

    variant_a: str
    """The earlier variant (input order)."""
    variant_b: str
    """The later variant."""
    tau: Estimate
    """Kendall's tau-b between the models' ranks on the two variants (1: same order, -1: reversed), with p-value;
    NaN when all models tie on either variant."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {"variant_a": self.variant_a, "variant_b": self.variant_b, "tau": self.tau.to_dict()}


@dataclass(frozen=True)
class RankShift:
    """The largest move of any model between any two variants."""

    model: str
    """The model that moved."""
    from_variant: str
    """The earlier variant (input order); equal to ``to_variant`` when there is only one variant."""
    to_variant: str
    """The later variant."""
    from_rank: float
    """The model's place on ``from_variant``."""
    to_rank: float
    """The model's place on ``to_variant``."""
    shift: float
    """``to_rank - from_rank``: positive when the model fell down the leaderboard; 0 with one variant."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "model": self.model,
            "from_variant": self.from_variant,
            "to_variant": self.to_variant,
            "from_rank": self.from_rank,
            "to_rank": self.to_rank,
            "shift": self.shift,
        }


@dataclass(frozen=True, eq=False)
class RankStability:
    """Leaderboard places of several models under several variants, and how much they agree."""

    models: tuple[str, ...]
    """The models, in input order."""
    variants: tuple[str, ...]
    """The variants, in the first model's order."""
    ranks: tuple[ModelRank, ...]
    """One entry per variant x model (variant-major, input order)."""
    taus: tuple[VariantAgreement, ...]
    """Kendall's tau for every pair of variants (input order); empty with one variant."""
    concordance: Estimate
    """Kendall's W over the variants as raters of the models (1: all variants give the same order), chi-squared
    p-value; NaN with a note when there are fewer than 2 variants."""
    largest_shift: RankShift
    """The model and pair of variants with the largest absolute change of place (the first such, in input
    order)."""
    pairwise: tuple[PairwiseComparison, ...]
    """Every pair of models on every variant (variant-major, pairs in input order)."""
    n_bootstrap: int
    """Bootstrap resamples per interval."""
    level: float
    """Coverage of every interval."""
    provenance: Provenance
    """Its settings and the seed of the bootstrap resamples, the software, and (made by
    :func:`~pfungst.stress.comparison.compare`) the stress results it compares and their data files."""
    KIND: ClassVar[str] = "rank-stability"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = SCHEMA_VERSIONS["rank-stability"]
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "model"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    def sections(self) -> tuple[Section, ...]:
        """Its chapter: places per variant, Kendall's tau and W, the largest shift, paired differences."""
        return rank_chapter(self)

    def overview(self) -> Overview:
        """Its headline: how far the rankings agree (Kendall's W); no board row of its own."""
        return ranks_overview(self)

    def rank_of(self, model: str, variant: str) -> ModelRank:
        """The entry of ``model`` on ``variant``.

        Raises:
            ConfigError: an unknown model or variant.
        """
        for entry in self.ranks:
            if entry.model == model and entry.variant == variant:
                return entry
        raise ConfigError(
            f"no rank for model {model!r} on variant {variant!r}. Models: {list(self.models)}; "
            f"variants: {list(self.variants)}."
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "schema_version": self.SCHEMA_VERSION,
            "kind": self.KIND,
            "models": list(self.models),
            "variants": list(self.variants),
            "ranks": [entry.to_dict() for entry in self.ranks],
            "taus": [agreement.to_dict() for agreement in self.taus],
            "concordance": self.concordance.to_dict(),
            "largest_shift": self.largest_shift.to_dict(),
            "pairwise": [comparison.to_dict() for comparison in self.pairwise],
            "n_bootstrap": self.n_bootstrap,
            "level": self.level,
            "provenance": self.provenance.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> RankStability:
        """The result that :meth:`to_dict` wrote, every value's type checked.

        Raises:
            ReaderError: a value of the wrong type, a missing key or another schema, naming ``source`` and the field.
        """
        fields = Fields(data, source)
        fields.check_schema(cls.SCHEMA_VERSION)
        return read_dataclass(cls, fields)

    def to_frame(self) -> pd.DataFrame:
        """One row per model x variant: model, variant, accuracy, low, high, rank, rank_low, rank_high."""
        columns = ["model", "variant", "accuracy", "low", "high", "rank", "rank_low", "rank_high"]
        rows = []
        for entry in self.ranks:
            ci = entry.accuracy.ci
            rows.append(
                [
                    entry.model,
                    entry.variant,
                    entry.accuracy.value,
                    ci.low if ci else np.nan,
                    ci.high if ci else np.nan,
                    entry.rank,
                    entry.rank_ci.low,
                    entry.rank_ci.high,
                ]
            )
        return pd.DataFrame(rows, columns=columns)

    def __repr__(self) -> str:
        shift = self.largest_shift
        return (
            f"RankStability({len(self.models)} models x {len(self.variants)} variants, "
            f"W={self.concordance.value:.3f}, largest shift {shift.shift:+g} "
            f"({shift.model}: {shift.from_variant} -> {shift.to_variant}))"
        )
