"""The fits behind one fold job of each probe protocol: :func:`crossfit_fold` (the recommended protocol's
choose-inside-the-fold, refit and predict) and :func:`paper_split_fit` (Pacchiardi et al. 2024's one split).

They live apart from the protocol objects (:mod:`~pfungst.audit.crossfit_protocol`,
:mod:`~pfungst.audit.pacchiardi2024_protocol`) so that a protocol, which every settings object holds, loads without
numpy and scikit-learn: the command line builds its options from the settings' defaults before it runs anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pfungst.audit.classifiers import SCREEN_MIN_ROWS, counting_convergence_warnings, top_features
from pfungst.audit.encoder import make_encoder
from pfungst.audit.grid_path import choose_classifier, refit_chosen
from pfungst.audit.paper_protocol import PAPER_MAX_ITER, paper_split
from pfungst.audit.probe_assembly import FoldResult
from pfungst.audit.probe_outcome import FoldChoice
from pfungst.audit.probe_tasks import inner_split, selection_items
from pfungst.stats import cohen_kappa

if TYPE_CHECKING:
    from pfungst.audit.probe import ProbeConfig
    from pfungst.audit.probe_plan import ProbePlan

__all__ = ["crossfit_fold", "paper_split_fit", "validation_score"]


def validation_score(y: np.ndarray, predictions: np.ndarray, metric: str) -> float:
    """What picks a classifier on validation data: ``accuracy``, or Cohen's ``kappa``."""
    if metric == "accuracy":
        return float(np.mean(y == predictions))
    return cohen_kappa(y, predictions)


def crossfit_fold(
    plan: ProbePlan, config: ProbeConfig, repeat: int, fold: int, train: np.ndarray, test: np.ndarray
) -> FoldResult:
    """Choose a classifier inside the training fold, refit it on the whole fold, predict the held-out fold."""
    task, feature_set, settings = plan.task, plan.feature_set, plan.settings
    train = np.sort(train)  # the order an option-level block takes; the groups below follow it
    train_groups = None if plan.groups is None else plan.groups[train]
    warned = [0]
    with counting_convergence_warnings(lambda count: warned.__setitem__(0, count)):
        encoder = make_encoder(feature_set, settings)
        train_block = task.encode(encoder, train, fit=True)
        test_block = task.encode(encoder, test, fit=False)
        inner_seed = int(np.random.SeedSequence([config.seed, repeat, fold]).generate_state(1)[0])
        selection = selection_items(train_block.y, config.selection_max_items, inner_seed)
        select_block = train_block if selection is None else train_block.take(selection)
        select_groups = train_groups if selection is None or train_groups is None else train_groups[selection]
        inner_train, inner_val = inner_split(select_block.y, config.validation_fraction, inner_seed, select_groups)
        fit_block, val_block = select_block.take(inner_train), select_block.take(inner_val)
        if not config.warm_start and fit_block.y.size >= SCREEN_MIN_ROWS:  # a warm refit needs every column
            # Columns empty in the inner fit's rows get zero weight: dropping them changes no optimum, and a grid
            # on a sample of a large fold otherwise pays for every n-gram of the whole fold in every fit.
            occupied = fit_block.occupied_columns()
            fit_block, val_block = fit_block.keep_columns(occupied), val_block.keep_columns(occupied)
        chosen = choose_classifier(
            task,
            config.candidates(),
            (fit_block, val_block),
            lambda y, predicted: validation_score(y, predicted, config.selection_metric),
            seed=config.seed,
            max_iter=config.max_iter,
            warm_start=config.warm_start,
            patience=config.grid_patience,
        )
        model = refit_chosen(task, chosen, train_block, seed=config.seed, max_iter=config.max_iter)
        predictions, gold_probability = task.predict(model, test_block), task.gold_probability(model, test_block)
    spec = chosen.best
    choice = FoldChoice(repeat, fold, int(train.size), int(test.size), spec.name, chosen.scores, spec.penalty, spec.C)
    return FoldResult(np.sort(test), predictions, choice, warned[0], gold_probability=gold_probability)


def paper_split_fit(plan: ProbePlan, config: ProbeConfig) -> FoldResult:
    """Fit the classifiers on train, choose by validation accuracy, predict the test items (one split, no refit)."""
    task = plan.task
    train, val, test = paper_split(len(task.item_ids))
    warned = [0]
    with counting_convergence_warnings(lambda count: warned.__setitem__(0, count)):
        encoder = make_encoder(plan.feature_set, plan.settings)
        train_block = task.encode(encoder, train, fit=True)
        val_block, test_block = task.encode(encoder, val, fit=False), task.encode(encoder, test, fit=False)
        models, scores = {}, {}
        for name in config.classifiers:
            models[name] = task.fit(name, train_block, seed=config.seed, max_iter=PAPER_MAX_ITER)
            scores[name] = validation_score(val_block.y, task.predict(models[name], val_block), "accuracy")
        best = max(config.classifiers, key=lambda name: scores[name])
        predictions = task.predict(models[best], test_block)
        weights = top_features(models[best], encoder.get_feature_names_out(), task.class_names, config.top_k)
    choice = FoldChoice(0, 0, int(train.size), int(test.size), best, scores)
    return FoldResult(test, predictions, choice, warned[0], weights)
