"""Mitigation: a counterbalanced copy (gold positions made uniform) and an AFLite-filtered copy (predictable items out).

- :func:`counterbalance` rotates each item's options cyclically so that, within each group of items with the same
  number of options ``K``, the gold answer sits at each position equally often (exactly, when the group's size is a
  multiple of ``K``; otherwise the remainder goes to distinct random positions). The target positions are shuffled
  over the items with the seed, so where an answer lands is unrelated to what it says. Each item keeps its options
  as a set and its gold answer text; its metadata records the rotation and, per new position, the original option
  index (``original_positions``), so results on the copy can be mapped back (composed with any earlier
  rearrangement).
- :func:`filter_predictable` is AFLite (Le Bras et al. 2020; Sakaguchi et al. 2020): on a fixed feature matrix,
  repeatedly train an ensemble of logistic regressions on random partitions of the remaining items, score each
  item's *predictability* as the share of its held-out predictions that are right, and remove the (at most) ``k``
  most predictable items whose predictability exceeds ``tau``; stop when fewer than ``k`` exceed ``tau``, when the
  target size is reached, or after ``max_iterations``.

Example:
    >>> from pfungst.data.synthetic import make_synthetic
    >>> balanced = counterbalance(make_synthetic("gold-position", 400), seed=0)
    >>> balanced.gold_counts
    {'0': 100, '1': 100, '2': 100, '3': 100}
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from pfungst.audit.inputs import item_texts
from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.errors import ConfigError, DataError

__all__ = [
    "ORIGINAL_POSITIONS_KEY",
    "ROTATION_KEY",
    "AFLiteConfig",
    "FilterResult",
    "Featurizer",
    "counterbalance",
    "featurize_ngrams",
    "filter_predictable",
]

ROTATION_KEY = "counterbalance_rotation"
"""Metadata key: how many places the options moved to the right (cyclically) in :func:`counterbalance`."""
ORIGINAL_POSITIONS_KEY = "original_positions"
"""Metadata key: for each position of the rearranged options, the option's index in the source benchmark."""

Featurizer = Callable[[Benchmark], tuple[Any, np.ndarray]]
"""Maps a benchmark to ``(X, y)``: a feature matrix (dense or sparse, one row per item) and integer targets."""


