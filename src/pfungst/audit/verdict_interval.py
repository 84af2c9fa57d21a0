"""The verdict's interval with the refit in it: the fixed-prediction bootstrap widened by the spread across repeats.

The percentile bootstrap over items (:mod:`~pfungst.audit.resampled_kappa`) holds the cross-fitted predictions fixed:
it leaves out how much the statistic moves when the probes are fitted again. On label-randomised copies of real tasks
that spread is about 1.2-1.3 times the bootstrap's, so the bootstrap interval alone covers below its nominal rate.

The default protocol already refits: it repeats the cross-fitting (two repeats of 5-fold), each repeat with another
assignment of items to folds, hence other training sets for every model. The sample variance of the statistic
across those repeats, ``s2_between``, measures the refit's share that the bootstrap misses, at no extra fit. Each
half-width of the bootstrap interval is added in quadrature to ``z * s_between``, with ``z`` the normal quantile of
the interval's (simultaneous) level::

    low  = point - sqrt((point - bootstrap_low)**2 + (z * s_between)**2)
    high = point + sqrt((bootstrap_high - point)**2 + (z * s_between)**2)   (at most 1, the statistic's maximum)

The whole ``s2_between`` is added, not ``s2_between / n_repeats`` (the share of fold-assignment noise left in the
mean of the repeats): every repeat is trained on the same labels, so the spread over refits on other labels exceeds
the spread over repeats, and the extra share cannot be seen from the repeats. On null copies the whole variance
brings the interval to its nominal coverage (``benchmarks/null_calibration.py``). With one repeat (past 10,000
items, or the pacchiardi2024 protocol) there is nothing to add: the bootstrap interval stands, and the method says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as _scipy_stats

from pfungst.audit.refit_check import repeat_averaged
from pfungst.audit.resampled_kappa import bootstrap_draws_kappa, interval_from_draws
from pfungst.schema import Fields, read_dataclass
from pfungst.serialization import to_jsonable
from pfungst.stats import ConfidenceInterval, chance_corrected_accuracy

__all__ = ["BETWEEN_REPEATS", "BOOTSTRAP_ONLY", "IntervalWidening", "verdict_interval"]

BETWEEN_REPEATS = "bootstrap widened by the between-repeat variance"
"""Method name of the interval when the cross-fitting has two or more repeats."""
BOOTSTRAP_ONLY = "bootstrap only (one repeat: no between-repeat variance)"
"""Method name of the interval with one repeat: the fixed-prediction bootstrap alone."""


@dataclass(frozen=True)
class IntervalWidening:
    """How the verdict's interval takes the refit into account: the fixed-prediction bootstrap interval, the spread
    across cross-fitting repeats added to it, and the method's name."""

    method: str
    """:data:`BETWEEN_REPEATS`, or :data:`BOOTSTRAP_ONLY` where there is one repeat."""
    bootstrap_low: float
    """Lower bound of the percentile bootstrap interval with the predictions held fixed (the interval before)."""
    bootstrap_high: float
    """Its upper bound."""
    bootstrap_sd: float
    """Standard deviation of the bootstrap draws."""
    between_repeat_sd: float
    """Sample standard deviation of the statistic across the cross-fitting repeats (0 with one repeat)."""
    n_repeats: int
    """Repeats of the cross-fitting behind the statistic."""

    @property
    def factor(self) -> float:
        """About how many times wider than the bootstrap's the interval is: ``sqrt(1 + (between / bootstrap)**2)``
        (NaN where the bootstrap draws do not vary)."""
        if not self.bootstrap_sd > 0:
            return math.nan
        return math.sqrt(1 + (self.between_repeat_sd / self.bootstrap_sd) ** 2)

    @property
    def description(self) -> str:
        """The method in words, with its figures: appended to the verdict estimate's ``method``."""
        if self.n_repeats < 2:
            return f"percentile bootstrap over items, {BOOTSTRAP_ONLY}"
        return (
            f"percentile bootstrap over items with the predictions held fixed, {BETWEEN_REPEATS} of the cross-fitting "
            f"(sd {self.between_repeat_sd:.3g} over {self.n_repeats} repeats, bootstrap sd {self.bootstrap_sd:.3g}; "
            "each half-width added in quadrature to z x the between-repeat sd)"
        )

    @classmethod
    def from_fields(cls, fields: Fields) -> IntervalWidening:
        """Read :meth:`to_dict` back.

        Raises:
            ReaderError: a value of the wrong type, or a missing key.
        """
        return read_dataclass(cls, fields)

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "bootstrap_low": to_jsonable(self.bootstrap_low),
            "bootstrap_high": to_jsonable(self.bootstrap_high),
            "bootstrap_sd": to_jsonable(self.bootstrap_sd),
            "between_repeat_sd": to_jsonable(self.between_repeat_sd),
            "n_repeats": self.n_repeats,
        }


