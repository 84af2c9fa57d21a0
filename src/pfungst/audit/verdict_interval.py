"""The verdict's interval with the refit in it: the fixed-prediction bootstrap widened by the refit spread.

The percentile bootstrap over items (:mod:`~pfungst.audit.resampled_kappa`) holds the cross-fitted predictions fixed:
it leaves out how much the statistic moves when the probes are fitted again. The default protocol already refits: it
repeats the cross-fitting (two repeats of 5-fold), each repeat with another assignment of items to folds, hence other
training sets for every model. The sample variance of a probe's statistic across those repeats, ``s2_between``,
measures the refit's share that the bootstrap misses, at no extra fit.

One probe's two repeats give that variance with one degree of freedom: half the time it is below 45% of its
expectation, and the widening it gave the winning probe alone was then too small (on 200 label-randomised copies of
ten real tasks, the interval excluded 0 in 4.0% of audits, above the nominal 2.5%). The refit's share is a property of
the cross-fitting more than of one feature set, so it is pooled over every probe of the audit: the ratio
``s2_between / bootstrap variance`` of each probe, averaged over the probes (:func:`refit_ratio`, with as many degrees
of freedom as probes times repeats less one), times the winning probe's bootstrap variance, gives the refit variance
``s2_refit`` added to the winner's interval. Each half-width of the bootstrap interval is added in quadrature to
``z * s_refit``, with ``z`` the normal quantile of the interval's (simultaneous) level::

    low  = point - sqrt((point - bootstrap_low)**2 + (z * s_refit)**2)
    high = point + sqrt((bootstrap_high - point)**2 + (z * s_refit)**2)   (at most 1, the statistic's maximum)

The whole variance is added, not its share left in the mean of the repeats (``/ n_repeats``): every repeat is trained
on the same labels, so the spread over refits on other labels exceeds the spread over repeats, and the extra share
cannot be seen from the repeats. ``benchmarks/null_calibration.py`` measures the coverage on null copies. With one
repeat (past 10,000 items, or the pacchiardi2024 protocol) there is nothing to add: the bootstrap interval stands,
and the method says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as _scipy_stats

from pfungst.audit.refit_check import repeat_averaged
from pfungst.audit.resampled_kappa import bootstrap_draws_kappa, interval_from_draws
from pfungst.schema import Fields, read_dataclass
from pfungst.serialization import to_jsonable
from pfungst.stats import ConfidenceInterval, chance_corrected_accuracy

__all__ = [
    "BETWEEN_REPEATS",
    "BOOTSTRAP_ONLY",
    "IntervalWidening",
    "probe_intervals",
    "refit_ratio",
    "verdict_interval",
]

BETWEEN_REPEATS = "bootstrap widened by the between-repeat variance pooled over the probes"
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
    refit_sd: float = 0.0
    """The refit spread added to the interval: ``sqrt(pooled ratio) * bootstrap_sd`` (0 with one repeat)."""
    n_pooled: int = 1
    """Probes whose between-repeat to bootstrap variance ratio was pooled into :attr:`refit_sd`."""

    @property
    def factor(self) -> float:
        """About how many times wider than the bootstrap's the interval is: ``sqrt(1 + (refit / bootstrap)**2)``
        (NaN where the bootstrap draws do not vary)."""
        if not self.bootstrap_sd > 0:
            return math.nan
        return math.sqrt(1 + (self.refit_sd / self.bootstrap_sd) ** 2)

    @property
    def description(self) -> str:
        """The method in words, with its figures: appended to the verdict estimate's ``method``."""
        if self.n_repeats < 2:
            return f"percentile bootstrap over items, {BOOTSTRAP_ONLY}"
        return (
            f"percentile bootstrap over items with the predictions held fixed, {BETWEEN_REPEATS} of the cross-fitting "
            f"(refit sd {self.refit_sd:.3g}: the between-repeat to bootstrap variance ratio over {self.n_pooled} "
            f"probes and {self.n_repeats} repeats, times the bootstrap sd {self.bootstrap_sd:.3g}; this probe's own "
            f"between-repeat sd {self.between_repeat_sd:.3g}; each half-width added in quadrature to z x the refit sd)"
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
            "refit_sd": to_jsonable(self.refit_sd),
            "n_pooled": self.n_pooled,
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
    pooled: tuple[float, int] | None = None,
) -> tuple[ConfidenceInterval, IntervalWidening]:
    """The verdict's interval at ``level`` for the repeat-averaged ``statistic`` of ``prediction`` (repeats x items)
    against ``gold``: the percentile bootstrap over items, widened by the refit spread (module docstring).

    ``pooled`` is the between-repeat to bootstrap variance ratio pooled over the audit's probes and how many were
    pooled (:func:`refit_ratio`); None: this probe's own ratio.

    Example:
        >>> gold = np.array([0, 1] * 50)
        >>> repeats = np.stack([gold, np.where(np.arange(100) < 20, 1 - gold, gold)])
        >>> ci, widening = verdict_interval(gold, repeats, "kappa", 2.0, n_resamples=200, seed=0, level=0.95)
        >>> widening.method == BETWEEN_REPEATS and ci.low < widening.bootstrap_low
        True
    """
    prediction = np.atleast_2d(prediction)
    draws = _bootstrap_draws(gold, prediction, statistic, n_classes, n_resamples, seed) if gold.size else None
    return _interval(gold, prediction, statistic, n_classes, draws, level, pooled)


