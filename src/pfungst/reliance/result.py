"""What a reliance analysis found: per (model, dataset) accuracy where the shortcut works and elsewhere; per family
a paired test with its false-discovery-rate adjustment and its power.

Schema changes that alter a field's meaning bump :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from pfungst.blocks import Section
from pfungst.display import NotebookDisplay
from pfungst.provenance import Provenance
from pfungst.reliance.sections import reliance_overview, reliance_sections
from pfungst.reliance.shortcut import ShortcutItems
from pfungst.reliance.shortcut_score import ShortcutSummary
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields, read_dataclass
from pfungst.serialization import to_jsonable, write_json
from pfungst.stats import Estimate

__all__ = ["SCHEMA_VERSION", "FamilyTest", "ModelReliance", "RelianceResult", "ShortcutBreakdown"]

SCHEMA_VERSION = SCHEMA_VERSIONS["reliance"]


@dataclass(frozen=True)
class ModelReliance:
    """One model on one dataset: does it do better on the items a surface-feature probe solves?"""

    model: str
    dataset: str
    family: str
    accuracy_solvable: Estimate
    """Accuracy on the matched items the probe predicted right out of fold (Wilson interval, baseline chance)."""
    accuracy_rest: Estimate
    """Accuracy on the other matched items the probe predicted (Wilson interval, baseline chance)."""
    chance_corrected_solvable: Estimate
    """``(acc - c) / (1 - c)`` on the solvable items, c the dataset's chance rate; interval mapped from Wilson."""
    chance_corrected_rest: Estimate
    """The same on the rest."""
    difference: Estimate
    """``accuracy_solvable - accuracy_rest``: Newcombe's hybrid score interval, a one-sided p-value (greater)."""
    difference_within_label: Estimate
    """The same comparison within gold classes (Mantel-Haenszel weights, one-sided CMH test): not confounded by
    the model's preference for some labels (:mod:`pfungst.reliance.stratified`)."""
    n_solvable: int
    n_rest: int
    n_unmatched_outcomes: int
    """Items the model answered that the audit does not have (ids absent from the audited benchmark)."""
    n_unmatched_audit: int
    """Audited items the model has no outcome for."""
    n_not_predicted: int
    """Items both have, but that the probe never predicted out of fold (left out)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "model": self.model,
            "dataset": self.dataset,
            "family": self.family,
            "accuracy_solvable": self.accuracy_solvable.to_dict(),
            "accuracy_rest": self.accuracy_rest.to_dict(),
            "chance_corrected_solvable": self.chance_corrected_solvable.to_dict(),
            "chance_corrected_rest": self.chance_corrected_rest.to_dict(),
            "difference": self.difference.to_dict(),
            "difference_within_label": self.difference_within_label.to_dict(),
            "n_solvable": self.n_solvable,
            "n_rest": self.n_rest,
            "n_unmatched_outcomes": self.n_unmatched_outcomes,
            "n_unmatched_audit": self.n_unmatched_audit,
            "n_not_predicted": self.n_not_predicted,
        }

    def __repr__(self) -> str:
        return (
            f"ModelReliance({self.model!r} on {self.dataset!r}: {self.accuracy_solvable.value:.3f} solvable vs "
            f"{self.accuracy_rest.value:.3f} rest, p={self.difference.pvalue:.3g}; within labels "
            f"{self.difference_within_label.value:.3f}, p={self.difference_within_label.pvalue:.3g})"
        )


@dataclass(frozen=True)
class FamilyTest:
    """One family's one-sided paired t-test over its (model, dataset) pairs, adjusted across families."""

    family: str
    models: tuple[str, ...]
    datasets: tuple[str, ...]
    n_pairs: int
    """Pairs tested: (model, dataset) with items on both sides."""
    test: Estimate
    """Mean of ``accuracy_solvable - accuracy_rest``, two-sided t interval, one-sided (greater) p-value: the
    uncorrected test that Pacchiardi et al. 2024 report per family."""
    sd_difference: float
    """Standard deviation of the differences (NaN under 2 pairs)."""
    detectable_difference: float
    """The smallest mean difference detected with ``power`` at one-sided ``alpha`` (before the adjustment), given
    ``n_pairs`` and ``sd_difference``; NaN where it cannot be computed."""
    qvalue: float
    """Benjamini-Hochberg q-value across the families tested; NaN where there is no p-value."""
    rejected: bool
    """Whether ``qvalue <= alpha``."""
    within_label: Estimate
    """The one-sided t-test that the mean within-label difference (``ModelReliance.difference_within_label``)
    exceeds 0, over the pairs where it is defined."""
    qvalue_within_label: float
    """Benjamini-Hochberg q-value of ``within_label`` across families (a separate adjustment)."""
    rejected_within_label: bool
    detectable_within_label: float
    """The smallest mean within-label difference detected with ``power``, as ``detectable_difference``."""
    note: str = ""
    """Why pairs were left out, or why there is no test."""
    alpha: float = 0.05
    power: float = 0.8

    @property
    def power_statement(self) -> str:
        """The power of this family's test, in words."""
        if math.isnan(self.detectable_difference):
            return f"{self.n_pairs} pair(s): power not computable ({self.note or 'no spread'})"
        return (
            f"{len(self.models)} model(s) x {len(self.datasets)} dataset(s), {self.n_pairs} pairs, SD "
            f"{self.sd_difference:.3f} of the differences: a mean difference of {self.detectable_difference:.3f} "
            f"is detected with {self.power:.0%} power at one-sided alpha {self.alpha:g} (before BH)"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "family": self.family,
            "models": list(self.models),
            "datasets": list(self.datasets),
            "n_pairs": self.n_pairs,
            "test": self.test.to_dict(),
            "sd_difference": to_jsonable(self.sd_difference),
            "detectable_difference": to_jsonable(self.detectable_difference),
            "qvalue": to_jsonable(self.qvalue),
            "rejected": self.rejected,
            "within_label": self.within_label.to_dict(),
            "qvalue_within_label": to_jsonable(self.qvalue_within_label),
            "rejected_within_label": self.rejected_within_label,
            "detectable_within_label": to_jsonable(self.detectable_within_label),
            "note": self.note,
            "alpha": self.alpha,
            "power": self.power,
            "power_statement": self.power_statement,
        }

    def __repr__(self) -> str:
        return (
            f"FamilyTest({self.family!r}: {self.n_pairs} pairs, mean difference {self.test.value:.3f}, "
            f"p={self.test.pvalue:.3g}, q={self.qvalue:.3g})"
        )


