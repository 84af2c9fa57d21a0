"""Cross-fitting folds: how many a benchmark can take, and which items go together (stratified, groups kept whole).

Items of one group (siblings that share an option set, near-identical texts, exact duplicates: see
:mod:`~pfungst.audit.item_groups`) always fall in the same fold, so that no held-out item has a sibling in training.
Without groups (every item its own group) the folds are scikit-learn's seeded ``RepeatedStratifiedKFold``, exactly
as before grouping existed; with groups, :func:`fold_ids` is a seeded stratified group K-fold (the greedy
assignment of scikit-learn's ``StratifiedGroupKFold``, with the single items placed class by class in one
vectorised step, so that a million items take a second rather than a Python loop per item).

Example:
    >>> import numpy as np
    >>> folds = fold_ids(np.array([0, 1] * 10), np.repeat(np.arange(10), 2), n_splits=5, seed=0)
    >>> bool(all(folds[2 * k] == folds[2 * k + 1] for k in range(10)))
    True
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.model_selection import RepeatedStratifiedKFold

from pfungst.errors import ConfigError

__all__ = ["crossfit_splits", "feasible_splits", "fold_ids", "is_grouped"]

Split = tuple[np.ndarray, np.ndarray]
"""Training and held-out positions (ascending)."""


def feasible_splits(
    labels: Sequence[Any] | np.ndarray,
    n_splits: int,
    what: str,
    *,
    warn_rare: bool = True,
    groups: np.ndarray | None = None,
) -> int:
    """``n_splits``, or fewer (with a warning naming ``what``) when no class has as many members as folds, or there
    are fewer groups than folds; a class rarer than the folds is allowed (stratification then cannot put it in
    every fold) and warned about once.

    Raises:
        ConfigError: no class has 2 members, or fewer than 2 groups: no cross-fitting is possible (the message says
            what it needs).
    """
    counts = np.unique(np.asarray(labels), return_counts=True)[1]
    largest, rarest = (int(counts.max()), int(counts.min())) if len(counts) else (0, 0)
    if largest < 2:
        raise ConfigError(
            f"{len(labels)} items are too few for cross-fitting: no class has more than {largest} item(s); it takes "
            f"a class with at least 2 items ({n_splits} for {n_splits}-fold cross-fitting)"
        )
    folds = min(n_splits, largest)
    n_groups = _n_groups(groups, len(labels))
    if n_groups < 2:
        raise ConfigError(
            f"{what}: all {len(labels)} items form one group of siblings (shared option set or near-identical text), "
            "which cross-fitting must keep in one fold: no fold is left to train on (audit with group_siblings off)"
        )
    if folds < n_splits:
        warnings.warn(
            f"{what}: no class has {n_splits} items, as {n_splits}-fold cross-fitting needs; cross-fitting with "
            f"{folds} folds instead (add items, or lower --splits)",
            stacklevel=2,
        )
    if n_groups < folds:
        warnings.warn(
            f"{what}: only {n_groups} groups of sibling items, fewer than the {folds} folds; cross-fitting with "
            f"{n_groups} folds instead",
            stacklevel=2,
        )
        folds = n_groups
    if warn_rare and rarest < folds:
        warnings.warn(
            f"{what}: the rarest class has only {rarest} item(s), fewer than the {folds} folds, so some folds "
            "cannot hold it; its figures rest on very few items",
            stacklevel=2,
        )
    return folds


def is_grouped(groups: np.ndarray | None) -> bool:
    """Whether ``groups`` (a group id per item) puts any two items together."""
    return groups is not None and _n_groups(groups, len(groups)) < len(groups)


def _n_groups(groups: np.ndarray | None, n: int) -> int:
    return n if groups is None else int(np.unique(groups).size)


def crossfit_splits(y: np.ndarray, groups: np.ndarray | None, n_splits: int, n_repeats: int, seed: int) -> list[Split]:
    """``n_repeats`` x ``n_splits`` (train, held-out) splits, repeat by repeat, stratified by ``y``.

    Ungrouped: scikit-learn's ``RepeatedStratifiedKFold(random_state=seed)``. Grouped: :func:`fold_ids` seeded by
    ``(seed, repeat)``, every group whole in one fold.
    """
    if groups is None or not is_grouped(groups):
        splitter = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=seed)
        with warnings.catch_warnings():  # a class rarer than the folds: feasible_splits' own warning says so
            warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
            return [(train, test) for train, test in splitter.split(np.zeros(len(y)), y)]
    splits: list[Split] = []
    for repeat in range(n_repeats):
        folds = fold_ids(y, groups, n_splits, [seed, repeat, 8191])
        splits.extend((np.flatnonzero(folds != fold), np.flatnonzero(folds == fold)) for fold in range(n_splits))
    return splits


def fold_ids(y: np.ndarray, groups: np.ndarray, n_splits: int, seed: int | Sequence[int]) -> np.ndarray:
    """The fold (``0 .. n_splits - 1``) of each item: each group whole in one fold, each class spread evenly.

    Groups of two or more items are placed first, largest first (equal sizes in seeded random order), each in the
    fold where the per-class shares over folds vary least afterwards (ties: the smaller fold), as scikit-learn's
    ``StratifiedGroupKFold`` does; then, class by class, the single items (in seeded random order) fill the folds
    with the fewest items of that class, so that every class ends as even as the groups allow.
    """
    y = np.asarray(y, dtype=int)
    rng = np.random.default_rng(seed)
    _, group = np.unique(np.asarray(groups), return_inverse=True)
    sizes = np.bincount(group)
    n_classes = int(y.max()) + 1 if y.size else 1
    fold_of_group = np.full(sizes.size, -1)
    per_class = np.zeros((n_splits, n_classes))
    multi = np.flatnonzero(sizes > 1)
    if multi.size:
        class_counts = np.zeros((sizes.size, n_classes))
        in_multi = sizes[group] > 1
        np.add.at(class_counts, (group[in_multi], y[in_multi]), 1)
        totals = np.maximum(np.bincount(y, minlength=n_classes), 1)
        order = rng.permutation(multi)
        order = order[np.argsort(-sizes[order], kind="stable")]
        for g in order:
            fold = _best_fold(per_class, class_counts[g], totals)
            fold_of_group[g] = fold
            per_class[fold] += class_counts[g]
    folds = fold_of_group[group]
    single = sizes[group] == 1
    for label in range(n_classes):
        members = rng.permutation(np.flatnonzero(single & (y == label)))
        added = _water_fill(per_class[:, label], per_class.sum(axis=1), members.size, rng)
        folds[members] = np.repeat(np.arange(n_splits), added)
        per_class[:, label] += added
    return folds


def _best_fold(per_class: np.ndarray, counts: np.ndarray, totals: np.ndarray) -> int:
    """The fold where adding a group's class ``counts`` leaves the per-class shares most even (ties: smaller fold)."""
    k = per_class.shape[0]
    trial = per_class[np.newaxis, :, :] + np.eye(k)[:, :, np.newaxis] * counts[np.newaxis, np.newaxis, :]
    spread = np.std(trial / totals, axis=1).mean(axis=1)
    sizes = per_class.sum(axis=1)
    return int(np.lexsort((sizes, np.round(spread, 12)))[0])


def _water_fill(current: np.ndarray, sizes: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """How many of ``m`` items each fold gets so that ``current + added`` is as even as possible (the last few go
    to the smallest folds among the lowest, ties at random)."""
    added = np.zeros(current.size, dtype=int)
    remaining = m
    while remaining > 0:
        level = current + added
        low = level.min()
        lowest = np.flatnonzero(level == low)
        higher = level[level > low]
        step = min(int(higher.min() - low) if higher.size else remaining, remaining // lowest.size)
        if step == 0:
            tie = rng.permutation(lowest)
            tie = tie[np.argsort((sizes + added)[tie], kind="stable")]
            added[tie[:remaining]] += 1
            break
        added[lowest] += step
        remaining -= step * lowest.size
    return added
