"""What scoring a benchmark found: one :class:`~pfungst.evaluate.outcome.Outcome` per item, and accuracy with its
interval against chance, the same estimate a stress run reports for its ``identity`` pass
(:func:`pfungst.stress.score_run.score` runs the stress machinery with ``identity`` alone).

Schema changes that alter a field's meaning bump :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from pfungst.blocks import Section, short_model
from pfungst.display import NotebookDisplay
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_sections import score_chapter, score_overview, score_sections
from pfungst.provenance import Provenance
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields, read_dataclass
from pfungst.serialization import write_json, write_records
from pfungst.stats import Estimate, wilson_interval

__all__ = ["SCHEMA_VERSION", "ScoreCounts", "ScoreResult", "ScoreTotals", "accuracy_estimate"]

SCHEMA_VERSION = SCHEMA_VERSIONS["score"]


@dataclass(frozen=True)
class ScoreCounts:
    """What the run asked and what the model had to answer (the rest came from the cache)."""

    requests: int
    """Requests the scoring rule planned, duplicates included."""
    unique_requests: int
    """Distinct requests among them (each answered once)."""
    hits: int
    """Distinct requests answered from the persistent cache."""
    misses: int
    """Distinct requests the model answered (a resumed run asks only what the interrupted one had not stored)."""
    model_calls: int
    """Batched calls made to the model."""
    seconds: float
    """Wall-clock seconds of the run, model loading excluded."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict."""
        return asdict(self)


@dataclass(frozen=True)
class ScoreTotals:
    """What a score's outcomes add up to, as read from a result file written without its per-item records."""

    n_items: int
    n_refused: int
    n_unparseable: int
    n_skipped: int = 0


def _check_totals(fields: Fields, totals: ScoreTotals, n_records: int) -> None:
    """A score covers at least one item, its per-item records (if held) number ``n_items``, and no more items were
    refused, unparseable or skipped than were scored."""
    if totals.n_items < 1:
        raise fields.error("n_items", f"a score covers at least one item, found {totals.n_items}")
    if n_records and n_records != totals.n_items:
        raise fields.error("items", f"expected n_items = {totals.n_items} records, found {n_records}")
    failed = totals.n_refused + totals.n_unparseable + totals.n_skipped
    if failed > totals.n_items:
        raise fields.error(
            "n_items", f"{failed} items refused, unparseable or skipped, more than the {totals.n_items} scored"
        )


def accuracy_estimate(correct: int, n_options: list[int], level: float = 0.95) -> Estimate:
    """Accuracy with a Wilson interval; the baseline is chance, the mean of ``1 / K`` over the items.

    Example:
        >>> estimate = accuracy_estimate(3, [4, 4, 2, 2])
        >>> estimate.value, estimate.baseline
        (0.75, 0.375)
    """
    n = len(n_options)
    value = correct / n if n else math.nan
    baseline = sum(1 / k for k in n_options) / n if n else math.nan
    return Estimate(value=value, method="wilson", n=n, ci=wilson_interval(correct, n, level), baseline=baseline)