@dataclass(frozen=True)
class ShortcutBreakdown:
    """The reliance analysis with one shortcut's own split (items it solves versus items it gets wrong)."""

    shortcut: str
    """The shortcut table's column (``probe:<feature set>``, ``heuristic:<name>``, ``model-choices-only:<model>``)."""
    models: tuple[ModelReliance, ...]
    families: tuple[FamilyTest, ...]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "shortcut": self.shortcut,
            "models": [m.to_dict() for m in self.models],
            "families": [f.to_dict() for f in self.families],
        }


@dataclass(frozen=True, eq=False)
class RelianceResult(NotebookDisplay):
    """Audit joined with model outcomes: per (model, dataset) and per family, with what made it."""

    models: tuple[ModelReliance, ...]
    """One entry per (model, dataset) joined, in the order of the outcomes given."""
    families: tuple[FamilyTest, ...]
    """One test per family, in the order first seen."""
    shortcuts: tuple[ShortcutItems, ...]
    """Per audited dataset, the probe used and which items it solves."""
    unjoined: tuple[str, ...]
    """Outcomes and audits that found no partner (a dataset without audit, an audit without outcomes), in words."""
    warnings: tuple[str, ...]
    """What limits the reading (a probe no better than chance, a split with an empty side)."""
    provenance: Provenance
    """Every setting of the analysis, its seed, the software, and the audit and outcome files it joined
    (``derived_from``, each with its hash)."""
    shortcut_tables: tuple[ShortcutSummary, ...] = ()
    """With ``split="any-shortcut"``: per dataset, the counts of its per-item shortcut table; empty otherwise."""
    per_shortcut: tuple[ShortcutBreakdown, ...] = ()
    """With ``split="any-shortcut"``: the analysis repeated with each shortcut's own split."""
    schema_version: str = SCHEMA_VERSION
    KIND: ClassVar[str] = "reliance"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = SCHEMA_VERSION
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "analysis"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    def sections(self) -> tuple[Section, ...]:
        """Its chapter: per model and dataset, per family, the probes used, what did not join (computes nothing)."""
        return reliance_sections(self)

    def overview(self) -> Overview:
        """One board row per (model, dataset) and the headline: how many families' tests rejected."""
        return reliance_overview(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> RelianceResult:
        """Read :meth:`to_dict` back, checking every value's type (the shortcut splits as counts).

        Raises:
            ReaderError: a value of the wrong type, a missing key or another schema, naming ``source`` and the field.
        """
        fields = Fields(data, source)
        fields.check_schema(SCHEMA_VERSION)
        return cls(
            models=tuple(read_dataclass(ModelReliance, entry) for entry in fields.records("models")),
            families=tuple(read_dataclass(FamilyTest, entry) for entry in fields.records("families")),
            shortcuts=tuple(ShortcutItems.from_fields(entry) for entry in _records(fields, "shortcuts")),
            unjoined=fields.typed("unjoined", tuple[str, ...]) if fields.has("unjoined") else (),
            warnings=fields.typed("warnings", tuple[str, ...]) if fields.has("warnings") else (),
            provenance=Provenance.from_fields(fields.sub("provenance")),
            shortcut_tables=tuple(read_dataclass(ShortcutSummary, e) for e in _records(fields, "shortcut_tables")),
            per_shortcut=tuple(read_dataclass(ShortcutBreakdown, e) for e in _records(fields, "per_shortcut")),
        )

    @property
    def n_unmatched_outcomes(self) -> int:
        """Model outcomes whose item id the audit lacks, over all (model, dataset) pairs."""
        return sum(m.n_unmatched_outcomes for m in self.models)

    @property
    def n_unmatched_audit(self) -> int:
        """Audited items without a model outcome, over all (model, dataset) pairs."""
        return sum(m.n_unmatched_audit for m in self.models)

    def models_frame(self, shortcut: str | None = None) -> pd.DataFrame:
        """One row per (model, dataset): accuracies with intervals, difference, p-value, counts; ``shortcut``: of
        that shortcut's own split (``per_shortcut``) instead of the main one."""
        rows = []
        for m in self._breakdown(shortcut).models if shortcut else self.models:
            row: dict[str, Any] = {"model": m.model, "dataset": m.dataset, "family": m.family}
            for name in (
                "accuracy_solvable",
                "accuracy_rest",
                "chance_corrected_solvable",
                "chance_corrected_rest",
                "difference",
                "difference_within_label",
            ):
                estimate: Estimate = getattr(m, name)
                row.update(estimate.columns(name))
            row.update(
                pvalue=m.difference.pvalue,
                pvalue_within_label=m.difference_within_label.pvalue,
                n_solvable=m.n_solvable,
                n_rest=m.n_rest,
                n_unmatched_outcomes=m.n_unmatched_outcomes,
                n_unmatched_audit=m.n_unmatched_audit,
                n_not_predicted=m.n_not_predicted,
            )
            rows.append(row)
        return pd.DataFrame(rows)

    def _breakdown(self, shortcut: str) -> ShortcutBreakdown:
        for breakdown in self.per_shortcut:
            if breakdown.shortcut == shortcut:
                return breakdown
        raise KeyError(f"no shortcut {shortcut!r}; found {[b.shortcut for b in self.per_shortcut]}")

    def shortcuts_frame(self) -> pd.DataFrame:
        """One row per (shortcut, model, dataset) of ``per_shortcut``: accuracy on the items it solves and on
        the rest, the difference with its interval and one-sided p-value, and the family's BH q-value."""
        rows = []
        for breakdown in self.per_shortcut:
            qvalues = {f.family: f.qvalue for f in breakdown.families}
            for m in breakdown.models:
                rows.append(
                    {
                        "shortcut": breakdown.shortcut,
                        "model": m.model,
                        "dataset": m.dataset,
                        "family": m.family,
                        "accuracy_solvable": m.accuracy_solvable.value,
                        "accuracy_rest": m.accuracy_rest.value,
                        "difference": m.difference.value,
                        "low": m.difference.ci.low if m.difference.ci else math.nan,
                        "high": m.difference.ci.high if m.difference.ci else math.nan,
                        "pvalue": m.difference.pvalue,
                        "family_qvalue": qvalues.get(m.family, math.nan),
                        "n_solvable": m.n_solvable,
                        "n_rest": m.n_rest,
                    }
                )
        return pd.DataFrame(rows)

    def families_frame(self) -> pd.DataFrame:
        """One row per family: pairs, mean difference with interval, p, q, rejected, detectable difference."""
        return pd.DataFrame(
            [
                {
                    "family": f.family,
                    "n_models": len(f.models),
                    "n_datasets": len(f.datasets),
                    "n_pairs": f.n_pairs,
                    "mean_difference": f.test.value,
                    "low": f.test.ci.low if f.test.ci else math.nan,
                    "high": f.test.ci.high if f.test.ci else math.nan,
                    "pvalue": f.test.pvalue,
                    "qvalue": f.qvalue,
                    "rejected": f.rejected,
                    "sd_difference": f.sd_difference,
                    "detectable_difference": f.detectable_difference,
                    "within_label": f.within_label.value,
                    "pvalue_within_label": f.within_label.pvalue,
                    "qvalue_within_label": f.qvalue_within_label,
                    "rejected_within_label": f.rejected_within_label,
                    "detectable_within_label": f.detectable_within_label,
                    "note": f.note,
                }
                for f in self.families
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "schema_version": self.schema_version,
            "kind": self.KIND,
            "models": [m.to_dict() for m in self.models],
            "families": [f.to_dict() for f in self.families],
            "shortcuts": [s.to_dict() for s in self.shortcuts],
            "unjoined": list(self.unjoined),
            "warnings": list(self.warnings),
            "shortcut_tables": [t.to_dict() for t in self.shortcut_tables],
            "per_shortcut": [b.to_dict() for b in self.per_shortcut],
            "n_unmatched_outcomes": self.n_unmatched_outcomes,
            "n_unmatched_audit": self.n_unmatched_audit,
            "provenance": self.provenance.to_dict(),
        }

    def save_json(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as JSON to ``path`` (atomically, folders created) and return it."""
        return write_json(path, self.to_dict())

    def __repr__(self) -> str:
        rejected = sum(f.rejected for f in self.families)
        return (
            f"RelianceResult({len(self.models)} (model, dataset) pairs, {len(self.families)} families, "
            f"{rejected} rejected at FDR {self.provenance.settings.get('alpha', 0.05)})"
        )


def _records(fields: Fields, key: str) -> list[Fields]:
    return fields.records(key) if fields.has(key) else []
