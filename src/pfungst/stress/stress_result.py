"""What a stress run found: accuracy per variant, the analyses of each perturbation, their cost, every outcome.

Schema changes that alter a field's meaning bump :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar, overload

import pandas as pd

from pfungst.blocks import Section
from pfungst.data.records import parse_json
from pfungst.display import NotebookDisplay
from pfungst.errors import ConfigError, ReaderError
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import ScoreCounts
from pfungst.provenance import Provenance
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields, read_dataclass
from pfungst.serialization import to_jsonable, write_json, write_records
from pfungst.stats import Estimate
from pfungst.stress.analysis import Analysis
from pfungst.stress.metrics import VariantAccuracy
from pfungst.stress.sections import stress_chapter, stress_overview
from pfungst.stress.summary_lines import stress_summary_lines
from pfungst.stress.verdict import StressVerdict, judge

__all__ = ["SCHEMA_VERSION", "Analysis", "PerturbationCost", "StressResult", "read_outcomes"]

SCHEMA_VERSION = SCHEMA_VERSIONS["stress"]
"""The layout of :meth:`StressResult.to_dict`: analyses carry typed keys and a stable result ``kind``."""

R = TypeVar("R")


@dataclass(frozen=True)
class PerturbationCost:
    """What one perturbation costs relative to one plain pass over the same items (measured on this run's plan)."""

    perturbation: str
    """The perturbation's name."""
    questions: int
    """Questions (item presentations x formats x rules) it asked."""
    requests: int
    """Distinct model requests it needs on its own (shared prefixes aside)."""
    passes_ratio: float
    """``questions`` over the items of the plain pass: circular = n, PriDe about 1 + K(n - 1)."""
    requests_ratio: float
    """``requests`` over the distinct requests of the plain pass."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> PerturbationCost:
        """The entry that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict."""
        return {
            "perturbation": self.perturbation,
            "questions": self.questions,
            "requests": self.requests,
            "passes_ratio": to_jsonable(self.passes_ratio),
            "requests_ratio": to_jsonable(self.requests_ratio),
        }


@dataclass(frozen=True, eq=False)
class StressResult(NotebookDisplay):
    """A model stressed on a benchmark: what changed its answers, by how much, and what each figure cost."""

    model: str
    """The model's fingerprint."""
    accuracies: tuple[VariantAccuracy, ...]
    """Accuracy (Wilson interval, chance baseline) of every perturbation x variant x rule x format."""
    analyses: tuple[Analysis, ...]
    """Each perturbation's analyses, in run order."""
    costs: tuple[PerturbationCost, ...]
    """Each perturbation's cost relative to one plain pass."""
    outcomes: tuple[Outcome, ...]
    """Every question's outcome."""
    counts: ScoreCounts
    """Requests, cache hits and misses, model calls and seconds of the whole run."""
    warnings: tuple[str, ...]
    """What was skipped and why (a perturbation that does not apply to the rule, items without enough options)."""
    benchmark: dict[str, Any]
    """``Benchmark.to_dict()`` of the items stressed."""
    provenance: Provenance
    """The data file stressed; every setting (:meth:`~pfungst.stress.stress_config.StressConfig.to_dict`) and each
    format's fields; the run's seed; the software."""
    schema_version: str = SCHEMA_VERSION
    verdict: StressVerdict = field(default=None)  # type: ignore[assignment]  # judged in __post_init__
    """Position dependence, format and rule spread against their thresholds (:func:`~pfungst.stress.verdict.judge`);
    judged from ``accuracies`` and ``analyses`` when not given."""

    KIND: ClassVar[str] = "stress"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = SCHEMA_VERSION
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "model"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    def sections(self) -> tuple[Section, ...]:
        """Its chapter: the verdict, the run's facts, accuracy per variant, each analysis, costs (computes nothing)."""
        return stress_chapter(self)

    def overview(self) -> Overview:
        """Its board row (the verdict it wrote) and headline (the plain accuracy)."""
        return stress_overview(self)

    def summary_lines(self) -> tuple[str, ...]:
        """Its short answer in sentences, what ``pfungst stress`` prints by default: the finding, the plain accuracy,
        each measured check, and where the model's answers are cached."""
        return stress_summary_lines(self)

    def __post_init__(self) -> None:
        if self.verdict is None:
            object.__setattr__(
                self, "verdict", judge(self.accuracies, self.analyses, str(self.provenance.settings.get("rule", "")))
            )

    @property
    def n_items(self) -> int:
        """How many items were stressed (the benchmark's count when the result was read without its outcomes)."""
        if not self.outcomes:
            return int(self.benchmark.get("n_items", 0))
        return len({outcome.item_id for outcome in self.outcomes})

    @overload
    def analysis(self, kind: type[R], subject: str | None = None, **keys: str | None) -> R: ...

    @overload
    def analysis(self, kind: str, subject: str | None = None, **keys: str | None) -> Any: ...

    def analysis(self, kind: str | type[Any], subject: str | None = None, **keys: str | None) -> Any:
        """The result of the first analysis of ``kind`` with the given keys.

        Args:
            kind: A result class (``SelectionBias``, typed), or a kind (``selection-bias``).
            subject: The analysis's subject in words (``letter, identity, by position``), if given.
            keys: ``perturbation``, ``rule``, ``variant``, ``by`` (``position`` or ``label``).

        Example:
            ``result.analysis(SelectionBias, perturbation="ids-shuffled", by="label").rstd``

        Raises:
            KeyError: no such analysis; the message lists those present.
        """
        unknown = set(keys) - {"perturbation", "rule", "variant", "by"}
        if unknown:
            raise TypeError(f"analysis() got unknown keys {sorted(unknown)}; use perturbation, rule, variant, by")
        for analysis in self.analyses:
            if analysis.matches(kind, subject, **keys):
                return analysis.result
        wanted = kind.__name__ if isinstance(kind, type) else kind
        about = "" if subject is None else f" about {subject!r}"
        given = "".join(f", {key}={value!r}" for key, value in keys.items() if value is not None)
        present = "; ".join(analysis.describe() for analysis in self.analyses) or "none"
        raise KeyError(f"no analysis {wanted!r}{about}{given}; present: {present}")

    @property
    def accuracy(self) -> Estimate:
        """The accuracy of the items as given (the ``identity`` pass), reached as on every result
        (``ScoreResult.accuracy``, each ``ModelRank.accuracy`` of a comparison): value, Wilson interval, chance
        baseline, n."""
        return self.accuracy_of("identity").accuracy

    def accuracy_of(self, perturbation: str, variant: str | None = None) -> VariantAccuracy:
        """The accuracy of the first matching perturbation (and variant): ``accuracy_of("cyclic", "shift 1")``.

        Raises:
            KeyError: none matches.
        """
        for entry in self.accuracies:
            if entry.perturbation == perturbation and variant in (None, entry.variant):
                return entry
        raise KeyError(f"no accuracy for perturbation {perturbation!r} variant {variant!r}")

    def items_frame(self) -> pd.DataFrame:
        """One row per outcome (item x perturbation x variant x rule x format)."""
        return pd.DataFrame([outcome.to_dict() for outcome in self.outcomes])  # infinite scores as None

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; ``items=True`` adds every outcome."""
        data: dict[str, Any] = {
            "schema_version": self.schema_version,
            "kind": self.KIND,
            "model": self.model,
            "n_items": self.n_items,
            "accuracies": [entry.to_dict() for entry in self.accuracies],
            "analyses": [analysis.to_dict() for analysis in self.analyses],
            "costs": [cost.to_dict() for cost in self.costs],
            "counts": self.counts.to_dict(),
            "warnings": list(self.warnings),
            "verdict": self.verdict.to_dict(),
            "benchmark": self.benchmark,
            "provenance": self.provenance.to_dict(),
        }
        if items:
            data["outcomes"] = [outcome.to_dict() for outcome in self.outcomes]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>", path: str = "") -> StressResult:
        """The result that :meth:`to_dict` wrote (with its outcomes if it was written with ``items=True``), every
        analysis as its typed result.

        Args:
            data: The dict :meth:`to_dict` wrote.
            source: The file it came from, for messages.
            path: Where it sits in that file (``results[1]`` of a comparison); empty for a file of its own.

        Raises:
            ConfigError: not a stress result.
            ReaderError: a key missing or a value of the wrong type, named by ``source`` and its full field path
                (``analyses[2].result.rstd.value``, ``verdict.checks[1].status``).
        """
        fields = Fields(data, source, path)
        version = fields.data.get("schema_version")
        if version != SCHEMA_VERSION:
            where = f"{source}: {path}" if path else source
            raise ConfigError(f"{where}: expected a stress result ({SCHEMA_VERSION}), got schema_version {version!r}")
        verdict = _verdict(fields) if fields.has("verdict") else None
        return cls(
            model=fields.string("model"),
            accuracies=fields.typed("accuracies", tuple[VariantAccuracy, ...]),
            analyses=tuple(_analysis(record) for record in fields.records("analyses")),
            costs=fields.typed("costs", tuple[PerturbationCost, ...]),
            outcomes=tuple(Outcome.from_fields(record) for record in fields.records("outcomes"))
            if "outcomes" in data
            else (),
            counts=fields.typed("counts", ScoreCounts),
            warnings=fields.typed("warnings", tuple[str, ...]),
            benchmark=fields.benchmark(),
            provenance=Provenance.from_fields(fields.sub("provenance")),
            verdict=verdict,  # type: ignore[arg-type]  # None: judged from the figures
        )

    def save_json(self, path: str | Path, items: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON to ``path`` (atomically, folders created) and return it."""
        return write_json(path, self.to_dict(items=items))

    def save_items(self, path: str | Path) -> Path:
        """Write every outcome to ``path``: JSON Lines for ``.jsonl``, Parquet for ``.parquet``.

        Raises:
            ConfigError: another suffix.
        """
        return write_records(path, [outcome.to_dict() for outcome in self.outcomes], self.items_frame, "outcomes")

    def __repr__(self) -> str:
        plain = self.accuracy
        return (
            f"StressResult(model={self.model!r}, items={self.n_items}, "
            f"perturbations={[c.perturbation for c in self.costs]}, plain accuracy={plain.value:.3f})"
        )


def _verdict(fields: Fields) -> StressVerdict:
    """The verdict the run wrote; a wrong value or an unknown status is named by its path (``verdict.checks[1]``)."""
    return StressVerdict.from_fields(fields.sub("verdict"))


def _analysis(fields: Fields) -> Analysis:
    """One analysis; a value its result class cannot read is named by file and field path."""
    try:
        return Analysis.from_dict(fields.data, fields.source, fields.path)
    except ReaderError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a plugin's result class reading dicts itself
        raise fields.error("", f"not an analysis as pfungst writes it ({type(exc).__name__}: {exc})") from exc


def read_outcomes(path: str | Path) -> tuple[Outcome, ...]:
    """The outcomes that :meth:`StressResult.save_items` wrote to a ``.jsonl`` file.

    Raises:
        ConfigError: a line that is not JSON.
        ReaderError: a line that is not an outcome (the message names the file, line and field).
    """
    path = Path(path)
    outcomes: list[Outcome] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = parse_json(line)
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"{path}:{number}: not an outcome line ({exc})") from exc
            try:
                outcomes.append(Outcome.from_dict(data, str(path)))
            except ReaderError as error:
                hint = "Pass an outcome file that pfungst stress --items wrote, unchanged."
                raise ReaderError(path, number, error.field, error.reason, hint) from None
    return tuple(outcomes)