def probe_intervals(
    probes: Sequence[tuple[np.ndarray, np.ndarray, float]], statistic: str, *, n_resamples: int, seed: int, level: float
) -> list[tuple[ConfidenceInterval, IntervalWidening]]:
    """Every probe's interval at ``level`` (``(gold, prediction, n_classes)`` each, prediction as repeats x items),
    each widened by the ratio pooled over all of them (:func:`refit_ratio`): what :func:`verdict_interval` gives
    each probe with ``pooled=refit_ratio(probes, ...)``, with each probe's bootstrap drawn once, not twice.

    Example:
        >>> gold = np.array([0, 1] * 50)
        >>> flip = lambda share: np.where(np.arange(100) < share, 1 - gold, gold)
        >>> probes = [(gold, np.stack([flip(20), flip(30)]), 2.0), (gold, np.stack([flip(40), flip(45)]), 2.0)]
        >>> [ci.high > ci.low for ci, _ in probe_intervals(probes, "kappa", n_resamples=200, seed=0, level=0.95)]
        [True, True]
    """
    arrays = [(gold, np.atleast_2d(prediction), n_classes) for gold, prediction, n_classes in probes]
    draws = [
        _bootstrap_draws(gold, prediction, statistic, n_classes, n_resamples, seed) if gold.size else None
        for gold, prediction, n_classes in arrays
    ]
    pooled = _pooled(arrays, draws, statistic)
    return [
        _interval(gold, prediction, statistic, n_classes, probe_draws, level, pooled)
        for (gold, prediction, n_classes), probe_draws in zip(arrays, draws, strict=True)
    ]


