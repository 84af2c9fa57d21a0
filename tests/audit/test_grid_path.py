"""The C grid walked as warm-started paths chooses what fits from scratch choose, in fewer iterations."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from pfungst.audit.classifiers import candidate_grid
from pfungst.audit.encoder import EncoderSettings, make_encoder
from pfungst.audit.feature_sets import get_feature_set
from pfungst.audit.grid_path import choose_classifier, refit_chosen
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.audit.probe_tasks import ItemTask, inner_split
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError
from pfungst.stats import cohen_kappa

GRID = candidate_grid(["l2_C1", "l1_C1"], [0.01, 0.1, 1.0, 10.0, 100.0])


def _blocks(
    seed: int, n_items: int = 400, feature_set: str = "1-grams_tfidf"
) -> tuple[ItemTask, object, object, object]:
    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", n_items, seed=seed), fields=("hypothesis",))
    task = ItemTask(inputs)
    encoder = make_encoder(get_feature_set(feature_set), EncoderSettings({}, scale_sparse=True))
    block = task.encode(encoder, np.arange(n_items), fit=True)
    fit_items, val_items = inner_split(block.y, 0.25, seed)
    return task, block, block.take(fit_items), block.take(val_items)


def _accuracy(y: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean(y == predicted))


def test_warm_path_scores_every_entry_as_fits_from_scratch_do(seed: int) -> None:
    task, _, fit_block, val_block = _blocks(seed)
    warm = choose_classifier(task, GRID, (fit_block, val_block), _accuracy, seed=seed, max_iter=1000)
    cold = choose_classifier(task, GRID, (fit_block, val_block), _accuracy, seed=seed, max_iter=1000, warm_start=False)
    assert warm.best == cold.best
    assert warm.scores.keys() == cold.scores.keys() == {spec.name for spec in GRID}
    # 100 validation items: the fits agree to tolerance, so at most a few borderline items flip at large C.
    assert max(abs(warm.scores[name] - cold.scores[name]) for name in warm.scores) <= 0.03


def test_refit_starts_at_the_inner_optimum_and_reaches_the_same_coefficients(seed: int) -> None:
    task, block, fit_block, val_block = _blocks(seed)
    l2 = [spec for spec in GRID if spec.penalty == "l2"]
    choice = choose_classifier(task, l2, (fit_block, val_block), _accuracy, seed=seed, max_iter=1000)
    warm = refit_chosen(task, choice, block, seed=seed, max_iter=1000)
    cold = task.fit(choice.best, block, seed=seed, max_iter=1000)
    assert warm.n_iter_[0] < cold.n_iter_[0]
    assert np.abs(warm.coef_ - cold.coef_).max() < 0.05 * np.abs(cold.coef_).max()
    assert np.mean(warm.predict(block.X) == cold.predict(block.X)) >= 0.99


def test_patience_stops_a_path_after_that_many_non_improving_entries(seed: int) -> None:
    task, _, fit_block, val_block = _blocks(seed)
    constant = choose_classifier(
        task, GRID, (fit_block, val_block), lambda y, predicted: 0.5, seed=seed, max_iter=1000, patience=2
    )
    # Each penalty: the first C sets the best, the next two do not beat it, so C = 10 and 100 are never fitted.
    assert sorted(constant.scores) == ["l1_C0.01", "l1_C0.1", "l1_C1", "l2_C0.01", "l2_C0.1", "l2_C1"]
    assert constant.best.name == "l2_C0.01"  # ties go to the earlier entry, as without patience


def test_patience_does_not_stop_an_l1_path_on_its_all_zero_models(seed: int) -> None:
    task, _, fit_block, val_block = _blocks(seed)
    l1 = candidate_grid(["l1_C1"], [0.001, 0.01, 1.0])
    # At C = 0.001 and 0.01 every weight is zero: one class for every item, kappa 0 twice. That is the path before it
    # starts, not a flat stretch, so patience 1 goes on to C = 1, which finds the cue word.
    choice = choose_classifier(task, l1, (fit_block, val_block), cohen_kappa, seed=seed, max_iter=1000, patience=1)
    assert choice.scores["l1_C0.001"] == choice.scores["l1_C0.01"] == 0.0
    assert choice.best.name == "l1_C1"
    assert choice.scores["l1_C1"] > 0.2


def test_probe_with_warm_paths_matches_the_probe_fitted_from_scratch(seed: int) -> None:
    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 300, seed=seed), fields=("hypothesis",))
    config = ProbeConfig(n_bootstrap=200, n_permutations=200, seed=seed, solvers="sklearn")
    warm = run_probe(get_feature_set("1-grams_presence"), inputs, replace(config, warm_start=True))
    cold = run_probe(get_feature_set("1-grams_presence"), inputs, config)
    assert abs(warm.kappa.value - cold.kappa.value) <= 0.005
    # Large C values give nearly the same model; a fold may pick a neighbouring C whose score differs by one item.
    same = [a.classifier == b.classifier for a, b in zip(warm.folds, cold.folds, strict=True)]
    assert np.mean(same) >= 0.8


def test_warm_paths_need_the_lbfgs_fits_of_sklearn_solvers() -> None:
    with pytest.raises(ConfigError, match="warm_start .* needs solvers='sklearn'"):
        ProbeConfig(warm_start=True).validate()
    ProbeConfig(warm_start=True, solvers="sklearn").validate()


def test_a_negative_grid_patience_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"grid_patience \(--grid-patience\) must be at least 0, not -1"):
        ProbeConfig(grid_patience=-1).validate()


def test_columns_no_inner_fit_row_uses_change_no_grid_choice(seed: int) -> None:
    """The fold's grid drops the n-gram columns that no inner-fit row has (they get zero weight): the same choice and
    the same validation scores, to the solver's tolerance."""
    task, _, fit_block, val_block = _blocks(seed, feature_set="2-grams_tfidf")
    occupied = fit_block.occupied_columns()
    assert occupied is not None and 0 < occupied.size < fit_block.X.shape[1]  # word pairs only in validation rows
    kept = fit_block.keep_columns(occupied), val_block.keep_columns(occupied)
    assert kept[0].X.shape[1] == kept[1].X.shape[1] == occupied.size and kept[0].X.nnz == fit_block.X.nnz
    full = choose_classifier(task, GRID, (fit_block, val_block), _accuracy, seed=seed, max_iter=1000, warm_start=False)
    cut = choose_classifier(task, GRID, kept, _accuracy, seed=seed, max_iter=1000, warm_start=False)
    assert cut.best == full.best
    assert max(abs(cut.scores[name] - full.scores[name]) for name in full.scores) <= 0.03
    assert kept[0].keep_columns(kept[0].occupied_columns()) is kept[0]  # nothing left to drop
