"""The solvable-versus-rest comparison within each gold class, so that a label preference is not read as reliance.

A probe's solvable items often differ from the rest in their gold labels (on causal_judgment the best probe
predicts "yes" for every item, so "solvable" means "gold is yes"), and models prefer some labels. The raw
difference of accuracies then measures the label preference. Within one gold class that cannot happen:

- the estimate is the Mantel-Haenszel weighted mean of the per-class differences ``p_solvable - p_rest`` (weights
  ``n_solvable * n_rest / n`` per class; classes with an empty side carry no weight), with a Wald interval from the
  per-class binomial variances;
- the test is the one-sided Cochran-Mantel-Haenszel test (normal approximation, no continuity correction) that
  the solvable items are more often right within classes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as scipy_stats

from pfungst.stats import ConfidenceInterval, Estimate

__all__ = ["within_label_difference"]


def within_label_difference(
    solvable: ArrayLike, right: ArrayLike, labels: Sequence[str], level: float = 0.95
) -> Estimate:
    """Accuracy on solvable minus on the other items, within gold classes (Mantel-Haenszel), with a CMH test.

    Args:
        solvable: Per item, whether the probe solves it.
        right: Per item, whether the model answered it right.
        labels: Per item, its gold class.
        level: Coverage of the interval.

    Returns:
        ``value`` the weighted difference, ``ci`` its Wald interval, ``pvalue`` the one-sided CMH p-value,
        ``n`` the items in classes with both sides, ``baseline`` 0. NaN without such a class.

    Example:
        >>> # within each label the model is right on solvable items only: a difference of 1
        >>> solvable = [True, False, True, False] * 10
        >>> labels = ["yes", "yes", "no", "no"] * 10
        >>> estimate = within_label_difference(solvable, solvable, labels)
        >>> estimate.value, estimate.pvalue < 1e-6
        (1.0, True)
    """
    solvable_, right_, labels_ = np.asarray(solvable, bool), np.asarray(right, bool), np.asarray(labels, dtype=object)
    weights, differences, variances = [], [], []
    observed = expected = variance = 0.0
    n_used = 0
    for label in dict.fromkeys(labels_.tolist()):
        mask = labels_ == label
        first, second = right_[mask & solvable_], right_[mask & ~solvable_]
        n1, n0 = first.size, second.size
        if n1 == 0 or n0 == 0:
            continue
        n, p1, p0 = n1 + n0, float(first.mean()), float(second.mean())
        n_used += n
        weights.append(n1 * n0 / n)
        differences.append(p1 - p0)
        variances.append(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)
        hits = float(first.sum() + second.sum())
        observed += float(first.sum())
        expected += n1 * hits / n
        variance += n1 * n0 * hits * (n - hits) / (n * n * (n - 1)) if n > 1 else 0.0
    method = (
        "difference of accuracies (solvable - rest) within gold classes: Mantel-Haenszel weights, Wald "
        "interval; one-sided Cochran-Mantel-Haenszel test"
    )
    if not weights:
        return Estimate(value=math.nan, method=method + " (no class has items on both sides)", n=0, baseline=0.0)
    w = np.asarray(weights)
    value = float(np.dot(w, differences) / w.sum())
    half = float(scipy_stats.norm.ppf(0.5 + level / 2)) * math.sqrt(float(np.dot(w * w, variances))) / w.sum()
    pvalue = float(scipy_stats.norm.sf((observed - expected) / math.sqrt(variance))) if variance > 0 else math.nan
    return Estimate(
        value=value,
        method=method,
        n=n_used,
        ci=ConfidenceInterval(max(-1.0, value - half), min(1.0, value + half), level),
        pvalue=pvalue,
        baseline=0.0,
    )
