"""What every zero-training heuristic shares: its settings, its result record, and how its predictions are scored
(accuracy with a Wilson interval and a binomial test, Cohen's kappa with a bootstrap interval and a permutation
p-value, and Pacchiardi et al.'s chance-corrected accuracy). :mod:`pfungst.audit.heuristics` and
:mod:`pfungst.audit.hans` build on it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from pfungst.audit.resampled_kappa import bootstrap_draws_kappa, interval_from_draws, kappa_permutation_pvalue
from pfungst.data.benchmark import Benchmark
from pfungst.errors import ConfigError, check_resamples
from pfungst.stats import (
    ConfidenceInterval,
    Estimate,
    binomial_pvalue,
    cohen_kappa,
    wilson_interval,
)

__all__ = ["ABSTAIN", "HeuristicConfig", "HeuristicResult", "score_predictions"]

ABSTAIN = -1


@dataclass(frozen=True)
class HeuristicConfig:
    """Settings shared by every heuristic."""

    seed: int = 0
    """Seed of tie-breaking, fold assignment, bootstrap and permutations."""
    length_unit: Literal["characters", "words"] = "characters"
    """How option length is measured for longest / shortest option."""
    n_splits: int = 5
    """Folds for cross-fitting the most frequent gold position or label."""
    n_resamples: int = 1000
    """Bootstrap resamples for the kappa interval."""
    n_permutations: int = 1000
    """Permutations for the kappa p-value."""
    level: float = 0.95
    """Confidence level of every interval."""

    def __post_init__(self) -> None:
        if self.length_unit not in ("characters", "words"):
            raise ConfigError(f"length_unit must be 'characters' or 'words', not {self.length_unit!r}")
        if self.n_splits < 2:
            raise ConfigError(f"n_splits must be at least 2 for cross-fitting, not {self.n_splits}")
        check_resamples(n_resamples=self.n_resamples, n_permutations=self.n_permutations)


@dataclass(frozen=True)
class HeuristicResult:
    """A heuristic's per-item predictions and how good they are."""

    name: str
    """Short name (``longest_option``, ``hans_lexical_overlap``, ...)."""
    description: str
    """What it predicts, in words."""
    item_ids: tuple[str, ...]
    """Item ids, in benchmark order."""
    gold: tuple[int, ...]
    """Gold option index per item."""
    predictions: tuple[int, ...]
    """Predicted option index per item; -1 where the heuristic abstains."""
    accuracy: Estimate
    """Share right among the items it predicts for (Wilson interval; binomial test against ``baseline``)."""
    kappa: Estimate
    """Cohen's kappa on those items (bootstrap interval; permutation p-value)."""
    chance_corrected_accuracy: Estimate
    """``(acc - c) / (1 - c)``, Pacchiardi et al.'s "kappa" (interval from the Wilson interval's ends)."""
    coverage: float
    """Share of items it predicts for (1 unless it abstains)."""
    tie_rate: float
    """Share of items where its rule tied and a random choice decided (0 where ties cannot arise)."""
    file_n_items: int = -1
    """Items, as read from a result file (which holds no per-item rows); -1 when the rows are held."""

    @property
    def n_items(self) -> int:
        """Items the heuristic was run on."""
        return self.file_n_items if self.file_n_items >= 0 else len(self.item_ids)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self.name!r}, accuracy={self.accuracy.value:.3f}, "
            f"kappa={self.kappa.value:.3f}, coverage={self.coverage:.3f})"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per item: item_id, prediction (-1 = abstains), gold, correct (NA where it abstains)."""
        predictions, gold = np.array(self.predictions), np.array(self.gold)
        correct = pd.array(predictions == gold, dtype="boolean")
        correct[predictions == ABSTAIN] = pd.NA
        return pd.DataFrame(
            {"item_id": list(self.item_ids), "prediction": predictions, "gold": gold, "correct": correct}
        )

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe summary; ``items=True`` adds the per-item rows of :meth:`to_frame` (prediction -1: abstains)."""
        rows = {"items": self._item_rows()} if items and self.item_ids else {}
        return {
            "name": self.name,
            "description": self.description,
            "n_items": self.n_items,
            "accuracy": self.accuracy.to_dict(),
            "kappa": self.kappa.to_dict(),
            "chance_corrected_accuracy": self.chance_corrected_accuracy.to_dict(),
            "coverage": self.coverage,
            "tie_rate": self.tie_rate,
            **rows,
        }

    def _item_rows(self) -> list[dict[str, Any]]:
        return [
            {"item_id": item, "prediction": int(p), "gold": int(g), "correct": None if p == ABSTAIN else bool(p == g)}
            for item, p, g in zip(self.item_ids, self.predictions, self.gold, strict=True)
        ]


