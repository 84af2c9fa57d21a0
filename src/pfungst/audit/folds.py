"""How many cross-fitting folds a benchmark can take: stratified folds need a class with as many items as folds."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from pfungst.errors import ConfigError

__all__ = ["feasible_splits"]


def feasible_splits(labels: Sequence[Any] | np.ndarray, n_splits: int, what: str, *, warn_rare: bool = True) -> int:
    """``n_splits``, or fewer (with a warning naming ``what``) when no class has as many members as folds; a class
    rarer than the folds is allowed (stratification then cannot put it in every fold) and warned about once.

    Raises:
        ConfigError: no class has 2 members: no cross-fitting is possible (the message says what it needs).
    """
    counts = np.unique(np.asarray(labels), return_counts=True)[1]
    largest, rarest = (int(counts.max()), int(counts.min())) if len(counts) else (0, 0)
    if largest < 2:
        raise ConfigError(
            f"{len(labels)} items are too few for cross-fitting: no class has more than {largest} item(s); it takes "
            f"a class with at least 2 items ({n_splits} for {n_splits}-fold cross-fitting)"
        )
    folds = min(n_splits, largest)
    if folds < n_splits:
        warnings.warn(
            f"{what}: no class has {n_splits} items, as {n_splits}-fold cross-fitting needs; cross-fitting with "
            f"{folds} folds instead (add items, or lower --splits)",
            stacklevel=2,
        )
    if warn_rare and rarest < folds:
        warnings.warn(
            f"{what}: the rarest class has only {rarest} item(s), fewer than the {folds} folds, so some folds "
            "cannot hold it; its figures rest on very few items",
            stacklevel=2,
        )
    return folds
