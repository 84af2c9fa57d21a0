"""The vectorised bootstrap and permutation test give exactly what the per-resample stats functions give."""

from __future__ import annotations

import numpy as np
import pytest

from pfungst.audit import resampled_kappa
from pfungst.audit.resampled_kappa import (
    bootstrap_draws_kappa,
    interval_from_draws,
    kappa_permutation_pvalue,
    mean_kappa,
)
from pfungst.stats import bootstrap_interval, cohen_kappa, permutation_pvalue


def _reference_mean_kappa(truth: np.ndarray, preds: np.ndarray) -> float:
    return float(np.mean([cohen_kappa(truth, row) for row in np.atleast_2d(preds)]))


def _planted(n: int, n_classes: int, n_repeats: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_classes, size=n)
    preds = np.where(rng.random((n_repeats, n)) < 0.4, truth, rng.integers(0, n_classes, size=(n_repeats, n)))
    return truth, preds


@pytest.mark.parametrize(("n", "n_classes", "n_repeats"), [(37, 2, 1), (151, 3, 2), (400, 5, 3), (9, 2, 2)])
def test_bit_identical_to_the_per_resample_functions(
    n: int, n_classes: int, n_repeats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resampled_kappa, "resamples_table", lambda n, k, n_repeats: False)  # the items' own draws
    truth, preds = _planted(n, n_classes, n_repeats, seed=n)
    assert mean_kappa(truth, preds) == _reference_mean_kappa(truth, preds)
    seed = np.random.SeedSequence(5).spawn(2)
    expected_p = permutation_pvalue(truth, preds, _reference_mean_kappa, n_permutations=300, seed=seed[0])
    assert kappa_permutation_pvalue(truth, preds, n_permutations=300, seed=seed[0]) == expected_p
    accuracy, kappa = bootstrap_draws_kappa(truth, preds, n_resamples=300, seed=seed[1])
    correct = preds == truth
    expected_acc = bootstrap_interval(lambda i: float(correct[:, i].mean()), n, n_resamples=300, seed=seed[1])
    expected_kappa = bootstrap_interval(
        lambda i: _reference_mean_kappa(truth[i], preds[:, i]), n, n_resamples=300, seed=seed[1]
    )
    assert interval_from_draws(accuracy, 0.95) == expected_acc
    assert interval_from_draws(kappa, 0.95) == expected_kappa


def test_blocks_do_not_change_the_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resampled_kappa, "resamples_table", lambda n, k, n_repeats: False)
    truth, preds = _planted(200, 3, 2, seed=1)
    whole = bootstrap_draws_kappa(truth, preds, n_resamples=50, seed=3)
    pvalue = kappa_permutation_pvalue(truth, preds, n_permutations=50, seed=3)
    monkeypatch.setattr(resampled_kappa, "_BLOCK_CELLS", 700)  # 3 resamples per block
    blocked = bootstrap_draws_kappa(truth, preds, n_resamples=50, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(whole, blocked, strict=True))
    assert kappa_permutation_pvalue(truth, preds, n_permutations=50, seed=3) == pvalue


def test_constant_labels_and_predictions_score_zero() -> None:
    truth = np.zeros(20, dtype=int)
    assert mean_kappa(truth, truth[np.newaxis, :]) == 0.0
    _, kappa = bootstrap_draws_kappa(truth, truth[np.newaxis, :], n_resamples=10, seed=0)
    assert np.all(kappa == 0.0)


@pytest.mark.parametrize(("n_classes", "n_repeats"), [(2, 1), (3, 2), (4, 3)])
def test_table_resampling_has_the_item_resampling_distribution(
    monkeypatch: pytest.MonkeyPatch, n_classes: int, n_repeats: int
) -> None:
    """With fewer possible cells than items the draws come from the contingency table: the same bootstrap
    distribution and the same permutation null (within Monte Carlo error of 4,000 resamples)."""
    truth, preds = _planted(600, n_classes, n_repeats, seed=7)
    assert resampled_kappa.resamples_table(600, n_classes, n_repeats)
    monkeypatch.setattr(resampled_kappa, "resamples_table", lambda n, k, n_repeats: False)
    by_items = bootstrap_draws_kappa(truth, preds, n_resamples=4000, seed=1)
    p_items = kappa_permutation_pvalue(truth, preds, n_permutations=4000, seed=1)
    null_truth = np.random.default_rng(3).permutation(truth)  # no association: p-values spread over (0, 1)
    p_null_items = kappa_permutation_pvalue(null_truth, preds, n_permutations=4000, seed=1)
    monkeypatch.undo()
    by_table = bootstrap_draws_kappa(truth, preds, n_resamples=4000, seed=1)
    for items, table in zip(by_items, by_table, strict=True):
        assert abs(items.mean() - table.mean()) < 0.01 and abs(items.std() - table.std()) < 0.005
    assert interval_from_draws(by_table[1], 0.95).low > 0.2  # the planted signal, as by items
    assert kappa_permutation_pvalue(truth, preds, n_permutations=4000, seed=1) == pytest.approx(p_items, abs=1e-3)
    assert kappa_permutation_pvalue(null_truth, preds, n_permutations=4000, seed=1) == pytest.approx(
        p_null_items, abs=0.04
    )


def test_table_bootstrap_of_a_perfect_prediction_is_exact() -> None:
    truth = np.repeat([0, 1, 2], 100)
    assert resampled_kappa.resamples_table(truth.size, 3, 2)
    accuracy, kappa = bootstrap_draws_kappa(truth, np.stack([truth, truth]), n_resamples=200, seed=0)
    assert np.all(accuracy == 1.0) and np.allclose(kappa, 1.0)
    pvalue = kappa_permutation_pvalue(truth, np.stack([truth, truth]), n_permutations=200, seed=0)
    assert pvalue == pytest.approx(1 / 201)


def test_the_table_is_resampled_where_it_has_fewer_possible_cells_than_items() -> None:
    assert resampled_kappa.resamples_table(371, 3, 2)  # 27 cells: a three-label benchmark, two repeats
    assert not resampled_kappa.resamples_table(20, 3, 2)
    assert not resampled_kappa.resamples_table(1000, 4, 5)  # 4,096 cells: the items are drawn
