"""What an audit found: one probe outcome per feature set, heuristics, cues, a verdict with its evidence, and the
headline that says in one sentence what explains the score.

Schema changes that alter a field's meaning bump :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from pfungst.audit.controls import AuditControls
from pfungst.audit.cues import CueTable
from pfungst.audit.headline import Headline
from pfungst.audit.heuristics import HeuristicsReport
from pfungst.audit.item_flags import ItemFlags
from pfungst.audit.position_content import PositionContentSplit
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.audit.result_reading import read_cues, read_heuristics
from pfungst.audit.sections import audit_chapter, audit_overview
from pfungst.audit.summary_lines import audit_summary_lines
from pfungst.audit.verdict import Verdict
from pfungst.blocks import Section
from pfungst.data.item_findings import ItemFindings
from pfungst.data.option_kind import OptionKind
from pfungst.display import NotebookDisplay
from pfungst.provenance import Provenance
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields
from pfungst.serialization import write_json
from pfungst.stats import Estimate

__all__ = ["SCHEMA_VERSION", "AuditResult", "Verdict"]

SCHEMA_VERSION = SCHEMA_VERSIONS["audit"]


@dataclass(frozen=True, eq=False)
class AuditResult(NotebookDisplay):
    """Everything :func:`pfungst.audit.audit` found about one benchmark, with the settings and versions that made it."""

    benchmark: dict[str, Any]
    """``Benchmark.to_dict()`` of the audited benchmark (name, kind, counts, provenance)."""
    probes: tuple[ProbeOutcome, ...]
    """One outcome per feature set, in the order tried."""
    verdict: Verdict
    headline: Headline
    """What explains the score, in one sentence with its parts (:mod:`~pfungst.audit.headline`), computed once by
    :func:`pfungst.audit.audit`; every report, the suite and the release gate read it."""
    heuristics: HeuristicsReport | None
    """Zero-training baselines; None when disabled."""
    cues: CueTable | None
    """Cue table after Niven & Kao; None when disabled."""
    provenance: Provenance
    """The data file audited, every setting of the audit (the seed included), the software that ran it."""
    position_content: PositionContentSplit | None = None
    """The verdict split into the content verdict (position-blind probes) and the gold-position finding, computed
    by :func:`pfungst.audit.audit`; shared labels: the verdict as content, no position finding. None for a per-item
    audit without a position-blind probe (or a result file that lacks it)."""
    controls: AuditControls | None = None
    """The label-only baseline and (per-item) the constant-answer check, read beside the verdict; computed by
    :func:`pfungst.audit.audit`. None for a result file that lacks it."""
    item_flags: ItemFlags | None = None
    """Per-item shortcut flags (:mod:`~pfungst.audit.item_flags`): which items the options-only probe, the
    strongest heuristic and the gold position solve, each with its evidence and base rate; computed by
    :func:`pfungst.audit.audit`. None for a result file that lacks it."""
    item_findings: ItemFindings | None = None
    """Duplicates and broken items of the audited items, each with its ids (:func:`~pfungst.data.check_items`, with
    the audit's sibling similarity and seed); the exact and near-duplicate groups are among the groups the folds keep
    whole. None only for a result built without it."""
    KIND: ClassVar[str] = "audit"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = SCHEMA_VERSION
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "data"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    @property
    def option_kind(self) -> OptionKind:
        """The audited benchmark's :class:`~pfungst.data.option_kind.OptionKind` (per-item where a file omits it)."""
        return OptionKind.named(self.benchmark.get("option_kind", OptionKind.PER_ITEM))

    def sections(self) -> tuple[Section, ...]:
        """Its chapter: the benchmark's facts, verdict, controls, probes, heuristics, cues (computes nothing)."""
        return audit_chapter(self)

    def overview(self) -> Overview:
        """Its board row and headline: the verdict and the figure that decided it."""
        return audit_overview(self)

    def summary_lines(self) -> tuple[str, ...]:
        """Its short answer in sentences, what ``pfungst audit`` prints by default: the verdict, content and gold
        position apart, the controls, what to do next."""
        return audit_summary_lines(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> AuditResult:
        """Read :meth:`to_dict` back, checking every value's type; per-item predictions only if it holds them.

        Raises:
            ReaderError: a value of the wrong type, a missing key or another schema, naming ``source`` and the
                field (``audit.json: field 'probes[3].kappa.value': expected a number, found 'zero point five'``).
        """
        fields = Fields(data, source)
        fields.check_schema(SCHEMA_VERSION)
        verdict = Verdict.from_fields(fields.sub("verdict"))
        probes = tuple(ProbeOutcome.from_fields(entry) for entry in fields.records("probes"))
        if verdict.feature_set not in {probe.feature_set for probe in probes}:
            raise fields.error("verdict.feature_set", f"{verdict.feature_set!r} names no probe of 'probes'")
        return cls(
            benchmark=fields.benchmark(),
            probes=probes,
            verdict=verdict,
            headline=Headline.from_fields(fields.sub("headline")),
            heuristics=read_heuristics(fields.sub("heuristics")) if fields.has("heuristics") else None,
            cues=read_cues(fields.sub("cues")) if fields.has("cues") else None,
            provenance=Provenance.from_fields(fields.sub("provenance")),
            position_content=_read_split(fields),
            controls=AuditControls.from_fields(fields.sub("controls")) if fields.has("controls") else None,
            item_flags=ItemFlags.from_fields(fields.sub("item_flags")) if fields.has("item_flags") else None,
            item_findings=_read_findings(fields),
        )

    @property
    def best(self) -> ProbeOutcome:
        """The probe named by the verdict."""
        return next(p for p in self.probes if p.feature_set == self.verdict.feature_set)

    def probe(self, feature_set: str) -> ProbeOutcome:
        """The outcome for ``feature_set``."""
        for outcome in self.probes:
            if outcome.feature_set == feature_set:
                return outcome
        raise KeyError(f"no probe for feature set {feature_set!r}; tried: {[p.feature_set for p in self.probes]}")

    def scores_frame(self) -> pd.DataFrame:
        """One row per feature set: kappa, chance-corrected accuracy and accuracy with intervals, p-value, baseline."""
        rows = []
        for outcome in self.probes:
            row: dict[str, Any] = {
                "feature_set": outcome.feature_set,
                "level": outcome.level,
                "classifier": outcome.final_classifier,
            }
            for name in ("kappa", "chance_corrected_accuracy", "accuracy"):
                estimate: Estimate = getattr(outcome, name)
                row.update(estimate.columns(name))
            row["kappa_pvalue"] = outcome.kappa.pvalue
            row["majority_baseline"] = outcome.majority_baseline.value
            row["n"] = outcome.kappa.n
            rows.append(row)
        return pd.DataFrame(rows)

    def items_frame(self) -> pd.DataFrame:
        """One row per item: the best probe's out-of-fold prediction and whether it was right, plus each heuristic's.

        This is what the reliance analysis joins with model outcomes.
        """
        frame = self.best.to_frame()
        if self.heuristics is not None:
            for result in self.heuristics.results:
                predicted, gold = np.asarray(result.predictions), np.asarray(result.gold)
                abstained = predicted < 0  # the heuristic does not apply to the item: NA, not wrong
                predictions = pd.Series(
                    pd.arrays.IntegerArray(np.maximum(predicted, 0), abstained), index=result.item_ids
                )
                correct = pd.Series(pd.arrays.BooleanArray(predicted == gold, abstained), index=result.item_ids)
                frame[f"heuristic.{result.name}"] = frame["item_id"].map(predictions)
                frame[f"heuristic.{result.name}.correct"] = frame["item_id"].map(correct)
        return frame

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; ``items=True`` adds per-item predictions of every probe."""
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": self.KIND,
            "benchmark": self.benchmark,
            "verdict": self.verdict.to_dict(),
            "headline": self.headline.to_dict(),
            "probes": [outcome.to_dict(items=items) for outcome in self.probes],
            "heuristics": self.heuristics.to_dict(items) if self.heuristics else None,
            "cues": self.cues.to_dict() if self.cues else None,
            "provenance": self.provenance.to_dict(),
            "position_content": self.position_content.to_dict() if self.position_content else None,
            "controls": self.controls.to_dict() if self.controls else None,
            "item_flags": self.item_flags.to_dict() if self.item_flags else None,
            "item_findings": self.item_findings.to_dict() if self.item_findings else None,
        }

    def save_json(self, path: str | Path, items: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON (NaN as null; atomically, folders created); returns the path."""
        return write_json(path, self.to_dict(items=items))

    def __repr__(self) -> str:
        return f"AuditResult({self.benchmark['name']!r}, {self.headline.sentence})"


def _read_findings(fields: Fields) -> ItemFindings | None:
    """The ``item_findings`` of a result file; None where it is null or absent."""
    return ItemFindings.from_fields(fields.sub("item_findings")) if fields.has("item_findings") else None


def _read_split(fields: Fields) -> PositionContentSplit | None:
    """The ``position_content`` of a result file; None where it is null or absent."""
    return PositionContentSplit.from_fields(fields.sub("position_content")) if fields.has("position_content") else None
