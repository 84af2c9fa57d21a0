"""The choices-only baseline from both sides in one table: the audit's classifier (``options_1-grams_presence``, the
options without the question, out of fold) and each model asked without the question (``pfungst stress -p
choices-only``) under each scoring rule.

Both answer the same question - do the options alone give the answer away? - one for a bag-of-words classifier
trained on the benchmark, one for the model being evaluated. Each row keeps the figures its own analysis computed
(nothing is re-estimated here): accuracy with its interval, chance, the majority-position baseline, the p-value of
its own test and its item count. The classifier sees every item of the audit, the model the items stressed (often a
sample), so ``n`` differs; the p-values test different nulls (the classifier: a label-shuffle permutation test, no
better than predictions that ignore the options; the model: an exact binomial test against chance).

Example:
    >>> import pfungst
    >>> from pfungst.audit import AuditConfig
    >>> from pfungst.data.synthetic import make_synthetic
    >>> benchmark = make_synthetic("longest-option", 60)
    >>> audited = pfungst.audit.audit(benchmark, AuditConfig(feature_sets=("options_1-grams_presence",),
    ...     heuristics=False, cues=False, n_repeats=1, n_bootstrap=50, n_permutations=50))
    >>> comparison = compare_choices_only(audited, [])
    >>> [(row.source, row.n) for row in comparison.rows]
    [('classifier', 60)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.audit.result import AuditResult
from pfungst.blocks import Block, Facts, Section, Table, format_estimate, format_number, format_pvalue, short_model
from pfungst.errors import ConfigError
from pfungst.provenance import Provenance, ResultReference
from pfungst.schema import Fields
from pfungst.stats import Estimate
from pfungst.stress.comparison import StressComparison
from pfungst.stress.perturbations.choices_only.metric import ChoicesOnlyAccuracy
from pfungst.stress.stress_result import StressResult

__all__ = [
    "CLASSIFIER_PROBE",
    "ChoicesOnlyComparison",
    "ChoicesOnlyRow",
    "choices_only_comparisons",
    "compare_choices_only",
]

CLASSIFIER_PROBE = "options_1-grams_presence"
"""The audit's classifier choices-only probe: word 1-gram presence of each option, no question."""
_CLASSIFIER_TEST = "permutation (label shuffles): no better than predictions ignoring the options"
_MODEL_TEST = "exact one-sided binomial: no better than chance"


@dataclass(frozen=True)
class ChoicesOnlyRow:
    """One source of a choices-only figure: the audit's classifier or one model under one scoring rule."""

    source: str
    """``classifier`` (the audit's probe) or ``model`` (a stress run's ``choices-only`` perturbation)."""
    name: str
    """The probe's feature set, or the model's short name."""
    how: str
    """The classifier's protocol (``crossfit``), or the model's scoring rule (``letter``, ``cloze-raw``, ...)."""
    accuracy: Estimate
    """Share of items answered right from the options alone, as that analysis estimated it (interval, p-value)."""
    chance: float
    """Expected accuracy of a random answer (mean ``1 / K`` over items)."""
    majority: Estimate
    """Accuracy of always answering the position that holds the gold most often (classifier: among its scored
    items; model: among the items stressed)."""
    majority_position: str
    """That position's label (``C``); empty where the audit file holds no per-item golds."""
    test: str
    """What ``accuracy.pvalue`` tests."""

    @property
    def n(self) -> int:
        """Items behind the accuracy."""
        return self.accuracy.n

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "source": self.source,
            "name": self.name,
            "how": self.how,
            "accuracy": self.accuracy.to_dict(),
            "chance": self.chance,
            "majority": self.majority.to_dict(),
            "majority_position": self.majority_position,
            "test": self.test,
            "n": self.n,
        }

    @classmethod
    def from_fields(cls, fields: Fields) -> ChoicesOnlyRow:
        """Read :meth:`to_dict` back, checking every value's type."""
        return cls(
            source=fields.string("source"),
            name=fields.string("name"),
            how=fields.string("how"),
            accuracy=fields.estimate("accuracy"),
            chance=fields.number("chance"),
            majority=fields.estimate("majority"),
            majority_position=fields.string("majority_position"),
            test=fields.string("test"),
        )


