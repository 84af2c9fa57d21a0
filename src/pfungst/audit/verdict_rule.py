"""The audit's verdict from its probes: the best feature set's statistic with a simultaneous interval (Bonferroni over
the sets tried), every set's upper bound for "no evidence", and the label against the threshold."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from pfungst.audit.audit_config import AuditConfig
from pfungst.audit.feature_sets import get_feature_set
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.audit.refit_check import repeat_averaged
from pfungst.audit.verdict import Evidence, ProbeBound, Verdict, verdict_label
from pfungst.audit.verdict_interval import IntervalWidening, probe_intervals
from pfungst.data.option_kind import OptionKind
from pfungst.errors import ConfigError
from pfungst.stats import ConfidenceInterval, Estimate, binomial_pvalue, bonferroni_level, bonferroni_pvalue

__all__ = ["verdict_of"]


def verdict_of(probes: Sequence[ProbeOutcome], config: AuditConfig, option_kind: OptionKind) -> Verdict:
    """The verdict over ``probes`` alone (their best, Bonferroni over them) of a benchmark of ``option_kind``
    (``shared_labels`` or ``per_item``): e.g. the position-blind probes only.

    Raises:
        ConfigError: ``probes`` is empty.
    """
    if not probes:
        raise ConfigError("a verdict needs at least one probe")
    return _verdict(list(probes), config, option_kind)


def _best_pvalue(
    source: Estimate, statistic: str, gold: np.ndarray, prediction: np.ndarray, n_classes: float
) -> tuple[float, str]:
    """The best probe's p-value and its method; a chance-corrected accuracy is tested against uniform guessing among
    the options (or labels), not against the label marginals (one-sided binomial test)."""
    if statistic != "chance_corrected_accuracy":
        return source.pvalue, source.method
    chance = 1 / n_classes
    pvalue = binomial_pvalue(int(np.sum(gold == prediction)), len(gold), chance, alternative="greater")
    return pvalue, f"accuracy corrected for uniform guessing (chance {chance:.3f}); one-sided binomial test"


def _verdict(probes: list[ProbeOutcome], config: AuditConfig, option_kind: OptionKind) -> Verdict:
    """Best probe by point estimate (ties: the one that sees the least input); its interval widened (Bonferroni)
    for having picked the best of several. Every probe gets its interval at that level: "no evidence" needs all their
    upper bounds below the threshold (the highest other one is recorded as ``highest_upper``).

    The point and the interval come from one statistic: the repeat-averaged score (the mean over the cross-fitting
    repeats of kappa, or of the chance-corrected accuracy), computed on all items for the point and on bootstrap
    resamples of the items for the percentile interval (the same resampled items in every repeat). Averaging over
    repeats removes the noise of one fold assignment, which is why it is the point; bootstrapping a single repeat
    instead (as before) measured another statistic, whose interval could exclude the point on degenerate data. The
    bootstrap holds the predictions fixed; the interval is widened by the spread across repeats (its ratio to the
    bootstrap variance pooled over all the probes), so that it covers the refit too
    (:func:`~pfungst.audit.verdict_interval.probe_intervals`).
    """
    statistic = option_kind.statistic
    best = max(probes, key=lambda p: (_value(getattr(p, statistic)), -_breadth(p.feature_set, config.fields)))
    arrays = [(p.gold[p.predicted], _repeats(p)[:, p.predicted], _effective_classes(p)) for p in probes]
    intervals = probe_intervals(
        arrays,
        statistic,
        n_resamples=config.n_bootstrap,
        seed=config.seed,
        level=bonferroni_level(config.level, len(probes)),
    )
    at = probes.index(best)
    gold, prediction, n_classes = arrays[at]
    pvalue, method = _best_pvalue(getattr(best, statistic), statistic, gold, prediction[0], n_classes)
    estimate = _estimate(best, arrays[at], intervals[at], statistic, len(probes), method=f"{method}; ")
    estimate = replace(estimate, pvalue=bonferroni_pvalue(pvalue, len(probes)))
    other = _highest_upper(intervals, at)
    highest = None
    if other is not None:
        bound = _estimate(probes[other], arrays[other], intervals[other], statistic, len(probes))
        highest = ProbeBound(probes[other].feature_set, bound)
    return Verdict(
        label=verdict_label(
            intervals[at][0],
            config.threshold,
            highest_upper=intervals[other][0].high if other is not None else math.nan,
        ),
        feature_set=best.feature_set,
        statistic=statistic,
        estimate=estimate,
        threshold=config.threshold,
        n_feature_sets=len(probes),
        note=config.protocol.verdict_note(statistic),
        evidence=Evidence.of(get_feature_set(best.feature_set), config.fields, option_kind),
        widening=intervals[at][1],
        highest_upper=highest,
    )


def _estimate(
    probe: ProbeOutcome,
    arrays: tuple[np.ndarray, np.ndarray, float],
    interval: tuple[ConfidenceInterval, IntervalWidening],
    statistic: str,
    n_probes: int,
    *,
    method: str = "",
) -> Estimate:
    """The probe's repeat-averaged statistic with its simultaneous interval (no p-value); ``method`` leads its
    method's description."""
    gold, prediction, n_classes = arrays
    ci, widening = interval
    source: Estimate = getattr(probe, statistic)
    return Estimate(
        value=repeat_averaged(gold, prediction, statistic, n_classes),
        method=f"{method}repeat-averaged statistic, {widening.description}; Bonferroni over {n_probes} feature sets",
        n=source.n,
        ci=ci,
        baseline=source.baseline,
    )


def _highest_upper(intervals: list[tuple[ConfidenceInterval, IntervalWidening]], best: int) -> int | None:
    """The index of the probe other than ``best`` with the highest finite upper bound, where it is above ``best``'s
    (a probe with no interval, no predicted items, says nothing either way); None otherwise."""
    finite = [i for i, (ci, _) in enumerate(intervals) if i != best and math.isfinite(ci.high)]
    top = max(finite, key=lambda i: intervals[i][0].high, default=None)
    own = intervals[best][0].high
    if top is None or intervals[top][0].high <= own:
        return None
    return top


def _repeats(outcome: ProbeOutcome) -> np.ndarray:
    """The probe's predictions, repeats x items."""
    return outcome.predictions if outcome.predictions is not None else outcome.prediction[np.newaxis, :]


def _effective_classes(outcome: ProbeOutcome) -> float:
    """K of the probe's chance-corrected accuracy: 1 / (mean over items of 1 / number of options)."""
    return 1.0 / float(outcome.settings["chance"])


def _breadth(name: str, fields: tuple[str, ...]) -> int:  # among ties, the set that sees the least input
    return ("options", "partial", "position", "full").index(get_feature_set(name).evidence_input(fields))


def _value(estimate: Estimate) -> float:
    return -math.inf if math.isnan(estimate.value) else estimate.value
