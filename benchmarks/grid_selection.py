"""Measure cheaper ways to choose the C grid's entry against fitting every entry from scratch, on real folds.

The audit (crossfit) compares l2 and l1 at every C of the grid on an inner validation split of each training fold;
with scikit-learn's solvers on the whole grid (``solvers="sklearn", grid_patience=0``) the large-C fits on
near-separable n-grams cost most of the audit. This script captures every selection problem of such an audit (the
inner fit and validation blocks of each feature set, repeat and fold, with the scores and choice the audit made),
then refits the grid on each in several arms and prints the grid's CPU seconds and how many folds choose the same
entry as the audit (and, per dataset, that audit's CPU seconds by step: the grid's selection fits, the chosen
entries' refits, the rest):

- ``scratch``: every entry from scratch, as the audit does (checks that the capture reproduces the audit's scores);
- ``liblinear tol=1e-3`` / ``1e-2``: the L1 entries fitted with a looser tolerance (a refit would use the default);
- ``saga path``: L1 with scikit-learn's SAGA, warm-started along ascending C, on the SAME objective as liblinear
  (no separate intercept: a constant column, as liblinear's penalised intercept); ``--saga`` (slow);
- ``patience=N``: each penalty's path stopped after N validation scores in a row no better than the best so far
  (entries whose model predicts one class for every validation item do not count: the path has not started).

Run: .venv/bin/python benchmarks/grid_selection.py [--datasets neubaroco,...] [--saga] [--no-record]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from threadpoolctl import threadpool_limits

import pfungst
import pfungst.audit.fold_fits as fold_fits_module
from pfungst.audit import AuditConfig
from pfungst.audit.classifiers import DEFAULT_C_GRID, candidate_grid, make_classifier
from pfungst.audit.gpt2 import gpt2_encoding
from pfungst.stats import cohen_kappa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import add_record_option, record_results  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "pacchiardi"
DATASETS = ("neubaroco", "moral_permissibility", "causal_judgment", "commonsense_qa_2")
GRID = candidate_grid(["l2_C1", "l1_C1"], DEFAULT_C_GRID)
L1 = tuple(spec for spec in GRID if spec.penalty == "l1")


@dataclass
class Problem:
    """One fold's selection problem as the audit saw it, and what scratch fits took per entry."""

    n_classes: int
    blocks: tuple[Any, Any]
    scores: dict[str, float]
    best: str
    seconds: dict[str, float] = field(default_factory=dict)
    constant: dict[str, bool] = field(default_factory=dict)


@dataclass
class Steps:
    """CPU seconds of one default audit: all of it, the grid's selection fits and the chosen entries' refits."""

    audit: float = 0.0
    grid: float = 0.0
    refit: float = 0.0


@contextlib.contextmanager
def capturing(found: list[Problem], steps: Steps) -> Iterator[None]:
    """Record every item-level selection problem that the audit's folds pass to ``choose_classifier``, and time the
    selection and the refit (the audit runs its folds in this process: ``n_jobs=1``)."""
    choose_original, refit_original = fold_fits_module.choose_classifier, fold_fits_module.refit_chosen

    def choose(task: Any, candidates: Any, blocks: Any, score: Any, **options: Any) -> Any:
        started = time.process_time()
        choice = choose_original(task, candidates, blocks, score, **options)
        steps.grid += time.process_time() - started
        if task.level == "item":
            found.append(Problem(task.n_classes, blocks, dict(choice.scores), choice.best.name))
        return choice

    def refit(*args: Any, **options: Any) -> Any:
        started = time.process_time()
        model = refit_original(*args, **options)
        steps.refit += time.process_time() - started
        return model

    fold_fits_module.choose_classifier, fold_fits_module.refit_chosen = choose, refit
    try:
        yield
    finally:
        fold_fits_module.choose_classifier, fold_fits_module.refit_chosen = choose_original, refit_original


def capture(name: str) -> tuple[list[Problem], Steps]:
    """The selection problems of the default audit of one Pacchiardi dataset, and that audit's CPU seconds by step."""
    found: list[Problem] = []
    steps = Steps()
    with capturing(found, steps), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        benchmark = pfungst.load(DATA / name / "gpt-4-0613.jsonl")
        started = time.process_time()
        pfungst.audit.audit(benchmark, AuditConfig(solvers="sklearn", grid_patience=0))
        steps.audit = time.process_time() - started
    return found, steps


def fit_scratch(problem: Problem) -> None:
    """Every entry from scratch, timed; checks the capture reproduces the audit's validation scores."""
    fit_block, val_block = problem.blocks
    for spec in GRID:
        model = make_classifier(spec, seed=0, max_iter=1000)
        started = time.process_time()
        model.fit(fit_block.X, fit_block.y)
        problem.seconds[spec.name] = time.process_time() - started
        predicted = model.predict(val_block.X)
        problem.constant[spec.name] = np.unique(predicted).size == 1
        if abs(cohen_kappa(val_block.y, predicted) - problem.scores[spec.name]) > 1e-12:
            raise RuntimeError(f"{spec.name}: the capture does not reproduce the audit's validation score")


