"""Choose a classifier of the C grid along each penalty's regularisation path, then refit it from where it stopped.

Under ``crossfit`` each training fold compares every penalty with every ``C`` of the grid on an inner validation
split, then refits the chosen entry on the whole fold. Fitting each entry from scratch repeats work: the optimum at
one ``C`` is an excellent start for the next. :func:`choose_classifier` therefore walks each penalty's ``C`` values
in ascending order (item-level L2: one ``LogisticRegression(warm_start=True)`` whose ``C`` moves along the path, so
each fit starts at the previous optimum), and the refit of the chosen L2 entry on the whole fold starts at its
inner-split optimum. The objective, solver and tolerance are unchanged, so every fit reaches the same optimum to
the solver's tolerance; only the number of iterations drops. liblinear (L1) and the conditional logit (option
level) take no starting point and are fitted from scratch.

``patience`` stops a penalty's path early: once that many consecutive ``C`` values have scored no better than the
best so far on the validation split, the larger ``C`` values (the slowest fits) are skipped. Ties already went to
the smaller ``C``, so a skipped entry could only have changed the choice by beating every earlier one. An entry
that predicts one class for every validation item does not count towards ``patience``: it is the model before the
path starts (L1 at small ``C`` sets every weight to zero), not a flat stretch of it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from sklearn.linear_model import LogisticRegression

from pfungst.audit.classifiers import ClassifierSpec, make_classifier

__all__ = ["GridChoice", "choose_classifier", "refit_chosen"]


class _Task(Protocol):
    level: Any
    n_classes: int

    def fit(self, name: ClassifierSpec | str, block: Any, *, seed: int, max_iter: int) -> Any: ...

    def predict(self, model: Any, block: Any) -> np.ndarray: ...


@dataclass(frozen=True)
class GridChoice:
    """The grid entry chosen on the validation split, every score computed, and the chosen entry's inner fit."""

    best: ClassifierSpec
    scores: dict[str, float]
    """Validation score per grid entry fitted (entries skipped by ``patience`` are absent)."""
    start: Any = field(default=None, compare=False)
    """The chosen entry as fitted on the inner split when its refit can start there (warm-startable), else None."""


def choose_classifier(
    task: _Task,
    candidates: Sequence[ClassifierSpec],
    blocks: tuple[Any, Any],
    score: Callable[[np.ndarray, np.ndarray], float],
    *,
    seed: int,
    max_iter: int,
    warm_start: bool = True,
    patience: int = 0,
) -> GridChoice:
    """Fit ``candidates`` on ``blocks[0]``, score them on ``blocks[1]`` with ``score(y, predictions)`` and return the
    best (ties to the earlier candidate). ``warm_start`` walks each penalty's path from its previous optimum;
    ``patience`` > 0 stops a penalty's path after that many non-improving ``C`` values in a row."""
    fit_block, val_block = blocks
    scores: dict[str, float] = {}
    starts: dict[str, Any] = {}
    for penalty in dict.fromkeys(spec.penalty for spec in candidates):
        path = sorted((spec for spec in candidates if spec.penalty == penalty), key=lambda spec: spec.C)
        warm = warm_start and _warm_startable(task, path[0], fit_block.y)
        model: Any = None
        best, stale = -np.inf, 0
        for spec in path:
            if warm:
                model = _path_step(model, spec, fit_block, seed, max_iter)
                starts[spec.name] = copy.deepcopy(model)
            else:
                model = task.fit(spec, fit_block, seed=seed, max_iter=max_iter)
            predicted = task.predict(model, val_block)
            scores[spec.name] = score(val_block.y, predicted)
            if np.unique(predicted).size > 1:  # one class for every item: the path has not started (L1 at small C)
                stale = 0 if scores[spec.name] > best else stale + 1
            best = max(best, scores[spec.name])
            if patience and stale >= patience:
                break
    chosen = max((spec for spec in candidates if spec.name in scores), key=lambda spec: scores[spec.name])
    return GridChoice(chosen, scores, starts.get(chosen.name))


def refit_chosen(task: _Task, choice: GridChoice, block: Any, *, seed: int, max_iter: int) -> Any:
    """The chosen entry fitted on ``block`` (the whole training fold), from its inner-split optimum when it has one
    and the fold has the same classes (else from scratch)."""
    start = choice.start
    if start is None or not np.array_equal(start.classes_, np.unique(block.y)):
        return task.fit(choice.best, block, seed=seed, max_iter=max_iter)
    model = copy.deepcopy(start)
    return model.fit(block.X, block.y)


def _warm_startable(task: _Task, spec: ClassifierSpec, y: np.ndarray) -> bool:
    """Item-level lbfgs fits (L2 under ``solvers="sklearn"``) with at least two classes take a starting point;
    liblinear and the conditional logit do not, and one class gets a constant predictor."""
    return task.level == "item" and spec.item_solver == "lbfgs" and np.unique(y).size >= 2


def _path_step(
    model: LogisticRegression | None, spec: ClassifierSpec, block: Any, seed: int, max_iter: int
) -> LogisticRegression:
    """Move the path's estimator to ``spec.C`` and refit from its current optimum (the first step from zero)."""
    if model is None:
        model = make_classifier(spec, seed=seed, max_iter=max_iter)
        model.set_params(warm_start=True)
    return model.set_params(C=spec.C).fit(block.X, block.y)
