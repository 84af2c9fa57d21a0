"""Bootstrap intervals and permutation p-values of the repeat-averaged kappa, vectorised over resamples.

A probe's figures come from its out-of-fold predictions ``(n_repeats, n_items)``: the mean over repeats of Cohen's
kappa, its percentile bootstrap interval over items, and a permutation p-value (labels shuffled against the fixed
predictions). :func:`pfungst.stats.bootstrap_interval` and :func:`pfungst.stats.permutation_pvalue` evaluate a
Python statistic once per resample; here a block of resamples is scored with a few array operations instead (one
``bincount`` per block for the marginals). The resamples are drawn with the very same generator calls, in the same
order, and every figure goes through the same floating-point operations, so the results are bit-identical to those
functions with ``_mean_kappa`` (a test checks it); only the time changes (about 50x fewer Python calls).

Blocks hold at most ``_BLOCK_CELLS`` indices, so memory stays bounded at any number of items.

Where the contingency table has fewer possible cells than there are items (:func:`resamples_table`: two labels and
two repeats make 8 cells, three make 27) the resamples are drawn on the table instead: the statistic depends on the
items only through the counts of each (label, prediction of each repeat) cell, so a bootstrap resample of the items
is a multinomial draw of those counts, and a label shuffle is a multivariate hypergeometric split of the label
counts over the cells of the fixed predictions. The distribution is the same, the draws are others (as with another
seed); the cost no longer grows with the items (at a million items, 1,000 item resamples take about 30 s, the
table's well under one; on the four Pacchiardi datasets the draws take 0.3 CPU s, ``benchmarks/audit_steps.py``).
With more possible cells than items (many labels or repeats on few items) the items themselves are drawn, as above.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from pfungst.stats import ConfidenceInterval
from pfungst.stats.intervals import Seed, percentile_bounds

__all__ = [
    "bootstrap_draws_kappa",
    "interval_from_draws",
    "kappa_permutation_pvalue",
    "mean_kappa",
    "resamples_table",
]

_BLOCK_CELLS = 1 << 22
"""Most resample indices held at once (4M int64: 32 MB)."""


def _block_size(n: int, total: int) -> int:
    return max(1, min(total, _BLOCK_CELLS // max(n, 1)))


def _kappa_rows(agree: np.ndarray, expected: np.ndarray, n: int) -> np.ndarray:
    """Kappa per row from agreement counts and expected agreement, as :func:`pfungst.stats.cohen_kappa` computes
    it (0 where chance agreement is 1)."""
    observed = agree / n
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (observed - expected) / (1.0 - expected)
    return np.where(expected >= 1.0, 0.0, kappa)


def _row_counts(codes: np.ndarray, k: int) -> np.ndarray:
    """Per row of ``codes`` (rows x n, values in 0..k-1), the count of each value: rows x k."""
    rows = codes.shape[0]
    offsets = (np.arange(rows, dtype=np.int64) * k)[:, np.newaxis]
    return np.bincount((codes + offsets).ravel(), minlength=rows * k).reshape(rows, k)


def mean_kappa(truth: np.ndarray, preds: np.ndarray) -> float:
    """The mean over repeats (rows of ``preds``) of Cohen's kappa against ``truth`` (non-negative int codes)."""
    preds = np.atleast_2d(preds)
    k = int(max(truth.max(), preds.max())) + 1
    n = truth.size
    true_counts = np.bincount(truth, minlength=k)
    agree = np.count_nonzero(preds == truth, axis=1)
    expected = (true_counts * _row_counts(preds, k)).sum(axis=1) / (n * n)
    return float(np.mean(_kappa_rows(agree, expected, n)))