@dataclass(frozen=True, eq=False)
class ScoreResult(NotebookDisplay):
    """A benchmark scored by one model with one scoring rule and one prompt format, with what made it.

    The outcomes are the ``identity`` arrangement of every item (positions are original indices); the refusal counts
    are read from them.
    """

    outcomes: tuple[Outcome, ...]
    """One outcome per item, in benchmark order."""
    accuracy: Estimate
    """Share of items answered correctly (refused, unparseable and skipped count as wrong), baseline chance (the mean
    of ``1 / K``): a Wilson interval, or a cluster-robust one where the items cluster (``cluster_by``), exactly as a
    stress run's ``identity`` accuracy."""
    counts: ScoreCounts
    """Requests, cache hits and misses, model calls, seconds."""
    model: str
    """The model's fingerprint (the cache key's model part)."""
    benchmark: dict[str, Any]
    """``Benchmark.to_dict()`` of the scored items (name, counts, provenance)."""
    provenance: Provenance
    """The data file scored; the settings (scoring rule and its parameters, prompt format, cache file, chunk size);
    the run's seed (generation's sampling seed); the software."""
    schema_version: str = SCHEMA_VERSION
    design_effect: float = math.nan
    """Clustered / naive variance of the accuracy where the items cluster (its interval is then cluster-robust); NaN
    where they do not."""
    file_totals: ScoreTotals | None = None
    """The totals as read from a result file written without per-item records (then ``outcomes`` is empty); None
    when the outcomes are held (the totals are read from them)."""
    KIND: ClassVar[str] = "score"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = SCHEMA_VERSION
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "model"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    def sections(self) -> tuple[Section, ...]:
        """Its chapter: accuracy against chance, answers, positions and requests (computes nothing)."""
        return score_chapter(self)

    def overview(self) -> Overview:
        """Its board row and headline: accuracy against chance."""
        return score_overview(self)

    def summary_lines(self) -> tuple[str, ...]:
        """Its short answer, what ``pfungst score`` prints by default: what was scored, the accuracy with its interval
        against chance, what went unanswered, and the model cache a rerun reads."""
        settings = self.provenance.settings
        accuracy = score_sections(self)[0].blocks[0]
        title = (
            f"Score of {short_model(self.model)} on {self.benchmark.get('name', '?')} ({self.n_items} items, rule "
            f"{settings.get('rule', '?')}, format {settings.get('format', '?')})"
        )
        text = str(getattr(accuracy, "text", ""))
        lines = [title, f"{text[:1].upper()}{text[1:]}."]
        if self.n_refused or self.n_unparseable or self.n_skipped:
            lines.append(
                f"Unanswered: {self.n_refused} refused, {self.n_unparseable} unparseable, {self.n_skipped} skipped."
            )
        cache = str(settings.get("cache") or "")
        if cache and cache != ":memory:":
            lines.append(f"Model answers are cached in {cache}: a rerun asks the model only what is not there yet.")
        return tuple(lines)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ScoreResult:
        """Read :meth:`to_dict` back, checking every value's type; the outcomes only if it holds them.

        Raises:
            ReaderError: a value of the wrong type, a missing key or another schema, naming ``source`` and the field.
        """
        fields = Fields(data, source)
        fields.check_schema(SCHEMA_VERSION)
        fields.sub("provenance").sub("settings").string("rule")
        records = fields.records("items") if fields.has("items") else []
        outcomes = tuple(Outcome.from_fields(entry) for entry in records)
        totals = ScoreTotals(
            fields.integer("n_items"),
            fields.integer("n_refused"),
            fields.integer("n_unparseable"),
            fields.integer("n_skipped") if fields.has("n_skipped") else 0,
        )
        _check_totals(fields, totals, len(records))
        return cls(
            outcomes=outcomes,
            accuracy=fields.estimate("accuracy"),
            design_effect=fields.number("design_effect"),
            counts=read_dataclass(ScoreCounts, fields.sub("counts")),
            model=fields.string("model"),
            benchmark=fields.benchmark(),
            provenance=Provenance.from_fields(fields.sub("provenance")),
            file_totals=None if records else totals,
        )

    @property
    def n_items(self) -> int:
        """Items scored."""
        return self.file_totals.n_items if self.file_totals else len(self.outcomes)

    @property
    def rule(self) -> str:
        """The scoring rule's name."""
        return str(self.provenance.settings["rule"])

    @property
    def items(self) -> tuple[Outcome, ...]:
        """The per-item outcomes (the same as :attr:`outcomes`)."""
        return self.outcomes

    @property
    def n_refused(self) -> int:
        """Generated answers that declined to choose (generate only)."""
        if self.file_totals:
            return self.file_totals.n_refused
        return sum(o.status == "refused" for o in self.outcomes)

    @property
    def n_unparseable(self) -> int:
        """Generated answers from which no option could be read (generate only)."""
        if self.file_totals:
            return self.file_totals.n_unparseable
        return sum(o.status == "unparseable" for o in self.outcomes)

    @property
    def n_skipped(self) -> int:
        """Questions not asked because they do not fit the model's context window (``on_error="skip"``)."""
        if self.file_totals:
            return self.file_totals.n_skipped
        return sum(o.status == "skipped" for o in self.outcomes)

    def items_frame(self) -> pd.DataFrame:
        """One row per item: id, gold, chosen, correct, status, per-option scores and token counts, text."""
        columns = ["item_id", "gold", "chosen", "correct", "status", "scores", "n_tokens", "text"]
        rows = [{**outcome.to_dict(), "scores": list(outcome.scores)} for outcome in self.outcomes]
        return pd.DataFrame(rows, columns=columns)

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; ``items=True`` adds the per-item records."""
        data: dict[str, Any] = {
            "schema_version": self.schema_version,
            "kind": self.KIND,
            "accuracy": self.accuracy.to_dict(),
            "design_effect": None if math.isnan(self.design_effect) else self.design_effect,
            "n_items": self.n_items,
            "n_refused": self.n_refused,
            "n_unparseable": self.n_unparseable,
            "counts": self.counts.to_dict(),
            "model": self.model,
            "benchmark": self.benchmark,
            "provenance": self.provenance.to_dict(),
        }
        if self.n_skipped:
            data["n_skipped"] = self.n_skipped
        if items:
            data["items"] = [outcome.to_dict() for outcome in self.outcomes]
        return data

    def save_json(self, path: str | Path, items: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON to ``path`` (atomically, folders created) and return it."""
        return write_json(path, self.to_dict(items=items))

    def save_items(self, path: str | Path) -> Path:
        """Write the per-item records to ``path``: JSON Lines for ``.jsonl``, Parquet for ``.parquet``.

        Raises:
            ConfigError: another suffix.
        """
        return write_records(path, [outcome.to_dict() for outcome in self.outcomes], self.items_frame, "results")

    def __repr__(self) -> str:
        ci = self.accuracy.ci
        interval = f" [{ci.low:.3f}, {ci.high:.3f}]" if ci else ""
        return (
            f"ScoreResult(rule={self.rule!r}, n={self.n_items}, accuracy={self.accuracy.value:.3f}{interval}, "
            f"chance={self.accuracy.baseline:.3f})"
        )
