"""What a suite audit found: a leaderboard of benchmarks ranked by Clever-Hans risk, with Benjamini-Hochberg across
benchmarks, the skipped sources and why, and the settings that made it.

Ranking reads the *content* verdict (probes that cannot see positions), so a file-layout artifact (the gold always
listed first) is flagged beside the rank rather than ranked as a content cue. Risk is the lower bound of the
content statistic's simultaneous interval: a benchmark ranks high only when even the pessimistic end of its best
position-blind probe beats chance. The statistic is Cohen's kappa for shared labels and chance-corrected accuracy
for per-item choices (see :attr:`pfungst.data.option_kind.OptionKind.statistic`); each row names it.

Every content finding is ranked by its size with the others, a full-input finding on a shared-label task included;
only a finding the task declares it is answered from (``--lexical-task``, or BIG-bench keywords such as sentiment:
the headline's ``expected``) is ranked apart, after the others. Each row shows its headline: what explains the
score, from which input, how sure (an inconclusive audit says so, and is never shown as clean).

Two Benjamini-Hochberg families, each across the audited benchmarks: the content verdicts' p-values (is any
content cue there at all?) and the gold-position uniformity tests (per-item benchmarks only).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from pfungst.audit.suite.entry import SkippedSource, SuiteEntry, read_entry
from pfungst.audit.suite.sections import suite_overview, suite_sections
from pfungst.audit.suite.sources import IgnoredFile
from pfungst.blocks import Section
from pfungst.display import NotebookDisplay
from pfungst.provenance import Provenance
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields
from pfungst.serialization import write_json
from pfungst.stats import BHResult, benjamini_hochberg

__all__ = ["SCHEMA_VERSION", "SuiteResult"]

SCHEMA_VERSION = SCHEMA_VERSIONS["suite"]


@dataclass(frozen=True, eq=False)
class SuiteResult(NotebookDisplay):
    """Every benchmark of a suite: audited ones ranked by risk, skipped ones with their reason."""

    entries: tuple[SuiteEntry, ...]
    """Audited benchmarks, highest risk first (ties and NaN risks last, then by name); declared findings
    (:attr:`SuiteEntry.expected`) ranked apart after the others."""
    skipped: tuple[SkippedSource, ...]
    content_tests: BHResult
    """Benjamini-Hochberg over the content verdicts' p-values, in the order of :attr:`entries`."""
    position_tests: BHResult
    """Benjamini-Hochberg over the gold-position uniformity p-values (NaN, untested, for shared labels)."""
    provenance: Provenance
    """The audit settings shared by every benchmark, the reader options and the FDR level; the software; and, in
    ``derived_from``, each entry's audit file with its hash."""
    n_reused: int
    """Entries read from the cache instead of audited again."""
    seconds: float
    """Wall time of this run (reused entries cost only their cache look-up)."""
    ignored: tuple[IgnoredFile, ...] = ()
    """Every other path seen under the suite's folders, with why it is no benchmark (hidden, documentation, part of
    a BIG-bench task folder, a duplicate): with :attr:`entries` and :attr:`skipped`, every file is accounted for."""
    KIND: ClassVar[str] = "suite"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = SCHEMA_VERSION
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "suite"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    def sections(self) -> tuple[Section, ...]:
        """The leaderboard chapter, the skipped sources, then one section per benchmark (computes nothing)."""
        return suite_sections(self)

    def overview(self) -> Overview:
        """One board row per benchmark and the headline: how many carry content cues or position artifacts."""
        return suite_overview(self)

    def summary_lines(self) -> tuple[str, ...]:
        """Its short answer, what ``pfungst suite`` prints by default: the count of findings, then each benchmark's
        headline in rank order (the console cuts the list to one screen), then what was skipped."""
        lines = [suite_overview(self).headline]
        lines += [
            f"{rank}. {e.name} ({e.n_items} items): {e.headline.sentence}" for rank, e in enumerate(self.entries, 1)
        ]
        if self.skipped:
            lines.append(f"{len(self.skipped)} source(s) skipped, with why: suite.json 'skipped', and --verbose.")
        return tuple(lines)

    @classmethod
    def build(
        cls,
        entries: Sequence[SuiteEntry],
        skipped: Sequence[SkippedSource],
        provenance: Provenance,
        **run: Any,
    ) -> SuiteResult:
        """Rank ``entries`` by risk and test them across benchmarks; ``run`` gives ``n_reused``, ``seconds`` and
        ``ignored``."""
        alpha = float(provenance.settings.get("alpha", 0.05))
        ranked = tuple(
            sorted(entries, key=lambda e: (e.expected, -_finite(e.risk), -_finite(e.content.estimate.value), e.name))
        )
        content = benjamini_hochberg([e.content.estimate.pvalue for e in ranked], alpha, nan_policy="omit")
        position = benjamini_hochberg(
            [e.position.uniformity.pvalue if e.position else math.nan for e in ranked], alpha, nan_policy="omit"
        )
        return cls(ranked, tuple(skipped), content, position, provenance, **run)

    @property
    def n_items(self) -> int:
        return sum(entry.n_items for entry in self.entries)

    def leaderboard(self) -> pd.DataFrame:
        """One row per audited benchmark, ranked: risk, content figure and interval, q-value, the headline (what
        explains the score, its certainty and sentence; ``ranking``: ``expected`` when declared, ranked apart, else
        ``by size``) and the input it needed, position flag, controls, cues."""
        rows = []
        for rank, (entry, q, p_q) in enumerate(
            zip(self.entries, self.content_tests.qvalues, self.position_tests.qvalues, strict=True), start=1
        ):
            rows.append(
                {
                    "rank": rank,
                    "benchmark": entry.name,
                    "items": entry.n_items,
                    "kind": entry.option_kind,
                    "statistic": entry.content.statistic,
                    "risk": entry.risk,
                    **entry.content.estimate.columns("content"),
                    "content_qvalue": q,
                    "content_label": entry.content.label,
                    "content_feature_set": entry.content.feature_set,
                    "ranking": "expected" if entry.expected else "by size",
                    "finding": entry.content.kind,
                    "explains": entry.headline.explains,
                    "certainty": entry.headline.certainty,
                    "headline": entry.headline.sentence,
                    "evidence_input": entry.content.evidence.input,
                    "evidence_fields": ", ".join(entry.content.evidence.fields),
                    "label_prior": entry.controls.label_only.prior_score.value if entry.controls else math.nan,
                    "constant_answer_flagged": bool(
                        entry.controls and entry.controls.constant_answer and entry.controls.constant_answer.flagged
                    ),
                    "verdict": entry.verdict.label,
                    "position_flagged": entry.position_flagged,
                    "position_only": entry.position.position_only.value if entry.position else math.nan,
                    "gold_most_common": (
                        f"{entry.position.most_common} {entry.position.most_common_share:.0%}" if entry.position else ""
                    ),
                    "position_qvalue": p_q,
                    "top_cues": "; ".join(str(cue) for cue in entry.top_cues),
                }
            )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": self.KIND,
            "n_benchmarks": len(self.entries),
            "n_skipped": len(self.skipped),
            "n_ignored": len(self.ignored),
            "n_items": self.n_items,
            "n_reused": self.n_reused,
            "seconds": self.seconds,
            "entries": [entry.to_dict() for entry in self.entries],
            "skipped": [entry.to_dict() for entry in self.skipped],
            "ignored": [entry.to_dict() for entry in self.ignored],
            "content_tests": self.content_tests.to_dict(),
            "position_tests": self.position_tests.to_dict(),
            "provenance": self.provenance.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> SuiteResult:
        """Read :meth:`to_dict` back (the ranking and the tests are recomputed from the entries).

        Raises:
            ReaderError: a value of the wrong type, a missing key or another schema, naming the file and field.
        """
        fields = Fields(data, source)
        fields.check_schema(SCHEMA_VERSION)
        entries = [read_entry(entry) for entry in fields.records("entries")]
        skipped = [read_entry(entry) for entry in fields.records("skipped")]
        ignored = [IgnoredFile(f.string("source"), f.string("reason")) for f in fields.records("ignored")]
        return cls.build(
            [e for e in entries if isinstance(e, SuiteEntry)],
            [s for s in skipped if isinstance(s, SkippedSource)],
            Provenance.from_fields(fields.sub("provenance")),
            n_reused=fields.integer("n_reused"),
            seconds=fields.number("seconds"),
            ignored=tuple(ignored),
        )

    def save_json(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as JSON (atomically, folders created); returns the path."""
        return write_json(path, self.to_dict())

    def __repr__(self) -> str:
        top = self.entries[0].name if self.entries else "-"
        return (
            f"SuiteResult({len(self.entries)} audited, {len(self.skipped)} skipped, {len(self.ignored)} ignored, "
            f"{self.n_items} items, "
            f"highest risk: {top})"
        )


def _finite(value: float) -> float:
    return -math.inf if math.isnan(value) else value