def kappa_permutation_pvalue(truth: np.ndarray, preds: np.ndarray, *, n_permutations: int, seed: Seed) -> float:
    """``permutation_pvalue(truth, preds, mean kappa, ...)``, one block of label shuffles at a time.

    Shuffling the labels keeps both marginals, so the chance agreement of each repeat is fixed; only the agreement
    count changes from one shuffle to the next.
    """
    preds = np.atleast_2d(preds)
    n = truth.size
    k = int(max(truth.max(), preds.max())) + 1
    expected = (np.bincount(truth, minlength=k) * _row_counts(preds, k)).sum(axis=1) / (n * n)
    observed = float(np.mean(_kappa_rows(np.count_nonzero(preds == truth, axis=1), expected, n)))
    rng = np.random.default_rng(seed)
    if resamples_table(n, k, preds.shape[0]):
        draws = _table_permutation_draws(_Table.of(truth, preds, k), expected, n_permutations, rng)
        return float((np.count_nonzero(draws >= observed - 1e-12) + 1) / (n_permutations + 1))
    count, block = 0, _block_size(n, n_permutations)
    for start in range(0, n_permutations, block):
        # One call shuffles each row in turn: the same draws as one ``rng.permutation(truth)`` per row.
        shuffled = rng.permuted(np.tile(truth, (min(block, n_permutations - start), 1)), axis=1)
        agree = np.stack([np.count_nonzero(shuffled == row, axis=1) for row in preds], axis=1)
        draws = _kappa_rows(agree, expected[np.newaxis, :], n).mean(axis=1)
        count += int(np.count_nonzero(draws >= observed - 1e-12))
    return float((count + 1) / (n_permutations + 1))


def _resample_blocks(n: int, n_resamples: int, seed: Seed) -> Iterator[np.ndarray]:
    """Blocks of bootstrap index rows: row ``r`` is the ``r``-th ``rng.integers(0, n, size=n)`` (as in
    :func:`pfungst.stats.intervals.bootstrap_draws`)."""
    rng = np.random.default_rng(seed)
    block = _block_size(n, n_resamples)
    for start in range(0, n_resamples, block):
        # One call fills the rows in order: the same draws as one ``rng.integers(0, n, size=n)`` per row.
        yield rng.integers(0, n, size=(min(block, n_resamples - start), n))


def bootstrap_draws_kappa(
    truth: np.ndarray, preds: np.ndarray, *, n_resamples: int, seed: Seed
) -> tuple[np.ndarray, np.ndarray]:
    """Per bootstrap resample of the items: the accuracy over all repeats and the repeat-averaged kappa."""
    preds = np.atleast_2d(preds)
    n, n_repeats = truth.size, preds.shape[0]
    k = int(max(truth.max(), preds.max())) + 1
    if resamples_table(n, k, n_repeats):
        return _table_bootstrap_draws(_Table.of(truth, preds, k), n_resamples, np.random.default_rng(seed))
    tallies = _ItemTallies.of(truth, preds, k)
    accuracy, kappa = [], []
    for rows in _resample_blocks(n, n_resamples, seed):
        true_counts, hits, pred_counts = tallies.of_resamples(rows)
        per_repeat = []
        for r in range(n_repeats):
            expected = (true_counts * pred_counts[r]).sum(axis=1) / (n * n)
            per_repeat.append((hits[r], _kappa_rows(hits[r], expected, n)))
        accuracy.append(sum(hits for hits, _ in per_repeat) / (n_repeats * n))
        kappa.append(np.stack([value for _, value in per_repeat], axis=1).mean(axis=1))
    return np.concatenate(accuracy), np.concatenate(kappa)


