"""Logistic regression by liblinear without scikit-learn's per-fit machinery, and predictions read off coefficients.

The audit's grid fits thousands of small logistic regressions (a few hundred items a fold). In such a fit
scikit-learn's ``LogisticRegression(solver="liblinear")`` spends more time checking its input, parameters and
targets than liblinear spends solving, and ``OneVsRestClassifier`` adds its own checks and a clone per class.
:class:`LiblinearLogistic` is the one case the audit needs: binary, or one binary model per class against the rest
for K > 2, each solved by the routine scikit-learn itself calls (``sklearn.svm._liblinear.train_wrap``) with the
arguments it passes, so the coefficients are the ones ``LogisticRegression`` and
``OneVsRestClassifier(LogisticRegression(...))`` give, bit for bit (``tests/audit/test_solvers.py`` checks it on the
installed scikit-learn, the guard against a change in that private binding). Inputs are the probe's own: float64
features, sparse or dense, and integer labels; nothing else is checked.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import _liblinear  # the solver LogisticRegression(solver="liblinear") calls

__all__ = ["LiblinearLogistic", "predict_classes"]

_SOLVER_TYPES = {("l2", False): 0, ("l2", True): 7, ("l1", False): 6}
"""liblinear's solver numbers (``train -s``): L2 primal trust-region Newton, L2 dual coordinate descent, L1."""
_SEED_BOUND = np.iinfo("i").max
_UNIT_CLASS_WEIGHTS = np.ones(2)
_EPSILON = 0.1
"""Unused by logistic regression; scikit-learn passes its SVR default."""


class LiblinearLogistic(ClassifierMixin, BaseEstimator):
    """Binary logistic regression by liblinear, one-vs-rest for more than two classes (two classes make one binary
    model, the second class positive, as ``OneVsRestClassifier`` does); an intercept, unpenalised as scikit-learn's
    liblinear fit leaves it (``intercept_scaling=1``).

    Attributes (after ``fit``):
        classes_: the classes seen in ``y``, sorted.
        coef_: one row of coefficients per binary model, shape (n_models, n_features).
        intercept_: their intercepts, shape (n_models,).
        n_iter_: liblinear's iterations per binary model.
    """

    def __init__(
        self,
        C: float = 1.0,
        penalty: Literal["l1", "l2"] = "l2",
        dual: bool = False,
        tol: float = 1e-4,
        max_iter: int = 100,
        random_state: int = 0,
    ) -> None:
        self.C = C
        self.penalty = penalty
        self.dual = dual
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: Any, y: np.ndarray) -> LiblinearLogistic:
        """Fit one binary model per class of ``y`` (at least two classes); warns ``ConvergenceWarning`` for each
        that stopped at ``max_iter``, as scikit-learn does."""
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"logistic regression needs at least two classes in y, got {self.classes_.size}")
        solver_type = _SOLVER_TYPES[(self.penalty, bool(self.dual))]
        features, is_sparse = _solver_input(X)
        seed = np.random.RandomState(self.random_state).randint(_SEED_BOUND)  # as scikit-learn draws it
        sample_weight = np.ones(features.shape[0])
        positives = self.classes_[1:] if self.classes_.size == 2 else self.classes_
        rows, iterations = [], []
        _liblinear.set_verbosity_wrap(0)  # the solver's log is process-wide; scikit-learn silences it per fit too
        for positive in positives:
            target = (np.asarray(y) == positive).astype(np.float64)
            raw, n_iter = _liblinear.train_wrap(
                features, target, is_sparse, solver_type, self.tol, 1.0, self.C, _UNIT_CLASS_WEIGHTS,
                self.max_iter, seed, _EPSILON, sample_weight,
            )  # fmt: skip
            if max(n_iter) >= self.max_iter:
                message = "Liblinear failed to converge, increase the number of iterations."
                warnings.warn(message, ConvergenceWarning, stacklevel=2)
            rows.append(raw[0])
            iterations.append(int(max(n_iter)))
        raw_rows = np.vstack(rows)
        self.coef_ = raw_rows[:, :-1]
        self.intercept_ = raw_rows[:, -1].copy()
        self.n_iter_ = np.asarray(iterations)
        self.n_features_in_ = features.shape[1]
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Each binary model's score per row, shape (n_rows, n_models)."""
        return _linear_scores(self, X)

    def predict(self, X: Any) -> np.ndarray:
        """The class whose model scores highest (ties to the first); for two classes, the second where its score > 0."""
        return predict_classes(self, X)


def _solver_input(X: Any) -> tuple[Any, bool]:
    """``X`` as liblinear takes it (what scikit-learn's checks hand it): CSR with 32-bit indices, or a C-ordered
    array, of float64."""
    if not sp.issparse(X):
        return np.ascontiguousarray(X, dtype=np.float64), False
    csr = sp.csr_matrix(X, dtype=np.float64)
    if csr.indices.dtype != np.int32 or csr.indptr.dtype != np.int32:
        if csr.nnz > np.iinfo(np.int32).max:
            raise ValueError(f"liblinear takes at most {np.iinfo(np.int32).max} stored values, got {csr.nnz}")
        csr = sp.csr_matrix((csr.data, csr.indices.astype(np.int32), csr.indptr.astype(np.int32)), shape=csr.shape)
    return csr, True


def predict_classes(model: Any, X: Any) -> np.ndarray:
    """``model.predict(X)``; for a fitted logistic regression read directly off its coefficients, without
    scikit-learn's input checks on every call: the same classes (one score column: the second class where it is > 0;
    several: the first highest)."""
    if not isinstance(model, LogisticRegression | LiblinearLogistic):
        return np.asarray(model.predict(X))
    scores = _linear_scores(model, X)
    if scores.shape[1] == 1:
        return model.classes_[(scores[:, 0] > 0).astype(int)]
    return model.classes_[np.argmax(scores, axis=1)]


def _linear_scores(model: LogisticRegression | LiblinearLogistic, X: Any) -> np.ndarray:
    """``X @ coef_.T + intercept_``, one column per row of ``coef_``."""
    return np.asarray(X @ model.coef_.T) + model.intercept_
