"""Zero-training baselines: how far do "pick the longest option", "pick slot A" or "entail when the words overlap" go?

Each heuristic predicts an answer per item (or abstains) and is scored with the same estimates as a trained probe:
accuracy (Wilson interval; one-sided binomial test against its baseline), Cohen's kappa (chance from the label and
prediction marginals; percentile bootstrap interval; one-sided permutation p-value for kappa = 0) and Pacchiardi et
al. 2024's chance-corrected accuracy ``(acc - c) / (1 - c)``, with ``c`` the mean of ``1 / K`` over the scored items
(``1/K`` itself when every item has ``K`` options).

- ``longest_option`` / ``shortest_option`` (per-item choices): ties are broken at random (seeded); ``tie_rate`` says
  how often that was needed.
- ``gold_position`` (per-item) and ``majority_label`` (shared labels): the most frequent answer is learned on the
  other folds of a seeded K-fold split (cross-fitted), never in-sample, so that the score is an honest out-of-sample
  figure; an item with fewer options than the learned position gets the most frequent position it has. The
  gold-position result carries a chi-squared test of uniform gold positions whose expected count for position
  ``p`` is the sum of ``1 / K_i`` over the items with more than ``p`` options (so mixed option counts are fair).
- HANS-style heuristics (McCoy et al. 2019) for NLI-shaped items (fields ``premise`` and ``hypothesis``): *lexical
  overlap* (every hypothesis word is a premise word) and *subsequence* (the hypothesis words are a contiguous run
  of the premise words). Each is reported as counts and rates per gold label, and as a predictor "entailment where
  it holds", scored only on the items where it holds (its ``coverage``); its accuracy's baseline is the entailment
  rate of the whole benchmark. Its kappa is 0 by construction (a constant prediction). The *constituent* heuristic
  (the hypothesis is a complete subtree of the premise's constituency parse) is not offered: no maintained
  constituency parser installs from PyPI and runs without downloading a model (benepar and stanza download theirs
  at run time; spaCy parses dependencies, and its English pipelines are not on PyPI), and no parse-free test is
  McCoy et al.'s definition (a contiguous run of words, ``subsequence``, is necessary but not sufficient).

Example:
    >>> from pfungst.data.synthetic import make_synthetic
    >>> result = longest_option(make_synthetic("longest-option", 400))
    >>> result.accuracy.value > result.accuracy.baseline
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold

from pfungst.audit.folds import fold_ids, is_grouped
from pfungst.audit.hans import HansCount, hans_heuristics, is_nli_shaped
from pfungst.audit.heuristic_scoring import HeuristicConfig, HeuristicResult, score_predictions
from pfungst.data.benchmark import Benchmark
from pfungst.errors import ConfigError
from pfungst.stats import (
    ConfidenceInterval,
    Estimate,
    chisquare_test,
)

__all__ = [
    "GoldPositionResult",
    "HansCount",
    "HeuristicConfig",
    "HeuristicResult",
    "HeuristicsReport",
    "gold_position",
    "hans_heuristics",
    "longest_option",
    "majority_label",
    "run_heuristics",
    "shortest_option",
]


@dataclass(frozen=True, repr=False)
class GoldPositionResult(HeuristicResult):
    """The most-frequent-position heuristic, with the test of uniform gold positions."""

    uniformity: Estimate = field(default_factory=lambda: Estimate(math.nan, "not computed", 0))
    """Chi-squared test of "gold positions are uniform" (expected counts allow for mixed option counts)."""
    position_counts: tuple[int, ...] = ()
    """Gold answers at each position (0-based), over the whole benchmark."""
    expected_counts: tuple[float, ...] = ()
    """What uniform positions would give at each position."""

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        return {
            **super().to_dict(items),
            "uniformity": self.uniformity.to_dict(),
            "position_counts": list(self.position_counts),
            "expected_counts": list(self.expected_counts),
        }


@dataclass(frozen=True)
class HeuristicsReport:
    """Every heuristic that applies to a benchmark."""

    benchmark: str
    """Name of the benchmark."""
    results: tuple[HeuristicResult, ...]
    """One result per heuristic that applies, in a fixed order."""
    hans_counts: tuple[HansCount, ...]
    """HANS counts per heuristic and label; empty unless the items are NLI-shaped."""
    config: HeuristicConfig
    """The settings used."""

    def to_frame(self) -> pd.DataFrame:
        """One row per heuristic: name, accuracy, its interval and baseline, kappa and interval, coverage, ties."""
        rows = [
            {
                "heuristic": r.name,
                "accuracy": r.accuracy.value,
                "accuracy_low": _ci(r.accuracy).low,
                "accuracy_high": _ci(r.accuracy).high,
                "baseline": r.accuracy.baseline,
                "kappa": r.kappa.value,
                "kappa_low": _ci(r.kappa).low,
                "kappa_high": _ci(r.kappa).high,
                "kappa_pvalue": r.kappa.pvalue,
                "chance_corrected_accuracy": r.chance_corrected_accuracy.value,
                "coverage": r.coverage,
                "tie_rate": r.tie_rate,
                "n": r.accuracy.n,
            }
            for r in self.results
        ]
        return pd.DataFrame(rows)

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; ``items=True`` adds each heuristic's per-item predictions."""
        return {
            "benchmark": self.benchmark,
            "results": [r.to_dict(items) for r in self.results],
            "hans_counts": [vars(c).copy() for c in self.hans_counts],
            "config": vars(self.config).copy(),
        }