class _ItemTallies:
    """What each item adds to a resample's counts (its label, whether each repeat is right, each repeat's
    prediction) as 0/1 columns, so that a block of resamples is counted with one ``bincount`` and one product.

    A resample's counts are sums of whole numbers far below 2**53, exact in float64 in any order: the counts are
    the very integers the per-resample ``bincount`` gives.
    """

    def __init__(self, columns: np.ndarray, k: int, n_repeats: int) -> None:
        self.columns, self.k, self.n_repeats = columns, k, n_repeats

    @classmethod
    def of(cls, truth: np.ndarray, preds: np.ndarray, k: int) -> _ItemTallies:
        classes = np.arange(k)
        parts = [truth[:, np.newaxis] == classes, (preds == truth).T]
        parts += [row[:, np.newaxis] == classes for row in preds]
        return cls(np.concatenate(parts, axis=1).astype(np.float64), k, preds.shape[0])

    def of_resamples(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """Per resample (row of item indices): the label counts, each repeat's hits, each repeat's prediction
        counts (int64)."""
        k, n_repeats = self.k, self.n_repeats
        times_drawn = _row_counts(rows, self.columns.shape[0]).astype(np.float64)
        counts = (times_drawn @ self.columns).astype(np.int64)
        hits = counts[:, k : k + n_repeats].T
        predicted = [counts[:, k + n_repeats + r * k : k + n_repeats + (r + 1) * k] for r in range(n_repeats)]
        return counts[:, :k], hits, predicted


def resamples_table(n: int, k: int, n_repeats: int) -> bool:
    """Whether ``n`` items with ``k`` classes and ``n_repeats`` repeats are resampled on their contingency table: when
    it has fewer possible cells, ``k ** (n_repeats + 1)``, than there are items (then it is the cheaper to draw)."""
    return k ** (n_repeats + 1) < n


class _Table:
    """The items' contingency table: each occupied (label, prediction per repeat) cell and its count."""

    def __init__(self, count: np.ndarray, label: np.ndarray, prediction: np.ndarray, k: int) -> None:
        self.count, self.label, self.prediction, self.k = count, label, prediction, k
        self.n = int(count.sum())

    @classmethod
    def of(cls, truth: np.ndarray, preds: np.ndarray, k: int) -> _Table:
        code = truth.astype(np.int64)
        for r in range(preds.shape[0]):
            code = code + preds[r].astype(np.int64) * k ** (r + 1)
        cells, count = np.unique(code, return_counts=True)
        prediction = np.stack([(cells // k ** (r + 1)) % k for r in range(preds.shape[0])])
        return cls(count, cells % k, prediction, k)

    def one_hot(self, values: np.ndarray) -> np.ndarray:
        """Cells x k: 1 where a cell's value (label or one repeat's prediction) is that class."""
        return (values[:, np.newaxis] == np.arange(self.k)).astype(np.int64)


def _table_bootstrap_draws(table: _Table, n_resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bootstrap_draws_kappa` on the table: each resample is a multinomial draw of the cell counts."""
    n = table.n
    draws = rng.multinomial(n, table.count / n, size=n_resamples)  # resamples x cells
    true_counts = draws @ table.one_hot(table.label)
    hits, kappa = [], []
    for prediction in table.prediction:
        agree = draws @ (table.label == prediction).astype(np.int64)
        expected = (true_counts * (draws @ table.one_hot(prediction))).sum(axis=1) / (n * n)
        hits.append(agree)
        kappa.append(_kappa_rows(agree, expected, n))
    return sum(hits) / (len(hits) * n), np.stack(kappa, axis=1).mean(axis=1)


def _table_permutation_draws(
    table: _Table, expected: np.ndarray, n_permutations: int, rng: np.random.Generator
) -> np.ndarray:
    """Repeat-averaged kappa under label shuffles: the label counts split at random over the prediction cells
    (multivariate hypergeometric, one class at a time, vectorised over the shuffles)."""
    n_repeats = table.prediction.shape[0]
    groups, group_of = np.unique(table.prediction, axis=1, return_inverse=True)  # distinct prediction tuples
    sizes = np.bincount(group_of.reshape(-1), weights=table.count, minlength=groups.shape[1]).astype(np.int64)
    remaining = np.tile(
        np.bincount(table.label, weights=table.count, minlength=table.k).astype(np.int64), (n_permutations, 1)
    )
    agree = np.zeros((n_permutations, n_repeats), dtype=np.int64)
    for g, size in enumerate(sizes):
        need = np.full(n_permutations, size, dtype=np.int64)
        for j in range(table.k):
            others = remaining[:, j + 1 :].sum(axis=1)
            taken = need if j == table.k - 1 else rng.hypergeometric(remaining[:, j], others, need)
            remaining[:, j] -= taken
            need = need - taken
            agree += taken[:, np.newaxis] * (groups[:, g] == j)[np.newaxis, :]
    return _kappa_rows(agree, expected[np.newaxis, :], table.n).mean(axis=1)


def interval_from_draws(draws: np.ndarray, level: float) -> ConfidenceInterval:
    """The percentile interval of bootstrap ``draws``, NaN draws left out (as :func:`bootstrap_interval`)."""
    draws = draws[~np.isnan(draws)]
    if draws.size == 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    low, high = percentile_bounds(draws, level)
    return ConfidenceInterval(float(low), float(high), level)
