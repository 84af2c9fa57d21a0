"""Check a probe's components and features once, then fit without scikit-learn's per-call checks.

A probe's fold job fits its encoder once and then a grid of classifiers many times on rows of the same encoded
matrix (every ``C`` of every penalty, a refit and the predictions). scikit-learn checks every fit's parameters and
scans every input for NaN and infinity again, each time; on the small fits of an audit those checks cost a tenth of
the fitting time. Here they are done once, where the thing checked is made:

- :func:`check_parameters`: every estimator of the encoder and every classifier of the grid, before any job starts
  (scikit-learn's own parameter checks, with its own messages);
- :func:`check_finite`: each encoded matrix, as the encoder outputs it (a feature set that gives NaN or infinity is
  named in a :class:`~pfungst.errors.ConfigError`);

and the jobs run inside :func:`checked_once`, scikit-learn's documented ``config_context(assume_finite=True,
skip_parameter_validation=True)``. Neither setting changes a number: they only skip checks already done.

Example:
    >>> import numpy as np
    >>> check_finite(np.array([[1.0, np.nan]]), "readability")
    Traceback (most recent call last):
    ...
    pfungst.errors.ConfigError: feature set 'readability' gave 1 value(s) that are NaN or infinite (1 of 1 rows); ...
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.base import BaseEstimator

from pfungst.errors import ConfigError

__all__ = ["check_finite", "check_parameters", "checked_once"]


@contextmanager
def checked_once() -> Iterator[None]:
    """Fit and predict without scikit-learn's per-call parameter checks and NaN scans (done once beforehand)."""
    with config_context(assume_finite=True, skip_parameter_validation=True):
        yield


def check_parameters(estimators: Iterable[Any]) -> None:
    """Run scikit-learn's parameter checks on each estimator and every estimator nested in it (a pipeline's steps,
    a column transformer's transformers, a one-vs-rest classifier's estimator).

    Raises:
        sklearn.utils._param_validation.InvalidParameterError: a parameter scikit-learn would reject in ``fit``
            (a ``ValueError``, with scikit-learn's message).
    """
    for estimator in estimators:
        for part in _parts(estimator):
            # Estimators that declare constraints are the ones scikit-learn checks in ``fit``.
            if hasattr(part, "_parameter_constraints") and callable(getattr(part, "_validate_params", None)):
                part._validate_params()


def _parts(estimator: Any) -> Iterator[Any]:
    """``estimator`` and the estimators among its (deep) parameters."""
    yield estimator
    if isinstance(estimator, BaseEstimator):
        for value in estimator.get_params(deep=True).values():
            if isinstance(value, BaseEstimator):
                yield value
            elif isinstance(value, list | tuple):  # a pipeline's steps, a column transformer's triples
                yield from (entry[1] for entry in value if isinstance(entry, tuple) and len(entry) > 1)


def check_finite(X: Any, feature_set: str) -> None:
    """Raise unless every value of the encoded matrix ``X`` is a finite number.

    Raises:
        ConfigError: ``X`` holds NaN or infinity, naming ``feature_set`` and how many values and rows.
    """
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.dtype.kind not in "fc" or np.isfinite(values).all():
        return
    bad = ~np.isfinite(values)
    if sp.issparse(X):
        row_of = np.repeat(np.arange(X.shape[0]), np.diff(X.tocsr().indptr))
        rows = int(np.unique(row_of[~np.isfinite(X.tocsr().data)]).size)
    else:
        rows = int(bad.reshape(X.shape[0], -1).any(axis=1).sum())
    raise ConfigError(
        f"feature set '{feature_set}' gave {int(bad.sum())} value(s) that are NaN or infinite ({rows} of "
        f"{X.shape[0]} rows); a classifier needs finite numbers: fix the feature set's transformer or leave it out"
    )
