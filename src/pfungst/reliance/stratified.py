"""The solvable-versus-rest comparison within each gold class, so that a label preference is not read as reliance.

A probe's solvable items often differ from the rest in their gold labels (on causal_judgment the best probe
predicts "yes" for every item, so "solvable" means "gold is yes"), and models prefer some labels. The raw
difference of accuracies then measures the label preference. Within one gold class that cannot happen: the
difference is the Mantel-Haenszel weighted mean of the per-class differences, tested with the one-sided
Cochran-Mantel-Haenszel test (:func:`pfungst.stats.mantel_haenszel_difference`).
"""

from __future__ import annotations

from collections.abc import Sequence

from numpy.typing import ArrayLike

from pfungst.stats import Estimate, mantel_haenszel_difference

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
    return mantel_haenszel_difference(
        solvable,
        right,
        labels,
        level,
        what="difference of accuracies (solvable - rest) within gold classes",
        stratum="class",
    )