def _ci(estimate: Estimate) -> ConfidenceInterval:
    return estimate.ci or ConfidenceInterval(math.nan, math.nan)


def longest_option(benchmark: Benchmark, *, config: HeuristicConfig | None = None) -> HeuristicResult:
    """Pick each item's longest option (ties at random), the classic answer-length artifact."""
    return _length_heuristic(benchmark, config or HeuristicConfig(), max, "longest_option")


def shortest_option(benchmark: Benchmark, *, config: HeuristicConfig | None = None) -> HeuristicResult:
    """Pick each item's shortest option (ties at random)."""
    return _length_heuristic(benchmark, config or HeuristicConfig(), min, "shortest_option")


def _length_heuristic(
    benchmark: Benchmark, config: HeuristicConfig, pick: Callable[..., int], name: str
) -> HeuristicResult:
    _require_per_item(benchmark, name)
    rng = np.random.default_rng([config.seed, 0 if name == "longest_option" else 1])
    predictions, ties = [], 0
    for item in benchmark:
        lengths = [len(o) if config.length_unit == "characters" else len(o.split()) for o in item.options]
        target = pick(lengths)
        candidates = [i for i, length in enumerate(lengths) if length == target]
        ties += len(candidates) > 1
        predictions.append(int(rng.choice(candidates)) if len(candidates) > 1 else candidates[0])
    description = f"the option with the {name.split('_')[0]} text (in {config.length_unit}), ties at random"
    return score_predictions(
        benchmark, name, description, np.array(predictions), config, tie_rate=ties / len(benchmark)
    )


def gold_position(
    benchmark: Benchmark, *, config: HeuristicConfig | None = None, groups: np.ndarray | None = None
) -> GoldPositionResult:
    """Predict the position where gold answers sit most often (learned on the other folds, each of ``groups`` kept
    whole), and test uniformity."""
    config = config or HeuristicConfig()
    _require_per_item(benchmark, "gold_position")
    gold = np.array([item.gold for item in benchmark])
    sizes = np.array([item.n_options for item in benchmark])
    predictions = _cross_fitted_mode(gold, sizes, int(sizes.max()), config, groups)
    observed = np.bincount(gold, minlength=int(sizes.max()))
    expected = np.array([np.sum(1.0 / sizes[sizes > p]) for p in range(int(sizes.max()))])
    uniformity = chisquare_test(observed.tolist(), expected.tolist(), "uniform gold positions")
    base = score_predictions(
        benchmark,
        "gold_position",
        "the position most often gold in the other folds (cross-fitted)",
        predictions,
        config,
        tie_rate=0.0,
    )
    return GoldPositionResult(
        **vars(base),
        uniformity=uniformity,
        position_counts=tuple(int(c) for c in observed),
        expected_counts=tuple(float(e) for e in expected),
    )


