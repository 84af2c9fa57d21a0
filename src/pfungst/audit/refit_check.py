"""The refit-aware interval behind "signal below threshold": label permutations with the probe refitted each time.

The verdict's bootstrap resamples items with the cross-fitted predictions held fixed, so it leaves out how much the
statistic moves when the probes are refitted on other labels (on benchmarks with no signal it is about 1.2-1.3
times too narrow); the verdict's interval adds the spread across cross-fitting repeats
(:mod:`~pfungst.audit.verdict_interval`), an estimate from two repeats. A claim that the statistic exceeds 0,
where not clear, is confirmed as well by ``n_refits`` copies of the benchmark with the gold answers
permuted (shared labels: permuted across items; per-item choices: each item's gold redrawn among its options),
each probed afresh with the best feature set (whole cross-fitting, classifier choice included). Under no signal
these copies are draws of the very statistic, so their spread is its null spread with every refit in it. The
interval is the point plus or minus a Student-t multiple of that spread (a prediction interval for one more draw,
``sd * sqrt(1 + 1 / n_refits)``, ``n_refits - 1`` degrees of freedom), at the verdict's simultaneous level
(Bonferroni over the feature sets, for having picked the best of them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
from scipy import stats as _scipy_stats

from pfungst.audit.audit_config import MAX_REFITS, check_refits
from pfungst.audit.feature_sets import FeatureSet
from pfungst.audit.inputs import ItemInputs, OptionTable
from pfungst.audit.probe import ProbeConfig, run_probes
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.audit.resampled_kappa import mean_kappa
from pfungst.data.benchmark import Benchmark
from pfungst.stats import ConfidenceInterval, Estimate, bonferroni_level, chance_corrected_accuracy

__all__ = ["MAX_REFITS", "check_refits", "null_copy", "outcome_statistic", "refit_check", "refit_interval"]

Inputs = Callable[[Benchmark], tuple[FeatureSet, ItemInputs | OptionTable]]
"""Builds the best feature set and its inputs from a (permuted) copy of the benchmark."""


def repeat_averaged(gold: np.ndarray, prediction: np.ndarray, statistic: str, n_classes: float) -> float:
    """The repeat-averaged kappa, or the chance-corrected accuracy over all repeats, on all items."""
    if not gold.size:
        return math.nan
    if statistic == "kappa":
        return mean_kappa(gold, prediction)
    return chance_corrected_accuracy(float(np.mean(gold == prediction)), n_classes)


def outcome_statistic(outcome: ProbeOutcome, statistic: str) -> float:
    """The verdict's statistic of one probe: :func:`repeat_averaged` on the items it predicted."""
    mask = outcome.predicted
    predictions = outcome.predictions if outcome.predictions is not None else outcome.prediction[np.newaxis, :]
    return repeat_averaged(outcome.gold[mask], predictions[:, mask], statistic, 1.0 / float(outcome.settings["chance"]))


def null_copy(benchmark: Benchmark, rng: np.random.Generator) -> Benchmark:
    """``benchmark`` with gold answers independent of the items: labels permuted, or each item's gold redrawn."""
    golds = benchmark.option_kind.null_golds(
        [item.gold for item in benchmark], [item.n_options for item in benchmark], rng
    )
    items = tuple(replace(item, gold=int(gold)) for item, gold in zip(benchmark, golds, strict=True))
    return replace(benchmark, items=items)


def refit_interval(value: float, null_values: Sequence[float], n_feature_sets: int, level: float) -> Estimate:
    """``value`` plus or minus the t-multiple of the refitted null spread, simultaneous over ``n_feature_sets``.

    The one-sided p-value tests "the statistic is 0 or less" (Bonferroni over the feature sets, at most 1); the
    lower bound exceeds 0 exactly when it is below ``(1 - level) / 2``. ``baseline`` is the mean of the refits.
    """
    draws = np.asarray([v for v in null_values if not math.isnan(v)], dtype=float)
    simultaneous = bonferroni_level(level, n_feature_sets)
    method = (
        f"refit-aware interval: {value:.3f} +/- t({draws.size - 1}) x sd of the statistic over {draws.size} "
        "label permutations, each with the best feature set refitted (prediction-interval scale); "
        f"Bonferroni over {n_feature_sets} feature sets"
    )
    if draws.size < 2 or math.isnan(value):
        return Estimate(math.nan, method, int(draws.size), ConfidenceInterval(math.nan, math.nan, simultaneous))
    scale = float(np.std(draws, ddof=1)) * math.sqrt(1 + 1 / draws.size)
    multiple = float(_scipy_stats.t.ppf(1 - (1 - simultaneous) / 2, draws.size - 1))
    if scale > 0:
        pvalue = min(1.0, n_feature_sets * float(_scipy_stats.t.sf(value / scale, draws.size - 1)))
    else:
        pvalue = 0.0 if value > 0 else 1.0
    ci = ConfidenceInterval(value - multiple * scale, value + multiple * scale, simultaneous)
    return Estimate(value, method, int(draws.size), ci, pvalue=pvalue, baseline=float(np.mean(draws)))


def refit_check(
    benchmark: Benchmark,
    inputs: Inputs,
    *,
    statistic: str,
    value: float,
    n_feature_sets: int,
    config: ProbeConfig,
    n_refits: int,
    groups: np.ndarray | None = None,
) -> Estimate:
    """Probe ``n_refits`` null copies of ``benchmark`` with the best feature set; :func:`refit_interval` of them.

    The copies are seeded by ``config.seed`` (and their index), and probed in one batch of fold jobs (parallel over
    ``config.n_jobs``), each with a single resample and permutation, since only their statistic is read. ``groups``
    (a group id per item) keeps siblings in one fold in every refit, as in the audit itself.
    """
    rng = np.random.default_rng([config.seed, 5407])
    requests = [inputs(null_copy(benchmark, rng)) for _ in range(n_refits)]
    light = replace(config, n_bootstrap=1, n_permutations=1)
    null_values = [outcome_statistic(outcome, statistic) for outcome in run_probes(requests, light, groups=groups)]
    return refit_interval(value, null_values, n_feature_sets, config.level)