def verdict_interval(
    gold: np.ndarray,
    prediction: np.ndarray,
    statistic: str,
    n_classes: float,
    *,
    n_resamples: int,
    seed: int,
    level: float,
) -> tuple[ConfidenceInterval, IntervalWidening]:
    """The verdict's interval at ``level`` for the repeat-averaged ``statistic`` of ``prediction`` (repeats x items)
    against ``gold``: the percentile bootstrap over items, widened by the between-repeat spread (module docstring).

    Example:
        >>> gold = np.array([0, 1] * 50)
        >>> repeats = np.stack([gold, np.where(np.arange(100) < 20, 1 - gold, gold)])
        >>> ci, widening = verdict_interval(gold, repeats, "kappa", 2.0, n_resamples=200, seed=0, level=0.95)
        >>> widening.method == BETWEEN_REPEATS and ci.low < widening.bootstrap_low
        True
    """
    prediction = np.atleast_2d(prediction)
    n_repeats = prediction.shape[0]
    if not gold.size:
        nan = ConfidenceInterval(math.nan, math.nan, level)
        return nan, IntervalWidening(BOOTSTRAP_ONLY, math.nan, math.nan, math.nan, math.nan, n_repeats)
    draws = _bootstrap_draws(gold, prediction, statistic, n_classes, n_resamples, seed)
    bootstrap = interval_from_draws(draws, level)
    finite = draws[~np.isnan(draws)]
    bootstrap_sd = float(np.std(finite, ddof=1)) if finite.size > 1 else math.nan
    per_repeat = [_statistic(gold, row, statistic, n_classes) for row in prediction]
    between = float(np.std(per_repeat, ddof=1)) if n_repeats > 1 else 0.0
    widening = IntervalWidening(
        BETWEEN_REPEATS if n_repeats > 1 else BOOTSTRAP_ONLY,
        bootstrap.low,
        bootstrap.high,
        bootstrap_sd,
        between,
        n_repeats,
    )
    if n_repeats < 2 or math.isnan(bootstrap.low):
        return bootstrap, widening
    point = float(np.mean(per_repeat))  # the repeat-averaged statistic (both are means over the repeats)
    spread = float(_scipy_stats.norm.ppf((1 + level) / 2)) * between
    low = point - math.hypot(max(point - bootstrap.low, 0.0), spread)
    high = min(1.0, point + math.hypot(max(bootstrap.high - point, 0.0), spread))
    return ConfidenceInterval(low, high, level), widening


def _bootstrap_draws(
    gold: np.ndarray, prediction: np.ndarray, statistic: str, n_classes: float, n_resamples: int, seed: int
) -> np.ndarray:
    """Bootstrap draws of the repeat-averaged statistic, predictions held fixed (vectorised over resamples)."""
    accuracy, kappa = bootstrap_draws_kappa(gold, prediction, n_resamples=n_resamples, seed=[seed, 7])
    if statistic == "kappa":
        return kappa
    return np.array([chance_corrected_accuracy(float(value), n_classes) for value in accuracy])


def _statistic(gold: np.ndarray, row: np.ndarray, statistic: str, n_classes: float) -> float:
    """The statistic of one repeat's predictions: Cohen's kappa, or the chance-corrected accuracy."""
    return repeat_averaged(gold, row[np.newaxis, :], statistic, n_classes)