@dataclass(frozen=True)
class ChoicesOnlyComparison:
    """The classifier's and the models' choices-only accuracy on one benchmark, side by side."""

    KIND: ClassVar[str] = "choices-only-comparison"
    """The result's kind in JSON."""
    TITLE: ClassVar[str] = "Choices-only: classifier vs model"
    """The result's heading in reports."""
    REPORT_PART: ClassVar[str] = "model"
    """Where a report shows it: after the model side's chapters (a result derived from an audit and stress runs,
    registered in :data:`pfungst.results.DERIVED`)."""

    benchmark: str
    """The benchmark's name."""
    rows: tuple[ChoicesOnlyRow, ...]
    """The classifier's row first (when the audit ran the probe), then each model under each rule."""
    provenance: Provenance
    """The data file, the software, and in ``derived_from`` the audit and stress results it pairs (file and hash)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "kind": self.KIND,
            "benchmark": self.benchmark,
            "rows": [row.to_dict() for row in self.rows],
            "provenance": self.provenance.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ChoicesOnlyComparison:
        """Read :meth:`to_dict` back.

        Raises:
            ReaderError: a key missing or a value of the wrong type, naming ``source`` and the field.
        """
        fields = Fields(data, source)
        rows = tuple(ChoicesOnlyRow.from_fields(entry) for entry in fields.records("rows"))
        provenance = Provenance.from_fields(fields.sub("provenance"))
        return cls(benchmark=fields.string("benchmark"), rows=rows, provenance=provenance)

    def to_frame(self) -> pd.DataFrame:
        """One row per source: accuracy, interval, chance, majority baseline, p-value, n."""
        return pd.DataFrame(
            [
                {
                    "source": row.source,
                    "name": row.name,
                    "how": row.how,
                    **row.accuracy.columns("accuracy"),
                    "chance": row.chance,
                    "majority": row.majority.value,
                    "majority_position": row.majority_position,
                    "pvalue": row.accuracy.pvalue,
                    "test": row.test,
                    "n": row.n,
                }
                for row in self.rows
            ]
        )

    def sections(self) -> tuple[Section, ...]:
        """Its section in a report: the table under a heading naming the benchmark."""
        return (Section(f"{self.TITLE} on {self.benchmark}", self.blocks()),)

    def blocks(self) -> tuple[Block, ...]:
        """One table, one row per source, and what its p-values test."""
        rows = tuple(
            (
                f"{row.source}: {row.name}",
                row.how,
                format_estimate(row.accuracy),
                format_number(row.chance),
                format_number(row.majority.value) + (f" ({row.majority_position})" if row.majority_position else ""),
                format_pvalue(row.accuracy.pvalue),
                format_number(row.n),
            )
            for row in self.rows
        )
        table = Table(
            f"Accuracy from the options alone on {self.benchmark}",
            ("source", "protocol / rule", "accuracy [95% CI]", "chance", "majority position", "p", "n"),
            rows,
            text_columns=2,
            note="what p tests - " + "; ".join(dict.fromkeys(f"{row.source}: {row.test}" for row in self.rows)),
        )
        facts = Facts(
            (
                ("reading", "a source well above chance and the majority position finds the answer in the options"),
                ("items", "the classifier sees every audited item; a model only the items stressed (n)"),
            )
        )
        return table, facts

    def __repr__(self) -> str:
        shown = ", ".join(f"{row.name}/{row.how}={row.accuracy.value:.3f}" for row in self.rows)
        return f"ChoicesOnlyComparison({self.benchmark!r}, {shown})"


def compare_choices_only(
    audit: AuditResult, stresses: Iterable[StressResult], inputs: tuple[ResultReference, ...] = ()
) -> ChoicesOnlyComparison:
    """The audit's classifier choices-only figure beside each stress run's model choices-only figures.

    Args:
        audit: An audit that ran the ``options_1-grams_presence`` probe (a per-item default).
        stresses: Stress runs of the same benchmark with the ``choices-only`` perturbation; one row per model and
            scoring rule. May be empty (the classifier's row alone).
        inputs: The files the audit and the runs were read from, for the provenance's ``derived_from``; by default
            each result object itself (its content hash).

    Raises:
        ConfigError: a stress run of another benchmark, or neither the probe nor a choices-only analysis to show.
    """
    stresses = tuple(stresses)
    for stress in stresses:
        if _benchmark_key(stress) != _benchmark_key(audit):
            raise ConfigError(
                f"compare_choices_only: the stress run of {stress.benchmark.get('name', '?')!r} is not on the audited "
                f"benchmark {audit.benchmark.get('name', '?')!r} (different data files). Pass runs of the same file."
            )
    rows = [_classifier_row(probe) for probe in audit.probes if probe.feature_set == CLASSIFIER_PROBE]
    rows += [row for stress in stresses for row in _model_rows(stress)]
    if not rows:
        raise ConfigError(
            f"compare_choices_only: nothing to compare on {audit.benchmark.get('name', '?')!r}: the audit ran no "
            f"'{CLASSIFIER_PROBE}' probe and no stress run has the choices-only perturbation. Run pfungst audit "
            f"--feature-set {CLASSIFIER_PROBE} or pfungst stress -p choices-only."
        )
    inputs = inputs or tuple(ResultReference.of(result) for result in (audit, *stresses))
    records = (audit.provenance, *(stress.provenance for stress in stresses))
    data = tuple(dict.fromkeys(source for record in records for source in record.data))
    provenance = Provenance.current({"classifier_probe": CLASSIFIER_PROBE}, None, data=data, derived_from=inputs)
    return ChoicesOnlyComparison(str(audit.benchmark.get("name", "?")), tuple(rows), provenance)


def choices_only_comparisons(
    results: Iterable[Any], references: Iterable[ResultReference] = ()
) -> tuple[ChoicesOnlyComparison, ...]:
    """One comparison per audit that ran the classifier probe and shares its benchmark with a stress run that has
    the ``choices-only`` perturbation; other results are ignored (what a report given many results shows: it is
    registered in :data:`pfungst.results.DERIVED`, which every report calls through :func:`pfungst.results.derive`).

    Args:
        results: Result objects in any order: ``AuditResult``, ``StressResult``, ``StressComparison`` (each of its
            runs counts) and any others (ignored).
        references: Where each of ``results`` was read from (file and hash), in the same order; a result without
            one is named by its content hash.
    """
    results = list(results)
    known = dict(zip(map(id, results), references, strict=False))

    def reference(result: Any) -> ResultReference:
        return known.get(id(result)) or ResultReference.of(result)

    stresses = [(s, r) for r in results for s in _stress_runs(r) if _model_rows(s)]
    comparisons = []
    for audit in results:
        if not isinstance(audit, AuditResult) or all(p.feature_set != CLASSIFIER_PROBE for p in audit.probes):
            continue
        mine = [(s, holder) for s, holder in stresses if _benchmark_key(s) == _benchmark_key(audit)]
        if mine:
            inputs = tuple(dict.fromkeys(reference(result) for result in (audit, *(holder for _, holder in mine))))
            comparisons.append(compare_choices_only(audit, [s for s, _ in mine], inputs))
    return tuple(comparisons)


def _stress_runs(result: Any) -> tuple[StressResult, ...]:
    if isinstance(result, StressResult):
        return (result,)
    return tuple(result.results) if isinstance(result, StressComparison) else ()


def _benchmark_key(result: AuditResult | StressResult) -> str:
    """The data file's SHA-256 (a sampled stress run keeps its file's), else the benchmark's name."""
    hashes = ",".join(source.sha256 for source in result.provenance.data)
    return hashes or str(result.benchmark.get("name") or "")


