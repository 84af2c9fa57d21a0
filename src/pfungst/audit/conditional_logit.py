"""A conditional logit: a linear scorer that chooses among each item's own options (McFadden's choice model).

Rows are (item, option) pairs; a row's score is ``x @ w`` and an item's options compete through a softmax over its
own rows, so the model learns what makes an option *win against its siblings* (longest, most overlapping with the
question, ...) rather than what makes a row "gold" in the abstract. There is no intercept: a constant added to
every score of an item cancels in its softmax.

The penalised negative log-likelihood is minimised with SciPy's L-BFGS-B, on dense or sparse ``X``:

- ``penalty="l2"``: ``NLL(w) + ||w||^2 / (2 C)``, as in scikit-learn's ``LogisticRegression`` (its objective is
  ``C * NLL + ||w||^2 / 2``, the same minimiser).
- ``penalty="l1"``: ``NLL(w) + ||w||_1 / C``, solved exactly (no smoothing) by splitting ``w = u - v`` with
  ``u, v >= 0``: the penalty becomes linear in ``(u, v)`` and L-BFGS-B handles the bounds, so unused features get
  weights of exactly 0.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_array, check_is_fitted

from pfungst.errors import DataError

__all__ = ["ConditionalLogit"]

Penalty = Literal["l1", "l2"]


class ConditionalLogit(BaseEstimator):
    """Choose one option per item: softmax over each item's rows of a linear score, fitted by penalised likelihood.

    Args:
        C: Inverse regularisation strength (as in scikit-learn); smaller is stronger. Must be positive.
        penalty: ``"l2"`` (ridge) or ``"l1"`` (lasso, exact, via variable splitting).
        max_iter: Maximum L-BFGS-B iterations; a :class:`~sklearn.exceptions.ConvergenceWarning` says when they ran
            out.
        tol: Gradient tolerance passed to L-BFGS-B (``gtol``) and relative objective tolerance (``ftol``).

    Attributes:
        coef_: Weight per feature, shape ``(n_features,)``.
        n_features_in_: Number of features seen in ``fit``.
        n_iter_: L-BFGS-B iterations used.
        converged_: Whether L-BFGS-B reported success.

    Example:
        >>> X = np.array([[1.0], [3.0], [2.0], [5.0], [4.0], [0.0]])  # one feature: option length
        >>> is_gold = np.array([0, 1, 0, 1, 1, 0])  # the longer option wins in each item
        >>> groups = np.array([0, 0, 1, 1, 2, 2])
        >>> model = ConditionalLogit(C=10.0).fit(X, is_gold, groups)
        >>> model.predict_choice(np.array([[2.0], [7.0], [1.0]]), np.array([0, 0, 0])).tolist()
        [1]
    """

    def __init__(self, *, C: float = 1.0, penalty: Penalty = "l2", max_iter: int = 500, tol: float = 1e-6) -> None:
        self.C = C
        self.penalty = penalty
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X: Any, is_gold: ArrayLike, groups: ArrayLike) -> ConditionalLogit:
        """Fit the weights on rows ``X`` grouped into items by ``groups``, exactly one gold row per group.

        Args:
            X: Features, shape ``(n_rows, n_features)``, dense or sparse.
            is_gold: Per row, true for the item's correct option.
            groups: Per row, the item it belongs to (any sortable ids; rows of an item need not be adjacent).

        Raises:
            DataError: A group does not have exactly one gold row, or shapes disagree.
            ValueError: ``C``, ``penalty`` or ``max_iter`` is invalid.
        """
        self._check_params()
        X = check_array(X, accept_sparse="csr", dtype=np.float64)
        gold = np.asarray(is_gold).astype(bool)
        _, order, starts = _group_layout(groups, X.shape[0])
        if gold.shape != (X.shape[0],):
            raise DataError(f"is_gold has {gold.size} values for {X.shape[0]} rows")
        gold_per_group = np.add.reduceat(gold[order].astype(int), starts)
        bad = np.flatnonzero(gold_per_group != 1)
        if bad.size:
            raise DataError(
                f"each group needs exactly one gold row; {bad.size} group(s) have another count "
                f"(first: group #{bad[0]} with {gold_per_group[bad[0]]})"
            )
        X_sorted, gold_sorted = X[order], gold[order]
        weights, result = self._minimise(X_sorted, gold_sorted, starts)
        self.coef_ = weights
        self.n_features_in_ = X.shape[1]
        self.n_iter_ = int(result.nit)
        self.converged_ = bool(result.success)
        if not result.success:
            warnings.warn(
                f"ConditionalLogit stopped after {result.nit} of max_iter={self.max_iter} iterations "
                f"without converging ({result.message}); raise max_iter or tol, or scale the features",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The score ``x @ coef_`` of each row (higher: more likely chosen within its item)."""
        check_is_fitted(self, "coef_")
        X = check_array(X, accept_sparse="csr", dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features; the model was fitted on {self.n_features_in_}")
        return np.asarray(X @ self.coef_, dtype=float).ravel()

    def predict_proba_rows(self, X: Any, groups: ArrayLike) -> np.ndarray:
        """Per row, the probability that it is its item's choice (a softmax within each group)."""
        scores = self.decision_function(X)
        _, order, starts = _group_layout(groups, scores.size)
        proba = np.empty_like(scores)
        proba[order] = _group_softmax(scores[order], starts)
        return proba

    def predict_choice(self, X: Any, groups: ArrayLike, seed: int | None = None) -> np.ndarray:
        """Per group (in sorted order of the group ids), the position within the group of its highest-scoring row.

        Positions count the group's rows in the order they appear in ``X``. Ties go to the first of them, or, with
        a ``seed``, to one of them at random: a probe without position features must not win by tie-breaking
        towards the first slot when a file lists the gold first.
        """
        scores = self.decision_function(X)
        _, order, starts = _group_layout(groups, scores.size)
        sorted_scores = scores[order]
        sizes = np.diff(np.append(starts, scores.size))
        local = np.arange(scores.size) - np.repeat(starts, sizes)
        is_best = sorted_scores >= np.repeat(np.maximum.reduceat(sorted_scores, starts), sizes)
        if seed is None:
            return np.minimum.reduceat(np.where(is_best, local, scores.size), starts).astype(int)
        keys = np.where(is_best, np.random.default_rng(seed).random(scores.size), 2.0)
        lowest = np.repeat(np.minimum.reduceat(keys, starts), sizes)
        return np.minimum.reduceat(np.where(keys == lowest, local, scores.size), starts).astype(int)

    def _check_params(self) -> None:
        if self.penalty not in ("l1", "l2"):
            raise ValueError(f"penalty must be 'l1' or 'l2', not {self.penalty!r}")
        if not self.C > 0:
            raise ValueError(f"C must be positive, not {self.C!r}")
        if int(self.max_iter) < 1:
            raise ValueError(f"max_iter must be at least 1, not {self.max_iter!r}")

    def _minimise(self, X: Any, gold: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, Any]:
        p = X.shape[1]
        options = {"maxiter": int(self.max_iter), "gtol": self.tol, "ftol": self.tol * 1e-3}
        if self.penalty == "l2":

            def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
                nll, grad = _nll_and_gradient(w, X, gold, starts)
                return nll + w @ w / (2 * self.C), grad + w / self.C

            result = minimize(objective, np.zeros(p), jac=True, method="L-BFGS-B", options=options)
            return result.x, result

        def split_objective(uv: np.ndarray) -> tuple[float, np.ndarray]:
            w = uv[:p] - uv[p:]
            nll, grad = _nll_and_gradient(w, X, gold, starts)
            return nll + uv.sum() / self.C, np.concatenate([grad, -grad]) + 1.0 / self.C

        result = minimize(
            split_objective,
            np.zeros(2 * p),
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, None)] * (2 * p),
            options=options,
        )
        return result.x[:p] - result.x[p:], result


