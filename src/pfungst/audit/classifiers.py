"""The probe's classifiers: logistic regressions for items and conditional logits for options, and their grid.

Under the default ``crossfit`` protocol every penalty of the named classifiers is tried with every ``C`` of
:data:`DEFAULT_C_GRID` (``l2_C0.01`` ... ``l1_C100``, see :func:`candidate_grid`), chosen on an inner validation
split, so that no feature set is judged by a fit regularised to a constant: term-frequency and TF-IDF values are
small and, at a fixed ``C``, their probe predicts the majority label on a few hundred items where presence (values
of 1) does not. The ``pacchiardi2024`` protocol keeps the paper's three fixed entries below, fitted with
scikit-learn's defaults (``solvers="sklearn"``, the table below).

``crossfit`` fits its grid with ``solvers="liblinear"`` by default: liblinear for both penalties (L2 by its primal
trust-region Newton method, or on a sparse matrix of at least :data:`DUAL_MIN_ROWS` rows by its dual coordinate
descent; one-vs-rest for
K > 2, as L1 always is), stopped at liblinear's own default tolerance, 0.01 (:data:`LIBLINEAR_TOL`; L1 up to ``C`` = 1
at 0.001, :data:`L1_SPARSE_TOL`) instead of scikit-learn's 1e-4. On
the four Pacchiardi datasets the grid's fits take a quarter of the time (the nearly unregularised lbfgs fits at
``C`` = 10 and 100 were most of it); the kappas move less than a change of seed moves them and no verdict changes
(``benchmarks/audit_speed.py``).
Under ``solvers="liblinear"`` an L1 fit of at least :data:`SCREEN_MIN_ROWS` rows also leaves out the columns that
cannot get a weight at its ``C`` (:func:`l1_screened_columns`: values summing to at most ``1 / C``), which on large
n-gram sets are most of them; the optimum is the same. ``solvers="sklearn"`` keeps the table below at any protocol.

========== ======= ===== =========================================================================
name       penalty C     item level (scikit-learn)
========== ======= ===== =========================================================================
``l2_C1``  L2      1.0   ``LogisticRegression(solver="lbfgs")``: multinomial for K > 2
``l1_C1``  L1      1.0   ``LogisticRegression(solver="liblinear", l1_ratio=1)``: one-vs-rest for K > 2
``l1_C0.1`` L1     0.1   the same with ``C=0.1``
========== ======= ===== =========================================================================

Why these solvers: with ``penalty="l1"`` scikit-learn's default solver (lbfgs) is refused, and ``liblinear`` is what
the paper's code ran for L1 (fast and exact on sparse n-grams). liblinear shuffles coordinates with
``random_state``, which the paper left unseeded; here it is the probe's seed, so every run repeats exactly.
liblinear is binary-only since scikit-learn 1.8, so for K > 2 it is fitted one-vs-rest
(:class:`~pfungst.audit.liblinear_logistic.LiblinearLogistic`: the models ``LogisticRegression`` and
``OneVsRestClassifier`` give, without their per-fit checks), which is what scikit-learn did inside
``LogisticRegression`` when the paper ran. L2 keeps the paper's default, lbfgs (deterministic). Option-level inputs use
:class:`~pfungst.audit.conditional_logit.ConditionalLogit` with the same penalty and ``C``.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from pfungst.audit.c_grid import DEFAULT_C_GRID, MAX_C, MIN_C, Solvers, check_c_grid
from pfungst.audit.conditional_logit import ConditionalLogit
from pfungst.audit.liblinear_logistic import LiblinearLogistic
from pfungst.errors import ConfigError
from pfungst.registry import Registry

__all__ = [
    "CLASSIFIERS",
    "DEFAULT_C_GRID",
    "DUAL_MIN_ROWS",
    "L1_SPARSE_MAX_C",
    "L1_SPARSE_TOL",
    "LIBLINEAR_TOL",
    "SCREEN_MIN_ROWS",
    "MAX_C",
    "MIN_C",
    "ClassifierSpec",
    "Solvers",
    "FeatureWeight",
    "candidate_grid",
    "check_c_grid",
    "check_classifier_names",
    "class_weights",
    "counting_convergence_warnings",
    "fit_item_classifier",
    "l1_screened_columns",
    "liblinear_tol",
    "make_choice_model",
    "make_classifier",
    "top_features",
    "warnings_routed_by_thread",
]

LIBLINEAR_TOL = 0.01
"""Stopping tolerance of the grid's liblinear fits under ``solvers="liblinear"``: liblinear's own default for its L2
primal and L1 solvers (``train -s 0`` and ``-s 6``; the L2 dual's own is 0.1: ``-s 7``), except L1 at small ``C``
(:data:`L1_SPARSE_TOL`)."""
DUAL_MIN_ROWS = 10_000
"""From this many training rows on, liblinear fits L2 by its dual coordinate descent (``dual=True``, ``train -s 7``)
instead of its primal trust-region Newton method: the same objective and optimum (to the tolerance), 4 to 7 times
faster on n-gram matrices (word 1-grams of 30,000 synthetic items, one binary fit: 0.11 s against 0.62 s at ``C`` =
0.01, 0.12 against 0.80 at 0.1, 0.49 against 2.24 at 10, the same predictions for 99.8 to 100% of the items). Only
sparse matrices (n-grams): on a few dense columns (readability) the dual is the slower one and stopped at
``max_iter`` (10,000 synthetic items: 4 of the readability probe's fits). Smaller fits keep the primal, so the results
of benchmarks of a few thousand items are unchanged."""
SCREEN_MIN_ROWS = 10_000
"""From this many training rows on, a liblinear L1 fit leaves out the columns that cannot get a weight
(:func:`l1_screened_columns`) and a fold's grid the columns no inner-fit row has
(:meth:`~pfungst.audit.probe_tasks.Block.occupied_columns`): the same optima, to the solver's tolerance, at a
fraction of the time on large n-gram sets. Smaller fits keep every column, so the results of benchmarks of a few
thousand items are unchanged, bit for bit (at a few dozen items one fit more or less at the tolerance can flip a
fold's choice of ``C``)."""
L1_SPARSE_TOL = 0.001
"""Stopping tolerance of L1 fits at ``C`` up to :data:`L1_SPARSE_MAX_C`. There the solution is sparse and a weak cue's
weight has to grow from zero: at 0.01 liblinear's L1 solver stops first (one planted word in term frequencies, L1 at
``C`` = 0.1: kappa 0.45 against 0.51 at 1e-4); at 0.001 it gives what 1e-4 gives."""
L1_SPARSE_MAX_C = 1.0
"""The largest ``C`` fitted at :data:`L1_SPARSE_TOL`. Above it, at 10 and 100, many weights are active and the nearly
unregularised fits were the slowest of the grid (the three-label neubaroco: 3.6 of its 4.3 s of liblinear); at 0.01
they move the four Pacchiardi datasets' kappas by a median of 0 and at most 0.03 (``benchmarks/audit_speed.py``)."""


def liblinear_tol(penalty: str, C: float) -> float:
    """The stopping tolerance of a liblinear grid fit (see :data:`LIBLINEAR_TOL`)."""
    return L1_SPARSE_TOL if penalty == "l1" and C <= L1_SPARSE_MAX_C else LIBLINEAR_TOL


@dataclass(frozen=True)
class ClassifierSpec:
    """One logistic regression of the grid: its penalty and inverse regularisation strength."""

    name: str
    penalty: Literal["l1", "l2"]
    C: float
    solvers: Solvers = "sklearn"
    """How it is fitted at the item level (see :data:`Solvers`); the registry's entries keep scikit-learn's defaults."""

    @property
    def item_solver(self) -> str:
        """The scikit-learn solver of the item-level fit."""
        return "lbfgs" if self.penalty == "l2" and self.solvers == "sklearn" else "liblinear"

    def dual(self, n_rows: int) -> bool:
        """Whether the item-level fit on ``n_rows`` rows solves the dual problem: L2 by liblinear on at least
        :data:`DUAL_MIN_ROWS` rows; the primal everywhere else."""
        return self.penalty == "l2" and self.item_solver == "liblinear" and n_rows >= DUAL_MIN_ROWS

    @property
    def tol(self) -> float:
        """The item-level fit's stopping tolerance (:func:`liblinear_tol` under ``liblinear``)."""
        return liblinear_tol(self.penalty, self.C) if self.solvers == "liblinear" else 1e-4

    def spec(self) -> dict[str, Any]:
        """``{"name", "params"}`` for provenance."""
        return {
            "name": self.name,
            "params": {
                "penalty": self.penalty,
                "C": self.C,
                "item_solver": self.item_solver,
                "item_tol": self.tol,
                "item_dual_from_rows": DUAL_MIN_ROWS if self.dual(DUAL_MIN_ROWS) else None,
                "option_model": "ConditionalLogit (L-BFGS-B)",
            },
        }


CLASSIFIERS: Registry[ClassifierSpec] = Registry(
    "classifier",
    {
        "l2_C1": ClassifierSpec("l2_C1", "l2", 1.0),
        "l1_C1": ClassifierSpec("l1_C1", "l1", 1.0),
        "l1_C0.1": ClassifierSpec("l1_C0.1", "l1", 0.1),
    },
    group=None,
)
"""The grid, in the order used to break ties in validation scores."""


@dataclass(frozen=True)
class FeatureWeight:
    """A feature's weight for a class in the fitted final model (larger: more evidence for the class)."""

    class_name: str
    """The class (for option-level models: ``chosen`` or ``not chosen``)."""
    feature: str
    """The feature's name, from the transformer's ``get_feature_names_out``."""
    weight: float
    """Its coefficient for the class (standardised units when the features were scaled)."""
    rank: int
    """1 for the strongest feature of the class."""

    def to_dict(self) -> dict[str, Any]:
        return {"class": self.class_name, "feature": self.feature, "weight": self.weight, "rank": self.rank}


def check_classifier_names(names: Sequence[str]) -> None:
    """Raise :class:`ConfigError` for an empty grid or an unknown classifier name (close matches listed)."""
    if not names:
        raise ConfigError("the classifier grid is empty; name at least one of: " + ", ".join(CLASSIFIERS))
    for name in names:
        CLASSIFIERS.check(name)


def candidate_grid(
    names: Sequence[str], c_grid: Sequence[float], solvers: Solvers = "sklearn"
) -> tuple[ClassifierSpec, ...]:
    """The classifiers to choose among: each penalty of ``names`` with every ``C`` of ``c_grid``, penalty by penalty
    in the order of ``names``, fitted as ``solvers`` says; with an empty ``c_grid``, the named entries themselves
    (the paper's fixed grid, with scikit-learn's defaults).

    Example:
        >>> [spec.name for spec in candidate_grid(["l2_C1", "l1_C1", "l1_C0.1"], [0.1, 10])]
        ['l2_C0.1', 'l2_C10', 'l1_C0.1', 'l1_C10']
    """
    check_classifier_names(names)
    check_c_grid(c_grid)
    if solvers not in ("liblinear", "sklearn"):
        raise ConfigError(f"solvers must be 'liblinear' or 'sklearn', not {solvers!r}")
    if not c_grid:
        return tuple(CLASSIFIERS.resolve(name) for name in names)
    penalties = dict.fromkeys(CLASSIFIERS.resolve(name).penalty for name in names)
    return tuple(
        ClassifierSpec(f"{penalty}_C{C:g}", penalty, float(C), solvers) for penalty in penalties for C in c_grid
    )


def _spec(classifier: ClassifierSpec | str) -> ClassifierSpec:
    return classifier if isinstance(classifier, ClassifierSpec) else CLASSIFIERS.resolve(classifier)


def make_classifier(classifier: ClassifierSpec | str, *, seed: int, max_iter: int, n_rows: int = 0) -> ClassifierMixin:
    """A fresh item-level classifier for a grid entry (a spec, or a name of :data:`CLASSIFIERS`; see the module
    docstring for the solvers) to be fitted on a sparse matrix of ``n_rows`` rows (0 for a dense one: that picks
    liblinear's L2 solver, :data:`DUAL_MIN_ROWS`)."""
    spec = _spec(classifier)
    if spec.item_solver == "lbfgs":
        return LogisticRegression(C=spec.C, solver="lbfgs", tol=spec.tol, max_iter=max_iter, random_state=seed)
    return LiblinearLogistic(
        C=spec.C, penalty=spec.penalty, dual=spec.dual(n_rows), tol=spec.tol, max_iter=max_iter, random_state=seed
    )


def make_choice_model(classifier: ClassifierSpec | str, *, max_iter: int) -> ConditionalLogit:
    """A fresh option-level model (a conditional logit) with the grid entry's penalty and ``C``."""
    spec = _spec(classifier)
    return ConditionalLogit(C=spec.C, penalty=spec.penalty, max_iter=max_iter)


def fit_item_classifier(
    classifier: ClassifierSpec | str, X: Any, y: np.ndarray, *, n_classes: int, seed: int, max_iter: int
) -> ClassifierMixin:
    """Fit a grid entry; a training set with one class gets a constant predictor instead (nothing to learn)."""
    if np.unique(y).size < 2:
        return DummyClassifier(strategy="most_frequent").fit(X, y)
    spec = _spec(classifier)
    n_rows = X.shape[0] if sp.issparse(X) else 0  # the dual only for sparse matrices (see DUAL_MIN_ROWS)
    model = make_classifier(spec, seed=seed, max_iter=max_iter, n_rows=n_rows)
    if spec.item_solver == "lbfgs":
        return model.fit(X, y)
    screened = spec.penalty == "l1" and spec.solvers == "liblinear" and X.shape[0] >= SCREEN_MIN_ROWS
    kept = l1_screened_columns(X, spec.C) if screened else None
    with _LIBLINEAR:  # jobs in threads (fold jobs, Dask workers): liblinear's generator is one per process
        if kept is None:
            return model.fit(X, y)
        model.fit(sp.csr_matrix(X)[:, kept] if sp.issparse(X) else X[:, kept], y)
    return _widened(model, kept, X.shape[1])


def l1_screened_columns(X: Any, C: float) -> np.ndarray | None:
    """The columns an L1 logistic regression at ``C`` can give a nonzero weight, or None to fit on every column.

    liblinear minimises ``||w||_1 + C * sum_i log(1 + exp(-y_i w.x_i))``; the loss term's derivative in ``w_j`` is
    smaller in size than ``C * sum_i |x_ij|`` at any ``w``, so where that is at most 1 the optimum has ``w_j = 0``
    exactly, whatever the other weights. Those columns are left out of the fit (their weight is 0): the same
    optimum, while liblinear's L1 solver otherwise pays for every column in every pass (1.6 million word pairs of
    80,000 items, of which a few thousand pass at ``C`` = 0.01). One column is always kept; where more than half of
    the columns pass, the fit takes them all (None), rather than a copy of most of the matrix.
    """
    if sp.issparse(X):
        csr = sp.csr_matrix(X)
        mass = np.bincount(csr.indices, weights=np.abs(csr.data), minlength=csr.shape[1])
    else:
        mass = np.abs(np.asarray(X, dtype=np.float64)).sum(axis=0)
    kept = np.flatnonzero(C * mass > 1.0)
    if kept.size > mass.size // 2:  # too few to leave out for a copy of the matrix to pay (a million items: 0.4 GB)
        return None
    return kept if kept.size else np.asarray([int(np.argmax(mass))])


def _widened(model: LiblinearLogistic, kept: np.ndarray, n_features: int) -> LiblinearLogistic:
    """``model``, fitted on the columns ``kept``, with zero weights for the others: a model of all ``n_features``."""
    coef = np.zeros((model.coef_.shape[0], n_features))
    coef[:, kept] = model.coef_
    model.coef_ = coef
    model.n_features_in_ = n_features
    return model


_LIBLINEAR = threading.Lock()
"""scikit-learn's liblinear shuffles coordinates with one process-wide generator (``newrand``'s ``mt_rand``), reseeded
by each fit: fits in two threads at once would interleave its draws and give other coefficients than a serial run.
One liblinear fit at a time keeps audits whose jobs run in threads (``--parallel threads``, a Dask worker's threads)
bit-identical to serial ones (lbfgs fits still run together). A fit holds it alone: one-vs-rest fits its classes in
a loop of its own (:class:`~pfungst.audit.liblinear_logistic.LiblinearLogistic`), with no nested jobs to wait for."""


@contextmanager
def counting_convergence_warnings(count: Callable[[int], None]) -> Iterator[None]:
    """Capture ConvergenceWarnings (reporting how many through ``count``); let every other warning through.

    Inside :func:`warnings_routed_by_thread` (fold jobs in threads) the count is this thread's own; elsewhere
    ``warnings.catch_warnings``, which is process-wide, records them.
    """
    if _ROUTED.active:
        _THREAD.converged = 0
        try:
            yield
        finally:
            count(_THREAD.__dict__.pop("converged", 0))
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        yield
    converged = 0
    for entry in caught:
        if issubclass(entry.category, ConvergenceWarning):
            converged += 1
        else:
            warnings.warn_explicit(entry.message, entry.category, entry.filename, entry.lineno)
    count(converged)


class _Routing:
    active = False


_ROUTED = _Routing()
"""Whether :func:`warnings_routed_by_thread` is in force: fold jobs run in threads of this process and each thread
counts its own warnings."""
_THREAD = threading.local()
"""Per thread: the ConvergenceWarnings seen inside its :func:`counting_convergence_warnings`."""


@contextmanager
def warnings_routed_by_thread() -> Iterator[None]:
    """While fold jobs run in threads: count each thread's ConvergenceWarnings for it, as
    :func:`counting_convergence_warnings` does for a job alone in its process (show every other warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", ConvergenceWarning)
        shown = warnings.showwarning

        def route(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
            if issubclass(category, ConvergenceWarning) and hasattr(_THREAD, "converged"):
                _THREAD.converged += 1
            else:
                shown(message, category, *args, **kwargs)

        warnings.showwarning = route
        _ROUTED.active = True
        try:
            yield
        finally:
            _ROUTED.active = False


def class_weights(model: Any, class_names: Sequence[str]) -> dict[str, np.ndarray]:
    """Per class, the coefficient vector that raises its score (binary models: +coef for class 1, -coef for 0)."""
    if isinstance(model, ConditionalLogit):
        return {"chosen": model.coef_, "not chosen": -model.coef_}
    if isinstance(model, LiblinearLogistic | LogisticRegression):
        coef, classes = np.atleast_2d(model.coef_), model.classes_
        if coef.shape[0] == 1:  # binary (also one-vs-rest fitted on a fold with two of the K classes)
            return {class_names[int(classes[1])]: coef[0], class_names[int(classes[0])]: -coef[0]}
        return {class_names[int(c)]: row for c, row in zip(classes, coef, strict=True)}
    return {}


def top_features(
    model: Any, feature_names: Sequence[str] | np.ndarray, class_names: Sequence[str], top_k: int
) -> tuple[FeatureWeight, ...]:
    """The ``top_k`` features with the largest positive weight for each class (zero weights are left out)."""
    found = []
    for class_name, weights in class_weights(model, class_names).items():
        order = np.argsort(-weights, kind="stable")[:top_k]
        found += [
            FeatureWeight(class_name, str(feature_names[j]), float(weights[j]), rank)
            for rank, j in enumerate((j for j in order if weights[j] > 0), start=1)
        ]
    return tuple(found)
