"""One-vs-rest logistic regression for liblinear's binary-only solvers, and predictions read off linear coefficients.

scikit-learn's ``OneVsRestClassifier`` is the general tool: any estimator, multilabel targets, a joblib dispatch per
class, its own input checks before each binary estimator repeats them. The audit's grid fits tens of thousands of small
logistic regressions (a few hundred items a fold); there that general machinery cost a fifth of an audit (the
three-label neubaroco benchmark: 9.9 s of CPU with it, 8.0 without). :class:`OneVsRestLogistic` is the one case
the audit needs: one binary ``LogisticRegression`` per class against the rest, fitted in a loop. Its models and
predictions are the ones ``OneVsRestClassifier`` gives (same targets, same seed per class, ties to the first class as
``np.argmax``); ``tests/audit/test_solvers.py`` checks that they are identical.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression

__all__ = ["OneVsRestLogistic", "predict_classes"]


class OneVsRestLogistic(ClassifierMixin, BaseEstimator):
    """One binary ``estimator`` per class against the rest; two classes make one binary model (the second class
    positive), as ``OneVsRestClassifier`` does.

    Attributes (after ``fit``):
        classes_: the classes seen in ``y``, sorted.
        estimators_: the binary models, one per class (one for two classes).
        coef_: their coefficients stacked, shape (n_estimators, n_features).
        intercept_: their intercepts, shape (n_estimators,).
    """

    def __init__(self, estimator: LogisticRegression) -> None:
        self.estimator = estimator

    def fit(self, X: Any, y: np.ndarray) -> OneVsRestLogistic:
        """Fit one binary model per class of ``y`` (at least two classes)."""
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"one-vs-rest needs at least two classes in y, got {self.classes_.size}")
        positives = self.classes_[1:] if self.classes_.size == 2 else self.classes_
        self.estimators_ = [clone(self.estimator).fit(X, (y == positive).astype(int)) for positive in positives]
        self.coef_ = np.vstack([estimator.coef_ for estimator in self.estimators_])
        self.intercept_ = np.concatenate([estimator.intercept_ for estimator in self.estimators_])
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Each binary model's score per row, shape (n_rows, n_estimators)."""
        return _linear_scores(self, X)

    def predict(self, X: Any) -> np.ndarray:
        """The class whose model scores highest (ties to the first); for two classes, the second where its score > 0."""
        return predict_classes(self, X)


def predict_classes(model: Any, X: Any) -> np.ndarray:
    """``model.predict(X)``; for a fitted logistic regression (or :class:`OneVsRestLogistic`) read directly off its
    coefficients, without scikit-learn's input checks on every call: the same classes (one score column: the second
    class where it is > 0; several: the first highest)."""
    if not isinstance(model, LogisticRegression | OneVsRestLogistic):
        return np.asarray(model.predict(X))
    scores = _linear_scores(model, X)
    if scores.shape[1] == 1:
        return model.classes_[(scores[:, 0] > 0).astype(int)]
    return model.classes_[np.argmax(scores, axis=1)]


def _linear_scores(model: LogisticRegression | OneVsRestLogistic, X: Any) -> np.ndarray:
    """``X @ coef_.T + intercept_``, one column per row of ``coef_``."""
    return np.asarray(X @ model.coef_.T) + model.intercept_