def _classifier_row(probe: ProbeOutcome) -> ChoicesOnlyRow:
    majority = probe.majority_baseline
    return ChoicesOnlyRow(
        source="classifier",
        name=probe.feature_set,
        how=probe.protocol.name,
        accuracy=probe.accuracy,
        chance=majority.baseline,
        majority=majority,
        majority_position=_majority_label(probe),
        test=_CLASSIFIER_TEST,
    )


def _majority_label(probe: ProbeOutcome) -> str:
    """The class (position) the gold holds most often among the predicted items; empty without per-item golds."""
    golds = probe.gold[probe.predicted] if len(probe.gold) else probe.gold
    if not len(golds):
        return ""
    counts = Counter(int(gold) for gold in golds)
    return probe.classes[min(counts, key=lambda g: (-counts[g], g))]


def _model_rows(stress: StressResult) -> list[ChoicesOnlyRow]:
    rows = []
    for analysis in stress.analyses:
        found = analysis.result
        if isinstance(found, ChoicesOnlyAccuracy):
            rows.append(
                ChoicesOnlyRow(
                    source="model",
                    name=short_model(stress.model),
                    how=analysis.rule,
                    accuracy=found.accuracy,
                    chance=found.accuracy.baseline,
                    majority=found.majority,
                    majority_position=found.majority_position,
                    test=_MODEL_TEST,
                )
            )
    return rows