def score_predictions(
    benchmark: Benchmark,
    name: str,
    description: str,
    predictions: np.ndarray,
    config: HeuristicConfig,
    *,
    tie_rate: float,
    baseline: float = math.nan,
) -> HeuristicResult:
    """Accuracy, kappa and chance-corrected accuracy of ``predictions`` on the items it does not abstain on."""
    gold = np.array([item.gold for item in benchmark])
    covered = predictions != ABSTAIN
    true, pred = gold[covered], predictions[covered]
    n, right = int(covered.sum()), int(np.sum(true == pred))
    chance = _chance(benchmark, covered)
    if math.isnan(baseline):
        majority = float(np.mean(gold == np.bincount(gold).argmax()))
        baseline = chance if benchmark.option_kind.has_positions else majority
    ci = wilson_interval(right, n, config.level)
    pvalue = binomial_pvalue(right, n, baseline, "greater")
    accuracy = Estimate(
        right / n if n else math.nan,
        "accuracy; Wilson interval; one-sided binomial test against the baseline",
        n,
        ci,
        pvalue,
        baseline,
    )
    corrected = Estimate(
        _rescale(accuracy.value, chance),
        "chance-corrected accuracy (acc - c) / (1 - c), c = mean 1/K "
        "(Pacchiardi et al. 2024); interval from the Wilson interval",
        n,
        ConfidenceInterval(_rescale(ci.low, chance), _rescale(ci.high, chance), config.level),
        baseline=0.0,
    )
    return HeuristicResult(
        name,
        description,
        tuple(item.id for item in benchmark),
        tuple(int(g) for g in gold),
        tuple(int(p) for p in predictions),
        accuracy,
        _kappa(true, pred, config),
        corrected,
        n / len(benchmark),
        tie_rate,
    )


def _chance(benchmark: Benchmark, covered: np.ndarray) -> float:
    """Guessing's accuracy on the covered items: the mean of ``1 / K`` for per-item choices, else one over the
    number of labels."""
    sizes = [item.n_options for item, c in zip(benchmark, covered, strict=True) if c]
    return benchmark.option_kind.chance(sizes, len(benchmark.labels))


def _rescale(accuracy: float, chance: float) -> float:
    return (accuracy - chance) / (1 - chance) if chance < 1 else math.nan


def _kappa(true: np.ndarray, pred: np.ndarray, config: HeuristicConfig) -> Estimate:
    if true.size == 0:
        return Estimate(math.nan, "Cohen's kappa (no items scored)", 0)
    # The vectorised resamplers draw exactly what bootstrap_interval and permutation_pvalue draw with
    # cohen_kappa (tests/audit/test_resampled_kappa.py), without a Python call per resample.
    true, pred = true.astype(np.int64), pred.astype(np.int64)
    interval = ConfidenceInterval(math.nan, math.nan, config.level)
    if config.n_resamples > 0:
        _, draws = bootstrap_draws_kappa(true, pred[np.newaxis, :], n_resamples=config.n_resamples, seed=config.seed)
        interval = interval_from_draws(draws, config.level)
    pvalue = kappa_permutation_pvalue(true, pred[np.newaxis, :], n_permutations=config.n_permutations, seed=config.seed)
    return Estimate(
        cohen_kappa(true, pred),
        "Cohen's kappa (chance from label and prediction marginals); "
        "percentile bootstrap interval; one-sided permutation p-value",
        true.size,
        interval,
        pvalue,
        baseline=0.0,
    )