def majority_label(
    benchmark: Benchmark, *, config: HeuristicConfig | None = None, groups: np.ndarray | None = None
) -> HeuristicResult:
    """Predict the label most frequent in the other folds (cross-fitted, each of ``groups`` kept whole): the baseline
    every probe must beat."""
    config = config or HeuristicConfig()
    if benchmark.option_kind.has_positions:
        raise ConfigError("majority_label needs a shared label set; for per-item choices use gold_position")
    gold = np.array([item.gold for item in benchmark])
    sizes = np.full(len(gold), len(benchmark.labels))
    predictions = _cross_fitted_mode(gold, sizes, len(benchmark.labels), config, groups)
    return score_predictions(
        benchmark,
        "majority_label",
        "the label most frequent in the other folds (cross-fitted)",
        predictions,
        config,
        tie_rate=0.0,
    )


def _cross_fitted_mode(
    gold: np.ndarray, sizes: np.ndarray, width: int, config: HeuristicConfig, groups: np.ndarray | None
) -> np.ndarray:
    """Per item, the most frequent gold index among the other folds' items that the item has (seeded K-fold, or a
    stratified group K-fold that keeps each group whole when ``groups`` join items)."""
    predictions = np.empty(len(gold), dtype=int)
    grouped = groups is not None and is_grouped(groups)
    n_splits = min(config.n_splits, len(gold) if groups is None else int(np.unique(groups).size))
    if n_splits < 2:
        raise ConfigError(f"cross-fitting needs at least 2 items (or groups of sibling items), found {len(gold)}")
    if groups is not None and grouped:
        folds = fold_ids(gold, groups, n_splits, [config.seed, 4051])
        splits = [(np.flatnonzero(folds != k), np.flatnonzero(folds == k)) for k in range(n_splits)]
    else:
        splits = list(KFold(n_splits, shuffle=True, random_state=config.seed).split(gold))
    for train, test in splits:
        order = np.argsort(-np.bincount(gold[train], minlength=width), kind="stable")  # ties: lowest index
        for index in test:
            predictions[index] = next(int(p) for p in order if p < sizes[index])
    return predictions


def run_heuristics(
    benchmark: Benchmark, *, config: HeuristicConfig | None = None, groups: np.ndarray | None = None
) -> HeuristicsReport:
    """Every zero-training baseline that applies: length and position for per-item choices; majority label and,
    for NLI-shaped items, HANS heuristics for shared labels (``groups``: a group id per item, kept whole by the
    cross-fitted ones)."""
    config = config or HeuristicConfig()
    hans_counts: tuple[HansCount, ...] = ()
    if benchmark.option_kind.has_positions:
        results: tuple[HeuristicResult, ...] = (
            longest_option(benchmark, config=config),
            shortest_option(benchmark, config=config),
            gold_position(benchmark, config=config, groups=groups),
        )
    else:
        results = (majority_label(benchmark, config=config, groups=groups),)
        if is_nli_shaped(benchmark):
            hans_counts, predictors = hans_heuristics(benchmark, config=config)
            results += predictors
    return HeuristicsReport(benchmark.name, results, hans_counts, config)


def _require_per_item(benchmark: Benchmark, name: str) -> None:
    if not benchmark.option_kind.has_positions:
        raise ConfigError(
            f"{name} needs per-item options; this benchmark has a shared label set "
            f"({', '.join(benchmark.labels)}): use majority_label"
        )
    if len(benchmark) == 0:
        raise ConfigError(f"{name} needs at least one item; the benchmark {benchmark.name!r} is empty")
