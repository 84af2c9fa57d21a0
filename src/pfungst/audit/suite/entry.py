"""One benchmark's line in a suite: what its audit found (its headline; the content verdict with the input its
evidence needed, position finding, controls, cues) or why it was skipped, with the cache key that produced it."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from pfungst.audit.controls import AuditControls
from pfungst.audit.headline import Headline
from pfungst.audit.position_content import PositionArtifact
from pfungst.audit.result import AuditResult, Verdict
from pfungst.schema import Fields
from pfungst.serialization import to_jsonable

__all__ = ["SkippedSource", "SuiteEntry", "TopCue", "read_entry"]


@dataclass(frozen=True)
class TopCue:
    """One of a benchmark's strongest cues (its cue table's top rows)."""

    cue: str
    label: str
    """The label it points at, or the gold option (per-item)."""
    productivity: float
    coverage: float
    qvalue: float
    """Benjamini-Hochberg adjusted p-value within the benchmark's cue table."""

    def __str__(self) -> str:
        return f"{self.cue!r}->{self.label} ({self.productivity:.2f}, cov {self.coverage:.2f})"


@dataclass(frozen=True)
class SuiteEntry:
    """An audited benchmark of the suite."""

    name: str
    """Its name in the suite (the path relative to the argument it was found under)."""
    source: str
    """The file that was read."""
    sha256: str
    """SHA-256 of that file's bytes."""
    key: str
    """The cache key: data SHA-256, settings and pfungst version."""
    n_items: int
    option_kind: str
    """``per_item`` or ``shared_labels``."""
    audit_json: str
    """The benchmark's full audit JSON, relative to the suite's output folder."""
    verdict: Verdict
    """The audit's verdict over every probe (for per-item benchmarks it includes position-aware probes)."""
    content: Verdict
    """The verdict over the probes that cannot see positions (shared labels: the verdict)."""
    position: PositionArtifact | None
    """The gold-position finding; None for shared-label benchmarks (no positions)."""
    headline: Headline
    """The audit's headline: what explains its score, how sure, what to do (the board row's words)."""
    top_cues: tuple[TopCue, ...]
    seconds: float
    """Wall time of its audit when it ran (a reused entry keeps the time of the run that made it)."""
    controls: AuditControls | None = None
    """The label-only baseline and (per-item) the constant-answer check of its audit; None when the audit had none."""

    @property
    def expected(self) -> bool:
        """The content finding is one the task declares it is answered from (``--lexical-task`` or BIG-bench
        keywords): ranked apart, after the others. An undeclared full-input finding is ranked with the others."""
        return "expected" in self.headline.findings

    @property
    def risk(self) -> float:
        """Clever-Hans risk: the lower bound of the content verdict's simultaneous interval (NaN if none)."""
        ci = self.content.estimate.ci
        return ci.low if ci is not None else math.nan

    @property
    def position_flagged(self) -> bool:
        return self.position is not None and self.position.flagged

    @classmethod
    def from_result(
        cls, result: AuditResult, content: Verdict, position: PositionArtifact | None, **where: Any
    ) -> SuiteEntry:
        """The entry of a fresh audit; ``where`` gives name, source, sha256, key, audit_json, seconds, top_k."""
        top_k = int(where.pop("top_k", 3))
        cues = result.cues.cues[:top_k] if result.cues else ()
        return cls(
            n_items=int(result.benchmark.get("n_items", 0)),
            option_kind=str(result.benchmark.get("option_kind", "")),
            verdict=result.verdict,
            content=content,
            position=position,
            headline=result.headline,
            top_cues=tuple(TopCue(c.cue, c.label, c.productivity, c.coverage, c.qvalue) for c in cues),
            controls=result.controls,
            **where,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": "audited",
            "name": self.name,
            "source": self.source,
            "sha256": self.sha256,
            "key": self.key,
            "n_items": self.n_items,
            "option_kind": self.option_kind,
            "audit_json": self.audit_json,
            "risk": to_jsonable(self.risk),
            "verdict": self.verdict.to_dict(),
            "content": self.content.to_dict(),
            "position": self.position.to_dict() if self.position else None,
            "headline": self.headline.to_dict(),
            "top_cues": [to_jsonable(asdict(cue)) for cue in self.top_cues],
            "seconds": self.seconds,
            "controls": self.controls.to_dict() if self.controls else None,
        }


@dataclass(frozen=True)
class SkippedSource:
    """A source of the suite that was not audited, and why (never dropped silently)."""

    name: str
    source: str
    sha256: str
    key: str
    reason: str
    """The error that stopped it: a reader's message (a generative BIG-bench task, an undetected format) or a
    setting the benchmark cannot meet (too few items for the folds)."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": "skipped", **asdict(self)}


def read_entry(fields: Fields) -> SuiteEntry | SkippedSource:
    """An entry or a skipped source from its ``to_dict()``.

    Raises:
        ReaderError: a value of the wrong type or a missing key, naming the file and the field.
    """
    where = {key: fields.string(key) for key in ("name", "source", "sha256", "key")}
    if fields.string("status") == "skipped":
        return SkippedSource(**where, reason=fields.string("reason"))
    position = fields.raw("position") if fields.has("position") else None
    return SuiteEntry(
        **where,
        n_items=fields.integer("n_items"),
        option_kind=fields.string("option_kind"),
        audit_json=fields.string("audit_json"),
        verdict=Verdict.from_fields(fields.sub("verdict")),
        content=Verdict.from_fields(fields.sub("content")),
        position=PositionArtifact.from_fields(fields.sub("position")) if position is not None else None,
        headline=Headline.from_fields(fields.sub("headline")),
        top_cues=tuple(
            TopCue(
                cue=cue.string("cue"),
                label=cue.string("label"),
                productivity=cue.number("productivity"),
                coverage=cue.number("coverage"),
                qvalue=cue.number("qvalue"),
            )
            for cue in fields.records("top_cues")
        ),
        seconds=fields.number("seconds"),
        controls=AuditControls.from_fields(fields.sub("controls")) if fields.raw("controls") is not None else None,
    )
