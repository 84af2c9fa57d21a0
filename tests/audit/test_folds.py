"""Cross-fitting folds: groups stay whole, classes spread evenly, and ungrouped folds are unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import RepeatedStratifiedKFold

from pfungst.audit.folds import crossfit_splits, feasible_splits, fold_ids
from pfungst.errors import ConfigError


def _siblings(seed: int, n_groups: int = 60) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 5, size=n_groups)
    groups = np.repeat(np.arange(n_groups), sizes)
    y = np.repeat(rng.integers(0, 3, size=n_groups), sizes)  # siblings share their answer
    return y, groups


def test_every_group_falls_in_one_fold_and_each_class_spreads_evenly(seed: int) -> None:
    y, groups = _siblings(seed)
    folds = fold_ids(y, groups, 5, seed)
    for group in np.unique(groups):
        assert np.unique(folds[groups == group]).size == 1
    for label in np.unique(y):
        counts = np.bincount(folds[y == label], minlength=5)
        assert counts.max() - counts.min() <= 4  # at most one group of 4 off


def test_fold_ids_are_seeded() -> None:
    y, groups = _siblings(1)
    assert np.array_equal(fold_ids(y, groups, 5, 3), fold_ids(y, groups, 5, 3))
    assert not np.array_equal(fold_ids(y, groups, 5, 3), fold_ids(y, groups, 5, 4))


def test_single_items_fill_the_folds_evenly() -> None:
    y = np.array([0] * 50 + [1] * 25)
    folds = fold_ids(y, np.arange(75), 5, 0)
    assert np.bincount(folds[y == 0]).tolist() == [10] * 5
    assert np.bincount(folds[y == 1]).tolist() == [5] * 5


def test_ungrouped_splits_are_repeated_stratified_kfold_as_before() -> None:
    y = np.array([0, 1, 2] * 20)
    expected = list(RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=7).split(np.zeros(60), y))
    for groups in (None, np.arange(60)):
        got = crossfit_splits(y, groups, 5, 2, 7)
        assert all(np.array_equal(a[1], b[1]) for a, b in zip(got, expected, strict=True))


def test_grouped_splits_hold_out_every_item_once_per_repeat() -> None:
    y, groups = _siblings(2)
    splits = crossfit_splits(y, groups, 5, 2, 0)
    assert len(splits) == 10
    for repeat in range(2):
        held = np.concatenate([test for _, test in splits[5 * repeat : 5 * repeat + 5]])
        assert np.array_equal(np.sort(held), np.arange(y.size))
    for train, test in splits:
        assert not set(groups[train]) & set(groups[test])


def test_fewer_groups_than_folds_lowers_the_folds_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="only 3 groups of sibling items, fewer than the 5 folds"):
        assert feasible_splits([0, 1] * 15, 5, "test", groups=np.repeat(np.arange(3), 10)) == 3


def test_one_group_of_all_items_cannot_be_cross_fitted() -> None:
    with pytest.raises(ConfigError, match="all 20 items form one group of siblings"):
        feasible_splits([0, 1] * 10, 5, "test", groups=np.zeros(20, dtype=int))