def _interval(
    gold: np.ndarray,
    prediction: np.ndarray,
    statistic: str,
    n_classes: float,
    draws: np.ndarray | None,
    level: float,
    pooled: tuple[float, int] | None,
) -> tuple[ConfidenceInterval, IntervalWidening]:
    """:func:`verdict_interval` from the probe's bootstrap draws (None: no items)."""
    n_repeats = prediction.shape[0]
    if draws is None:
        nan = ConfidenceInterval(math.nan, math.nan, level)
        return nan, IntervalWidening(BOOTSTRAP_ONLY, math.nan, math.nan, math.nan, math.nan, n_repeats)
    bootstrap = interval_from_draws(draws, level)
    bootstrap_sd, between = _spreads(draws, gold, prediction, statistic, n_classes)
    ratio, n_pooled = pooled if pooled is not None else (_ratio(bootstrap_sd, between), 1)
    refit_sd = math.sqrt(ratio) * bootstrap_sd if n_repeats > 1 and ratio >= 0 else 0.0
    widening = IntervalWidening(
        BETWEEN_REPEATS if n_repeats > 1 else BOOTSTRAP_ONLY,
        bootstrap.low,
        bootstrap.high,
        bootstrap_sd,
        between,
        n_repeats,
        refit_sd if n_repeats > 1 else 0.0,
        n_pooled if n_repeats > 1 else 0,
    )
    if n_repeats < 2 or math.isnan(bootstrap.low) or math.isnan(widening.refit_sd):
        return bootstrap, widening
    point = repeat_averaged(gold, prediction, statistic, n_classes)
    spread = float(_scipy_stats.norm.ppf((1 + level) / 2)) * widening.refit_sd
    low = point - math.hypot(max(point - bootstrap.low, 0.0), spread)
    high = min(1.0, point + math.hypot(max(bootstrap.high - point, 0.0), spread))
    return ConfidenceInterval(low, high, level), widening


def refit_ratio(
    probes: Sequence[tuple[np.ndarray, np.ndarray, float]], statistic: str, *, n_resamples: int, seed: int
) -> tuple[float, int]:
    """The between-repeat to bootstrap variance ratio averaged over ``probes`` (``(gold, prediction, n_classes)``
    each, prediction as repeats x items), and how many probes it averages: those with two or more repeats and
    bootstrap draws that vary. ``(nan, 0)`` where there are none.

    Example:
        >>> gold = np.array([0, 1] * 50)
        >>> flip = lambda share: np.where(np.arange(100) < share, 1 - gold, gold)
        >>> ratio, n = refit_ratio([(gold, np.stack([flip(20), flip(30)]), 2.0)] * 2, "kappa", n_resamples=200, seed=0)
        >>> n, ratio > 0
        (2, True)
    """
    arrays = [(gold, np.atleast_2d(prediction), n_classes) for gold, prediction, n_classes in probes]
    draws = [
        _bootstrap_draws(gold, prediction, statistic, n_classes, n_resamples, seed)
        if prediction.shape[0] > 1 and gold.size
        else None
        for gold, prediction, n_classes in arrays
    ]
    return _pooled(arrays, draws, statistic)


def _pooled(
    probes: Sequence[tuple[np.ndarray, np.ndarray, float]], draws: Sequence[np.ndarray | None], statistic: str
) -> tuple[float, int]:
    """:func:`refit_ratio` from each probe's bootstrap draws (None: no items)."""
    ratios = []
    for (gold, prediction, n_classes), probe_draws in zip(probes, draws, strict=True):
        if prediction.shape[0] < 2 or probe_draws is None:
            continue
        ratio = _ratio(*_spreads(probe_draws, gold, prediction, statistic, n_classes))
        if not math.isnan(ratio):
            ratios.append(ratio)
    return (float(np.mean(ratios)), len(ratios)) if ratios else (math.nan, 0)


def _spreads(
    draws: np.ndarray, gold: np.ndarray, prediction: np.ndarray, statistic: str, n_classes: float
) -> tuple[float, float]:
    """The bootstrap draws' sd and the sample sd of the statistic across repeats (0 with one repeat)."""
    finite = draws[~np.isnan(draws)]
    bootstrap_sd = float(np.std(finite, ddof=1)) if finite.size > 1 else math.nan
    per_repeat = [_statistic(gold, row, statistic, n_classes) for row in prediction]
    between = float(np.std(per_repeat, ddof=1)) if len(per_repeat) > 1 else 0.0
    return bootstrap_sd, between


def _ratio(bootstrap_sd: float, between: float) -> float:
    """``(between / bootstrap_sd)**2``: 0 where neither varies, NaN where the bootstrap draws do not vary (or are
    NaN) but the repeats do."""
    if bootstrap_sd > 0:
        return (between / bootstrap_sd) ** 2
    return 0.0 if bootstrap_sd == 0 and between == 0 else math.nan


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