def _group_layout(groups: ArrayLike, n_rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group codes, the stable order that makes each group's rows contiguous, and each group's first sorted row."""
    ids = np.asarray(groups)
    if ids.shape != (n_rows,):
        raise DataError(f"groups has {ids.size} values for {n_rows} rows")
    if n_rows == 0:
        raise DataError("no rows: a conditional logit needs at least one item with options")
    _, codes = np.unique(ids, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    return codes, order, starts


def _group_softmax(scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Softmax of contiguous groups of ``scores`` beginning at ``starts`` (numerically stable)."""
    sizes = np.diff(np.append(starts, scores.size))
    shifted = scores - np.repeat(np.maximum.reduceat(scores, starts), sizes)
    exp = np.exp(shifted)
    return exp / np.repeat(np.add.reduceat(exp, starts), sizes)


def _nll_and_gradient(w: np.ndarray, X: Any, gold: np.ndarray, starts: np.ndarray) -> tuple[float, np.ndarray]:
    """Negative log-likelihood of the gold rows and its gradient ``X^T (p - gold)`` (rows grouped contiguously)."""
    scores = np.asarray(X @ w, dtype=float).ravel()
    sizes = np.diff(np.append(starts, scores.size))
    top = np.maximum.reduceat(scores, starts)
    exp = np.exp(scores - np.repeat(top, sizes))
    totals = np.add.reduceat(exp, starts)
    log_normaliser = top + np.log(totals)
    nll = float(log_normaliser.sum() - scores[gold].sum())
    residual = exp / np.repeat(totals, sizes) - gold
    gradient = X.T @ residual if sp.issparse(X) else residual @ X
    return nll, np.asarray(gradient, dtype=float).ravel()
