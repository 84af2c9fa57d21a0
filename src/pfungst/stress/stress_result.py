"""What a stress run found: accuracy per variant, the analyses of each perturbation, their cost, every outcome.

Schema changes that alter a field's meaning bump :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import ScoreCounts
from pfungst.serialization import to_jsonable, write_json, write_records
from pfungst.stats import Estimate
from pfungst.stress.metrics import VariantAccuracy

__all__ = ["SCHEMA_VERSION", "Analysis", "PerturbationCost", "StressResult", "read_outcomes"]

SCHEMA_VERSION = "pfungst.stress/1"


@dataclass(frozen=True)
class Analysis:
    """One analysis of a perturbation's outcomes: a named result object with ``to_dict()``."""

    name: str
    """What was computed: ``selection-bias``, ``circular``, ``answer-moved``, ``top2``, ``pride``, ..."""
    subject: str
    """Which outcomes it rests on, in words: ``letter, identity``, ``letter, ids shuffled, by label``."""
    value: Any
    """The result object (:class:`~pfungst.stress.metrics.SelectionBias`, :class:`~pfungst.stress.pride.PrideResult`,
    ...)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: name, subject, the result's kind and its ``to_dict()``."""
        return {
            "name": self.name,
            "subject": self.subject,
            "kind": type(self.value).__name__,
            "result": self.value.to_dict(),
        }


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
class StressResult:
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
    settings: dict[str, Any]
    """Every setting (:meth:`~pfungst.stress.stress_config.StressConfig.to_dict`) and each format's fields."""
    seed: int
    """The run's seed."""
    environment: dict[str, Any]
    """Package versions, git revision, platform and time."""
    schema_version: str = SCHEMA_VERSION

    @property
    def n_items(self) -> int:
        """How many items were stressed."""
        return len({outcome.item_id for outcome in self.outcomes})

    def analysis(self, name: str, subject: str | None = None) -> Any:
        """The first analysis called ``name`` (and about ``subject``, if given).

        Raises:
            KeyError: no such analysis; the message lists those present.
        """
        for analysis in self.analyses:
            if analysis.name == name and (subject is None or analysis.subject == subject):
                return analysis.value
        present = sorted({f"{a.name} ({a.subject})" for a in self.analyses})
        raise KeyError(f"no analysis {name!r}{'' if subject is None else f' about {subject!r}'}; present: {present}")

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

    def to_frame(self) -> pd.DataFrame:
        """One row per outcome (item x perturbation x variant x rule x format)."""
        return pd.DataFrame([outcome.to_dict() for outcome in self.outcomes])  # infinite scores as None

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; ``items=True`` adds every outcome."""
        data: dict[str, Any] = {
            "schema_version": self.schema_version,
            "model": self.model,
            "n_items": self.n_items,
            "accuracies": [entry.to_dict() for entry in self.accuracies],
            "analyses": [analysis.to_dict() for analysis in self.analyses],
            "costs": [cost.to_dict() for cost in self.costs],
            "counts": self.counts.to_dict(),
            "warnings": list(self.warnings),
            "benchmark": self.benchmark,
            "settings": self.settings,
            "seed": self.seed,
            "environment": self.environment,
        }
        if items:
            data["outcomes"] = [outcome.to_dict() for outcome in self.outcomes]
        return data

    def save_json(self, path: str | Path, items: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON to ``path`` (atomically, folders created) and return it."""
        return write_json(path, self.to_dict(items=items))

    def save_items(self, path: str | Path) -> Path:
        """Write every outcome to ``path``: JSON Lines for ``.jsonl``, Parquet for ``.parquet``.

        Raises:
            ConfigError: another suffix.
        """
        return write_records(path, [outcome.to_dict() for outcome in self.outcomes], self.to_frame, "outcomes")

    def __repr__(self) -> str:
        plain = self.accuracy
        return (
            f"StressResult(model={self.model!r}, items={self.n_items}, "
            f"perturbations={[c.perturbation for c in self.costs]}, plain accuracy={plain.value:.3f})"
        )


def read_outcomes(path: str | Path) -> tuple[Outcome, ...]:
    """The outcomes that :meth:`StressResult.save_items` wrote to a ``.jsonl`` file.

    Raises:
        ConfigError: a line is not an outcome (the message names the file, line and missing field).
    """
    path = Path(path)
    outcomes: list[Outcome] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                outcomes.append(Outcome.from_dict(json.loads(line)))
            except KeyError as exc:
                raise ConfigError(
                    f"{path}:{number}: field {exc.args[0]!r} is missing; expected an outcome line "
                    "written by pfungst stress --items"
                ) from exc
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"{path}:{number}: not an outcome line ({exc})") from exc
    return tuple(outcomes)
