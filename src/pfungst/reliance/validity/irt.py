"""Item difficulty and discrimination: a two-parameter logistic IRT model (girth) and the item-rest correlation.

The models are the test takers: ``P(model m right on item i) = 1 / (1 + exp(-a_i (theta_m - b_i)))``. girth
estimates ``b`` (difficulty) and ``a`` (discrimination) by joint maximum likelihood (``girth.twopl_jml``, the
default: seconds for thousands of items) or marginal maximum likelihood with a standard-normal ability prior
(``girth.twopl_mml``, ``method="mml"``: the textbook estimator, but minutes per few hundred items on two cores).
It is fitted on the items with outcomes from every model, leaving out the items every model got right or wrong
(their difficulty is beyond the scale; NaN). girth bounds ``a`` below (0.25 for JML, 0.2 for MML), so an item
that stronger models miss more shows as ``a`` at its floor; the classical item-rest correlation (each model's
correctness on the item against its accuracy on the other items, Pearson) keeps the sign, and a negative one is the
textbook mark of a wrong key. With a dozen models every estimate is rough: read them as a ranking aid, not as
measurements.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from pfungst.errors import ConfigError
from pfungst.reliance.validity_config import IrtMethod

__all__ = ["IrtMethod", "ItemParameters", "item_parameters", "item_rest_correlation", "item_rest_pvalues"]

MIN_MODELS = 3
"""Fewer models than this fit no IRT model (and give no correlation)."""


@dataclass(frozen=True)
class ItemParameters:
    """Per-item difficulty and discrimination of one dataset."""

    difficulty: np.ndarray
    """2PL ``b`` per item; NaN where not fitted."""
    discrimination: np.ndarray
    """2PL ``a`` per item; NaN where not fitted."""
    item_rest: np.ndarray
    """Item-rest correlation per item; NaN where undefined (no spread)."""
    item_rest_pvalue: np.ndarray
    """One-sided p-value that the item-rest correlation is positive (t test, models - 2 degrees of freedom)."""
    note: str
    """How the model was fitted, or why not."""


def item_rest_correlation(correct: np.ndarray) -> np.ndarray:
    """Per item, the Pearson correlation over models between correctness on it and accuracy on the other items.

    Args:
        correct: ``[item, model]`` 1.0 / 0.0, NaN for no outcome (left out of both sides).

    Example: the last item is answered right only by the two models that do worst on the others.

        >>> table = np.array([[1, 1, 1, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 1, 0], [0, 0, 0, 1, 1]], dtype=float)
        >>> [round(float(r), 2) for r in item_rest_correlation(table)]
        [0.17, 0.41, 0.41, -0.91]
    """
    known = ~np.isnan(correct)
    values = np.where(known, correct, 0.0)
    totals, counts = values.sum(axis=0), known.sum(axis=0)
    result = np.full(correct.shape[0], np.nan)
    for i in range(correct.shape[0]):
        rest_counts = counts - known[i]
        use = known[i] & (rest_counts > 0)
        if use.sum() < MIN_MODELS:
            continue
        rest = (totals - values[i])[use] / rest_counts[use]
        own = values[i][use]
        if own.std() == 0 or rest.std() == 0:
            continue
        result[i] = float(np.corrcoef(own, rest)[0, 1])
    return result


def item_rest_pvalues(item_rest: np.ndarray, n_models: np.ndarray) -> np.ndarray:
    """One-sided p-values that each correlation is above 0 (Student t with ``n - 2`` degrees of freedom).

    Example:
        >>> [round(float(p), 3) for p in item_rest_pvalues(np.array([0.65, 0.0]), np.array([12, 12]))]
        [0.011, 0.5]
    """
    from scipy import stats

    n = n_models.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = item_rest * np.sqrt((n - 2) / (1 - item_rest**2))
    return np.where(np.isnan(item_rest) | (n < MIN_MODELS), np.nan, stats.t.sf(t, np.maximum(n - 2, 1)))


def item_parameters(correct: np.ndarray, method: IrtMethod | None = "jml") -> ItemParameters:
    """Fit the 2PL model and the item-rest correlations (module docstring).

    Args:
        correct: ``[item, model]`` 1.0 / 0.0, NaN for no outcome.
        method: ``jml`` (girth ``twopl_jml``), ``mml`` (girth ``twopl_mml``), or None: no IRT fit (NaN), the
            item-rest correlations only.

    Raises:
        ConfigError: girth is not installed (``pip install 'pfungst[validity]'``).
    """
    n_items, n_models = correct.shape
    difficulty, discrimination = np.full(n_items, np.nan), np.full(n_items, np.nan)
    item_rest = item_rest_correlation(correct)
    rest_p = item_rest_pvalues(item_rest, (~np.isnan(correct)).sum(axis=1))
    if method is None:
        return ItemParameters(difficulty, discrimination, item_rest, rest_p, "not asked (irt=False)")
    if n_models < MIN_MODELS:
        return ItemParameters(difficulty, discrimination, item_rest, rest_p, f"not fitted: {n_models} model(s), need 3")
    complete = ~np.isnan(correct).any(axis=1)
    mixed = complete & (np.nanmin(correct, axis=1) != np.nanmax(correct, axis=1))
    if mixed.sum() < 2:
        note = "not fitted: fewer than 2 items that some models got right and others wrong"
        return ItemParameters(difficulty, discrimination, item_rest, rest_p, note)
    try:
        from girth import twopl_jml, twopl_mml
    except ImportError as exc:
        raise ConfigError("The IRT screen needs girth: pip install 'pfungst[validity]'") from exc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log(0) on perfect response patterns, handled by girth
        fitted = (twopl_mml if method == "mml" else twopl_jml)(correct[mixed].astype(int))
    difficulty[mixed] = np.asarray(fitted["Difficulty"], dtype=float)
    discrimination[mixed] = np.asarray(fitted["Discrimination"], dtype=float)
    left_out = int(complete.sum() - mixed.sum())
    likelihood = "marginal" if method == "mml" else "joint"
    note = (
        f"girth twopl_{method} (2PL, {likelihood} maximum likelihood) on {int(mixed.sum())} items x {n_models} "
        "models; "
        f"{left_out} items all right or all wrong and {int((~complete).sum())} without every model's outcome "
        "left out (NaN)"
    )
    return ItemParameters(difficulty, discrimination, item_rest, rest_p, note)
