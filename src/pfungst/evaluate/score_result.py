"""What scoring a benchmark found: accuracy with its interval against chance, and one record per item.

Schema changes that alter a field's meaning bump :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from pfungst.errors import ConfigError
from pfungst.evaluate.scoring.base import Status
from pfungst.stats import Estimate, wilson_interval

__all__ = ["SCHEMA_VERSION", "ItemScore", "ScoreCounts", "ScoreResult", "accuracy_estimate", "write_records"]

SCHEMA_VERSION = "pfungst.score/1"
_ITEM_SUFFIXES = (".jsonl", ".parquet")


@dataclass(frozen=True)
class ItemScore:
    """How the model answered one item; option indices are in the item's original order."""

    item_id: str
    """The item's id in the benchmark."""
    gold: int
    """The gold option's original index."""
    chosen: int
    """The chosen option's original index; -1 when nothing was chosen (``status`` is not ``ok``)."""
    correct: bool
    """Whether ``chosen == gold`` (False for refused or unparseable answers)."""
    scores: tuple[float, ...]
    """One score per option in original order, higher is better (see the scoring rule for the unit)."""
    status: Status
    """``ok``, or for generation ``refused`` / ``unparseable``."""
    text: str
    """The generated text (generate only; empty otherwise)."""
    n_tokens: tuple[int, ...]
    """Tokens of each option's scored continuation in original order (cloze and PMI rules); empty where unknown."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (infinite scores become ``None``)."""
        return {
            "item_id": self.item_id,
            "gold": self.gold,
            "chosen": self.chosen,
            "correct": self.correct,
            "scores": [score if math.isfinite(score) else None for score in self.scores],
            "status": self.status,
            "text": self.text,
            "n_tokens": list(self.n_tokens),
        }


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
class ScoreResult:
    """A benchmark scored by one model with one scoring rule and one prompt format, with what made it."""

    accuracy: Estimate
    """Share of items answered correctly (refused and unparseable answers count as wrong), Wilson interval,
    baseline chance (mean ``1 / K``)."""
    items: tuple[ItemScore, ...]
    """One record per item, in benchmark order."""
    n_refused: int
    """Generated answers that declined to choose (generate only)."""
    n_unparseable: int
    """Generated answers from which no option could be read (generate only)."""
    counts: ScoreCounts
    """Requests, cache hits and misses, model calls, seconds."""
    model: str
    """The model's fingerprint (the cache key's model part)."""
    benchmark: dict[str, Any]
    """``Benchmark.to_dict()`` of the scored items (name, counts, provenance)."""
    settings: dict[str, Any]
    """The scoring rule and its parameters, the prompt format, the cache file and chunk size."""
    seed: int
    """The run's seed (generation's sampling seed)."""
    environment: dict[str, Any]
    """Package versions, git revision, platform and time (:func:`pfungst.environment.environment`)."""
    schema_version: str = SCHEMA_VERSION

    @property
    def rule(self) -> str:
        """The scoring rule's name."""
        return str(self.settings["rule"])

    def to_frame(self) -> pd.DataFrame:
        """One row per item: id, gold, chosen, correct, status, per-option scores and token counts, text."""
        columns = ["item_id", "gold", "chosen", "correct", "status", "scores", "n_tokens", "text"]
        rows = [{**record.to_dict(), "scores": list(record.scores)} for record in self.items]
        return pd.DataFrame(rows, columns=columns)

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; ``items=True`` adds the per-item records."""
        data: dict[str, Any] = {
            "schema_version": self.schema_version,
            "accuracy": self.accuracy.to_dict(),
            "n_items": len(self.items),
            "n_refused": self.n_refused,
            "n_unparseable": self.n_unparseable,
            "counts": self.counts.to_dict(),
            "model": self.model,
            "benchmark": self.benchmark,
            "settings": self.settings,
            "seed": self.seed,
            "environment": self.environment,
        }
        if items:
            data["items"] = [record.to_dict() for record in self.items]
        return data

    def save_json(self, path: str | Path, items: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON to ``path`` and return it."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(items=items), indent=2, ensure_ascii=False) + "\n")
        return path

    def save_items(self, path: str | Path) -> Path:
        """Write the per-item records to ``path``: JSON Lines for ``.jsonl``, Parquet for ``.parquet``.

        Raises:
            ConfigError: another suffix.
        """
        return write_records(path, [record.to_dict() for record in self.items], self.to_frame, "results")

    def __repr__(self) -> str:
        ci = self.accuracy.ci
        interval = f" [{ci.low:.3f}, {ci.high:.3f}]" if ci else ""
        return (
            f"ScoreResult(rule={self.rule!r}, n={len(self.items)}, accuracy={self.accuracy.value:.3f}{interval}, "
            f"chance={self.accuracy.baseline:.3f})"
        )


def write_records(
    path: str | Path, rows: Sequence[dict[str, Any]], frame: Callable[[], pd.DataFrame], name: str
) -> Path:
    """Write per-item ``rows`` to ``path``: one JSON object per line for ``.jsonl``, ``frame()`` as Parquet for
    ``.parquet``.

    Raises:
        ConfigError: another suffix (the message suggests ``<name>.jsonl``).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in _ITEM_SUFFIXES:
        raise ConfigError(
            f"cannot write per-item {name} to {path}: the suffix {path.suffix!r} is not one of "
            f"{list(_ITEM_SUFFIXES)}. Name the file {name}.jsonl or {name}.parquet."
        )
    if suffix == ".parquet":
        frame().to_parquet(path, index=False)
    else:
        with path.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