def counterbalance(benchmark: Benchmark, seed: int = 0) -> Benchmark:
    """A copy whose gold positions are as uniform as the option counts allow, by cyclic rotation of the options.

    Args:
        benchmark: A benchmark with per-item options.
        seed: Seed of the assignment of target positions to items.

    Raises:
        ConfigError: the benchmark has a shared label set (its "positions" are labels, not a presentation order).
    """
    if not benchmark.option_kind.has_positions:
        raise ConfigError("counterbalance needs per-item options; a shared label set has no option order to rotate")
    rng = np.random.default_rng(seed)
    targets = np.zeros(len(benchmark), dtype=int)
    groups: dict[int, list[int]] = {}
    for index, item in enumerate(benchmark):
        groups.setdefault(item.n_options, []).append(index)
    for size, indices in sorted(groups.items()):
        pool = np.concatenate(
            [
                np.repeat(np.arange(size), len(indices) // size),
                rng.choice(size, size=len(indices) % size, replace=False),
            ]
        )
        targets[indices] = rng.permutation(pool)
    items = tuple(_rotate(item, int(target)) for item, target in zip(benchmark, targets, strict=True))
    counts = dict(sorted(Counter(item.gold for item in items).items()))
    step = (
        f"counterbalance (seed={seed}): options rotated cyclically per item; gold positions now "
        f"{ {str(k): v for k, v in counts.items()} }"
    )
    provenance = replace(benchmark.provenance, steps=(*benchmark.provenance.steps, step))
    return replace(benchmark, items=items, provenance=provenance)


def _rotate(item: Item, target: int) -> Item:
    size = item.n_options
    shift = (target - item.gold) % size
    options = tuple(item.options[(position - shift) % size] for position in range(size))
    before = item.metadata.get(ORIGINAL_POSITIONS_KEY, list(range(size)))
    original = [int(before[(position - shift) % size]) for position in range(size)]
    metadata = {**item.metadata, ROTATION_KEY: shift, ORIGINAL_POSITIONS_KEY: original}
    return replace(item, options=options, gold=target, metadata=metadata)


def featurize_ngrams(benchmark: Benchmark) -> tuple[sparse.csr_matrix, np.ndarray]:
    """The default AFLite features: word 1-gram presence (``CountVectorizer(binary=True)``), and per-item option
    lengths.

    Shared labels: one row per item text, target = the gold label. Per-item choices: one block of columns per
    option position (the position's option text; empty where an item has fewer options) and, per position, whether
    its option is the longest or the shortest of the item (in words, then characters; ties count for each) and its
    length in words relative to the item's mean; target = the gold position, so the filter removes items whose
    answer position can be read off the options, a length cue included (which 1-grams alone cannot express: a
    linear model on them cannot compare one option's length with another's).

    Raises:
        DataError: no word remains to build features from.
    """
    vectorizer = CountVectorizer(binary=True)
    gold = np.array([item.gold for item in benchmark], dtype=int)
    try:
        if not benchmark.option_kind.has_positions:
            return vectorizer.fit_transform(item_texts(benchmark)).tocsr(), gold
        vectorizer.fit([option for item in benchmark for option in item.options])
    except ValueError as exc:
        raise DataError(f"benchmark {benchmark.name!r}: no words to build 1-gram features from ({exc})") from exc
    width = max(benchmark.option_counts)
    blocks = [
        vectorizer.transform([item.options[p] if p < item.n_options else "" for item in benchmark])
        for p in range(width)
    ]
    return sparse.hstack([*blocks, _length_columns(benchmark, width)], format="csr"), gold


def _length_columns(benchmark: Benchmark, width: int) -> sparse.csr_matrix:
    """Per item and position: is its option the longest, the shortest, and its word count minus the item's mean."""
    rows = np.zeros((len(benchmark), 3 * width))
    for index, item in enumerate(benchmark):
        words = np.array([len(option.split()) + len(option) / 1e4 for option in item.options])
        relative = words - words.mean()
        scale = max(float(np.abs(relative).max()), 1e-9)
        rows[index, : item.n_options] = words == words.max()
        rows[index, width : width + item.n_options] = words == words.min()
        rows[index, 2 * width : 2 * width + item.n_options] = relative / scale
    return sparse.csr_matrix(rows)


@dataclass(frozen=True)
class AFLiteConfig:
    """Settings of :func:`filter_predictable` (names after Le Bras et al. 2020)."""

    ensemble_size: int = 64
    """``m``: logistic regressions trained per iteration, each on its own random partition."""
    train_share: float = 0.5
    """``t / |S|``: share of the remaining items each model is trained on; the rest are held out."""
    cutoff: int = 50
    """``k``: at most this many items are removed per iteration."""
    threshold: float = 0.75
    """``tau``: only items whose predictability exceeds it are removed."""
    target_size: int = 0
    """Stop once this few items remain (0: no target)."""
    max_iterations: int = 100
    """Stop after this many iterations whatever happens."""
    C: float = 1.0
    """Inverse L2 regularisation strength of each logistic regression."""
    seed: int = 0
    """Seed of the partitions and of tie-breaking among equally predictable items."""

    def __post_init__(self) -> None:
        if not 0 < self.train_share < 1:
            raise ConfigError(f"train_share must be strictly between 0 and 1, not {self.train_share}")
        if self.ensemble_size < 1 or self.cutoff < 1 or self.max_iterations < 1:
            raise ConfigError(
                "ensemble_size, cutoff and max_iterations must be at least 1, not "
                f"{self.ensemble_size}, {self.cutoff} and {self.max_iterations}"
            )
        if not 0 <= self.threshold <= 1 or self.target_size < 0:
            raise ConfigError(
                f"threshold must be in [0, 1] and target_size >= 0, not {self.threshold} and {self.target_size}"
            )


@dataclass(frozen=True)
class FilterResult:
    """The filtered benchmark and, per source item, how predictable it was and when it was removed."""

    benchmark: Benchmark
    """The items that survived, in source order (provenance records the filter)."""
    item_ids: tuple[str, ...]
    """Every source item's id, in source order."""
    predictability: tuple[float, ...]
    """Per source item: its last predictability score (at removal, or in the final iteration); NaN if never held
    out."""
    removed_in: tuple[int, ...]
    """Per source item: the 1-based iteration that removed it; 0 if kept."""
    removed: tuple[str, ...]
    """Ids of the removed items, in removal order."""
    iterations: int
    """Iterations run."""
    stop_reason: str
    """Why filtering stopped."""
    config: AFLiteConfig
    """The settings used."""

    def __repr__(self) -> str:
        return (
            f"FilterResult(kept={len(self.benchmark)}, removed={len(self.removed)}, "
            f"iterations={self.iterations}, stop_reason={self.stop_reason!r})"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per source item: item_id, predictability, removed (bool), removed_in (0 = kept)."""
        removed_in = np.array(self.removed_in, dtype=int)
        return pd.DataFrame(
            {
                "item_id": list(self.item_ids),
                "predictability": list(self.predictability),
                "removed": removed_in > 0,
                "removed_in": removed_in,
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe summary with stable keys (per-item rows are in :meth:`to_frame`)."""
        return {
            "n_items": len(self.item_ids),
            "n_kept": len(self.benchmark),
            "n_removed": len(self.removed),
            "removed": list(self.removed),
            "iterations": self.iterations,
            "stop_reason": self.stop_reason,
            "config": vars(self.config).copy(),
            "benchmark": self.benchmark.to_dict(),
        }


def filter_predictable(
    benchmark: Benchmark, featurize: Featurizer = featurize_ngrams, *, config: AFLiteConfig | None = None
) -> FilterResult:
    """Remove the items that linear probes on surface features answer reliably (AFLite), seeded.

    Args:
        benchmark: Any benchmark.
        featurize: Maps the benchmark to ``(X, y)``, computed once (AFLite filters on fixed features);
            :func:`featurize_ngrams` by default.
        config: Ensemble size, partition share, ``k``, ``tau``, target size, seed; ``AFLiteConfig()`` by default.

    Raises:
        DataError: ``featurize`` returned a matrix or target whose length is not the number of items.
    """
    config = config or AFLiteConfig()
    features, target = featurize(benchmark)
    features = sparse.csr_matrix(features)
    target = np.asarray(target)
    if features.shape[0] != len(benchmark) or target.shape != (len(benchmark),):
        raise DataError(
            f"featurize returned X with {features.shape[0]} rows and y of shape {target.shape} for "
            f"{len(benchmark)} items; it must return one row and one target per item"
        )
    rng = np.random.default_rng(config.seed)
    active = np.arange(len(benchmark))
    scores = np.full(len(benchmark), math.nan)
    removed_in = np.zeros(len(benchmark), dtype=int)
    removed: list[int] = []
    stop_reason, iteration = f"reached max_iterations={config.max_iterations}", 0
    for iteration in range(1, config.max_iterations + 1):
        if config.target_size and active.size <= config.target_size:
            stop_reason, iteration = f"reached target_size={config.target_size}", iteration - 1
            break
        score = _predictability(features[active], target[active], rng, config)
        scores[active] = score
        above = rng.permutation(np.flatnonzero(score > config.threshold))  # shuffled: random order among ties
        budget = active.size - config.target_size if config.target_size else config.cutoff
        take = above[np.argsort(-score[above], kind="stable")][: min(config.cutoff, budget)]
        removed_in[active[take]] = iteration
        removed.extend(int(i) for i in active[take])
        active = np.delete(active, take)
        if above.size < config.cutoff:
            stop_reason = f"fewer than k={config.cutoff} items above tau={config.threshold}"
            break
    kept_ids = {benchmark[int(i)].id for i in active}
    description = (
        f"AFLite filter (seed={config.seed}, m={config.ensemble_size}, k={config.cutoff}, "
        f"tau={config.threshold}, {iteration} iterations)"
    )
    return FilterResult(
        benchmark.filter(lambda item: item.id in kept_ids, description),
        tuple(item.id for item in benchmark),
        tuple(float(s) for s in scores),
        tuple(int(r) for r in removed_in),
        tuple(benchmark[i].id for i in removed),
        iteration,
        stop_reason,
        config,
    )


def _predictability(
    features: sparse.csr_matrix, target: np.ndarray, rng: np.random.Generator, config: AFLiteConfig
) -> np.ndarray:
    """Share of right held-out predictions per item over ``m`` random partitions (NaN if never held out)."""
    n = target.size
    train_size = min(max(1, round(config.train_share * n)), n - 1)
    right, seen = np.zeros(n), np.zeros(n)
    # Many small fits: BLAS threads only contend (10x slower on a busy 2-core machine), so use one.
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(config.ensemble_size):
            _fit_and_score(features, target, rng.permutation(n), train_size, config, right, seen)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(seen > 0, right / seen, math.nan)


def _fit_and_score(
    features: sparse.csr_matrix,
    target: np.ndarray,
    order: np.ndarray,
    train_size: int,
    config: AFLiteConfig,
    right: np.ndarray,
    seen: np.ndarray,
) -> None:
    """Train one model on ``order[:train_size]``; add its held-out hits to ``right`` and ``seen`` in place."""
    train, test = order[:train_size], order[train_size:]
    classes = np.unique(target[train])
    if classes.size < 2:  # a one-class partition: the only sensible prediction is that class
        predicted = np.full(test.size, classes[0])
    else:
        model = LogisticRegression(C=config.C, max_iter=1000)
        predicted = model.fit(features[train], target[train]).predict(features[test])
    right[test] += predicted == target[test]
    seen[test] += 1