def liblinear_scores(problem: Problem, tol: float) -> tuple[dict[str, float], float]:
    """L1 validation scores with liblinear at ``tol``, and their CPU seconds."""
    fit_block, val_block = problem.blocks
    scores, started = {}, time.process_time()
    for spec in L1:
        binary = LogisticRegression(C=spec.C, l1_ratio=1.0, solver="liblinear", max_iter=1000, random_state=0, tol=tol)
        model = binary if problem.n_classes <= 2 else OneVsRestClassifier(binary)
        scores[spec.name] = cohen_kappa(val_block.y, model.fit(fit_block.X, fit_block.y).predict(val_block.X))
    return scores, time.process_time() - started


def _with_constant(X: Any) -> Any:
    ones = np.ones((X.shape[0], 1))
    return sp.hstack([X, ones]).tocsr() if sp.issparse(X) else np.hstack([np.asarray(X), ones])


def saga_scores(problem: Problem, tol: float = 1e-4) -> tuple[dict[str, float], float]:
    """L1 validation scores along a warm-started SAGA path on liblinear's objective (one-vs-rest for K > 2)."""
    fit_block, val_block = problem.blocks
    started = time.process_time()
    X, V, classes = _with_constant(fit_block.X), _with_constant(val_block.X), np.unique(fit_block.y)
    targets = list(classes[1:]) if classes.size == 2 else list(classes)
    models = [
        LogisticRegression(l1_ratio=1.0, solver="saga", fit_intercept=False, warm_start=True, tol=tol, max_iter=1000)
        for _ in targets
    ]
    scores = {}
    for spec in L1:
        fitted = [m.set_params(C=spec.C).fit(X, fit_block.y == t) for t, m in zip(targets, models, strict=True)]
        margins = np.array([V @ m.coef_.ravel() for m in fitted])
        binary = np.where(margins[0] > 0, classes[-1], classes[0])
        predicted = binary if len(targets) == 1 else classes[margins.argmax(0)]
        scores[spec.name] = cohen_kappa(val_block.y, predicted)
    return scores, time.process_time() - started


def patience_choice(problem: Problem, patience: int) -> tuple[str, float]:
    """The entry ``patience`` would choose from the scratch scores, and the CPU seconds of the entries it fits."""
    scores, spent = {}, 0.0
    for penalty in ("l2", "l1"):
        best, stale = -np.inf, 0
        for spec in (spec for spec in GRID if spec.penalty == penalty):
            scores[spec.name] = problem.scores[spec.name]
            spent += problem.seconds[spec.name]
            if not problem.constant[spec.name]:
                stale = 0 if scores[spec.name] > best else stale + 1
            best = max(best, scores[spec.name])
            if stale >= patience:
                break
    return max(scores, key=scores.__getitem__), spent


def chosen(problem: Problem, l1_scores: dict[str, float]) -> str:
    """The grid's choice with the scratch L2 scores and these L1 scores (ties to the earlier entry)."""
    scores = {**problem.scores, **l1_scores}
    return max((spec.name for spec in GRID), key=scores.__getitem__)


def arms(problems: list[Problem], saga: bool) -> Iterator[tuple[str, float, int]]:
    """Per arm: its name, the grid's CPU seconds over all problems and the folds choosing the audit's entry."""
    l2 = sum(p.seconds[s.name] for p in problems for s in GRID if s.penalty == "l2")
    yield "scratch", sum(sum(p.seconds.values()) for p in problems), sum(chosen(p, {}) == p.best for p in problems)
    variants = [(f"liblinear tol={tol:g}", lambda p, tol=tol: liblinear_scores(p, tol)) for tol in (1e-3, 1e-2)]
    variants += [("saga path tol=1e-4", saga_scores)] if saga else []
    for arm, method in variants:
        results = [method(p) for p in problems]
        same = sum(chosen(p, scores) == p.best for p, (scores, _) in zip(problems, results, strict=True))
        yield arm, l2 + sum(seconds for _, seconds in results), same
    for patience in (1, 2):
        picks = [patience_choice(p, patience) for p in problems]
        same = sum(pick == p.best for p, (pick, _) in zip(problems, picks, strict=True))
        yield f"patience={patience}", sum(seconds for _, seconds in picks), same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--saga", action="store_true", help="Add the SAGA path arm (about 10x slower than liblinear).")
    add_record_option(parser)
    args = parser.parse_args()
    lines = ["| dataset | arm | grid CPU s | same choice as the audit |", "|---|---|---|---|"]
    step_lines = [
        "| dataset | audit CPU s | grid (selection fits) | refit of the choice | the rest |",
        "|---|---|---|---|---|",
    ]
    gpt2_encoding()  # one-time load, outside the timed audits
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.datasets.split(","):
            problems, steps = capture(name)
            rest = steps.audit - steps.grid - steps.refit
            step_lines.append(f"| {name} | {steps.audit:.1f} | {steps.grid:.1f} | {steps.refit:.1f} | {rest:.1f} |")
            for problem in problems:
                fit_scratch(problem)
            for arm, seconds, same in arms(problems, args.saga):
                lines.append(f"| {name} | {arm} | {seconds:.1f} | {same}/{len(problems)} |")
                print(lines[-1], file=sys.stderr, flush=True)
    lines += ["", *step_lines]
    lines.append(f"\n- load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    table = "\n".join(lines)
    print(table)
    if not args.no_record:
        record_results("grid_selection", "Cheaper C-grid selection against scratch fits, on real folds", table)


if __name__ == "__main__":
    main()
