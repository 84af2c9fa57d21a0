"""Leaderboard rank stability: do the models keep their places when the benchmark's surface changes?

Alzahrani et al. (ACL 2024, "When Benchmarks are Targets: Revealing the Sensitivity of Large Language Model
Leaderboards") show that small changes to MMLU's presentation (option order, answer labels, scoring) move models
by several leaderboard places. :func:`rank_stability` takes per-item correctness of several models under several
variants and reports each model's rank per variant with a bootstrap interval, the rank agreement between every
two variants (Kendall's tau), the concordance over all variants (Kendall's W), the largest move of any model, and
paired accuracy differences (with McNemar's test) for every model pair on every variant.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
from scipy import stats as _scipy_stats

from pfungst.errors import ConfigError, check_resamples
from pfungst.provenance import Provenance
from pfungst.stats import ConfidenceInterval, Estimate, bootstrap_draws, kendall_tau, kendall_w, wilson_interval
from pfungst.stats.hypothesis_tests import paired_bootstrap_difference
from pfungst.stats.intervals import percentile_bounds
from pfungst.stress.rank_result import ModelRank, PairwiseComparison, RankShift, RankStability, VariantAgreement

__all__ = ["ModelRank", "PairwiseComparison", "RankShift", "RankStability", "VariantAgreement", "rank_stability"]

Correctness = Mapping[str, Mapping[str, Mapping[str, bool]]]


def rank_stability(
    correctness: Correctness, *, seed: int, n_bootstrap: int = 1000, level: float = 0.95
) -> RankStability:
    """Rank models per variant and measure how stable the leaderboard is across variants.

    Args:
        correctness: model -> variant -> item id -> whether the model answered the item correctly. Every model
            needs the same variants and, per variant, the same item ids.
        seed: Seed of every bootstrap; the same seed gives the same intervals.
        n_bootstrap: Resamples per bootstrap interval (1000 by default).
        level: Coverage of every interval (0.95 by default).

    Returns:
        Ranks with intervals, tau per pair of variants, W over variants, the largest shift, pairwise differences.

    Raises:
        ConfigError: fewer than 2 models; models with different variants or items; a variant without items; a
            value that is not a boolean; ``n_bootstrap`` below 1 or ``level`` outside (0, 1).

    Example:
        >>> plain = {"a": {"q1": True, "q2": True}, "b": {"q1": True, "q2": False}, "c": {"q1": False, "q2": False}}
        >>> shuffled = {"a": {"q1": False, "q2": False}, "b": {"q1": True, "q2": False}, "c": {"q1": True, "q2": True}}
        >>> result = rank_stability({model: {"plain": plain[model], "shuffled": shuffled[model]}
        ...                          for model in ("a", "b", "c")}, seed=0, n_bootstrap=200)
        >>> result.taus[0].tau.value, result.concordance.value, result.largest_shift.shift
        (-1.0, 0.0, 2.0)
    """
    if n_bootstrap < 1:
        raise ConfigError(f"n_bootstrap must be at least 1, found {n_bootstrap}. Use e.g. 1000.")
    check_resamples(n_bootstrap=n_bootstrap)
    if not 0 < level < 1:
        raise ConfigError(f"level must be in (0, 1), found {level}. Use e.g. 0.95.")
    models, variants = _check_models_and_variants(correctness)
    matrices = {variant: _correctness_matrix(correctness, models, variant) for variant in variants}
    ranks: list[ModelRank] = []
    pairwise: list[PairwiseComparison] = []
    for index, variant in enumerate(variants):
        ranks += _rank_models(
            models, variant, matrices[variant], seed=[seed, index, 0], n_bootstrap=n_bootstrap, level=level
        )
        pairwise += _compare_pairs(
            models, variant, matrices[variant], seed=[seed, index], n_bootstrap=n_bootstrap, level=level
        )
    table = np.array(
        [[entry.rank for entry in ranks[i * len(models) : (i + 1) * len(models)]] for i in range(len(variants))]
    )
    taus = tuple(
        VariantAgreement(variants[a], variants[b], kendall_tau(table[a], table[b]))
        for a, b in itertools.combinations(range(len(variants)), 2)
    )
    return RankStability(
        models=tuple(models),
        variants=tuple(variants),
        ranks=tuple(ranks),
        taus=taus,
        concordance=_concordance(table),
        largest_shift=_largest_shift(models, variants, table),
        pairwise=tuple(pairwise),
        n_bootstrap=n_bootstrap,
        level=level,
        provenance=Provenance.current({"seed": seed, "n_bootstrap": n_bootstrap, "level": level}, seed),
    )


def _check_models_and_variants(correctness: Correctness) -> tuple[list[str], list[str]]:
    """The models (input order) and variants (first model's order); every model must have the same variants."""
    models = list(correctness)
    if len(models) < 2:
        raise ConfigError(
            f"rank stability compares at least 2 models, found {len(models)} ({models}). Score "
            "another model on the same items."
        )
    reference = models[0]
    variants = list(correctness[reference])
    if not variants:
        raise ConfigError(f"model {reference!r} has no variants. Pass variant -> item id -> correct per model.")
    for model in models[1:]:
        found = set(correctness[model])
        missing = [variant for variant in variants if variant not in found]
        extra = sorted(found - set(variants))
        if missing or extra:
            raise ConfigError(
                f"model {model!r} lacks variants {missing} and has extra variants {extra} compared "
                f"with model {reference!r}. Score every model on the same variants."
            )
    return models, variants


def _correctness_matrix(correctness: Correctness, models: list[str], variant: str) -> np.ndarray:
    """A (models x items) boolean matrix for one variant, items sorted by id; every model must have the same ids."""
    reference = models[0]
    items = sorted(correctness[reference][variant])
    if not items:
        raise ConfigError(
            f"variant {variant!r} has no items for model {reference!r}. Score some items, or drop the variant."
        )
    expected = set(items)
    for model in models[1:]:
        found = set(correctness[model][variant])
        missing, extra = sorted(expected - found), sorted(found - expected)
        if missing or extra:
            example = f" (e.g. {(missing or extra)[0]!r})"
            raise ConfigError(
                f"model {model!r}, variant {variant!r}: {len(missing)} items missing and "
                f"{len(extra)} extra compared with model {reference!r}{example}. Score every model "
                "on the same items, or keep only the items all models share."
            )
    return np.array(
        [[_as_bool(correctness[model][variant][item], model, variant, item) for item in items] for model in models],
        dtype=bool,
    )


def _as_bool(value: object, model: str, variant: str, item: str) -> bool:
    if isinstance(value, bool | np.bool_) or (isinstance(value, int | np.integer) and value in (0, 1)):
        return bool(value)
    raise ConfigError(
        f"model {model!r}, variant {variant!r}, item {item!r}: correctness must be a boolean, found "
        f"{value!r}. Pass whether the item was answered correctly."
    )


def _rank_models(
    models: list[str], variant: str, matrix: np.ndarray, *, seed: list[int], n_bootstrap: int, level: float
) -> list[ModelRank]:
    """Accuracy, place and bootstrap place interval of every model on one variant."""
    n_items = matrix.shape[1]
    correct = matrix.sum(axis=1)
    ranks = _scipy_stats.rankdata(-correct, method="average")
    draws = _rank_draws(matrix, n_bootstrap=n_bootstrap, seed=seed)
    low, high = percentile_bounds(draws, level)
    return [
        ModelRank(
            model=model,
            variant=variant,
            accuracy=Estimate(
                value=float(correct[k] / n_items),
                method="wilson",
                n=n_items,
                ci=wilson_interval(int(correct[k]), n_items, level),
            ),
            rank=float(ranks[k]),
            rank_ci=ConfidenceInterval(float(low[k]), float(high[k]), level),
        )
        for k, model in enumerate(models)
    ]


def _rank_draws(matrix: np.ndarray, *, n_bootstrap: int, seed: list[int]) -> np.ndarray:
    """Places of all models on ``n_bootstrap`` resamples of the items (one row per resample).

    Items are drawn once per resample for all models together, as :func:`pfungst.stats.bootstrap_interval` draws
    them, so that the places in a row come from the same items.
    """
    accuracies = bootstrap_draws(
        lambda index: matrix[:, index].mean(axis=1), matrix.shape[1], n_resamples=n_bootstrap, seed=seed
    )
    return np.asarray(_scipy_stats.rankdata(-accuracies, method="average", axis=1), dtype=float)


def _compare_pairs(
    models: list[str], variant: str, matrix: np.ndarray, *, seed: list[int], n_bootstrap: int, level: float
) -> list[PairwiseComparison]:
    """A paired accuracy difference with McNemar's p for every pair of models on one variant."""
    return [
        PairwiseComparison(
            first=models[i],
            second=models[j],
            variant=variant,
            difference=paired_bootstrap_difference(
                matrix[i], matrix[j], seed=[*seed, 1 + number], n_resamples=n_bootstrap, level=level
            ),
        )
        for number, (i, j) in enumerate(itertools.combinations(range(len(models)), 2))
    ]


def _concordance(table: np.ndarray) -> Estimate:
    """Kendall's W with the variants (rows of ``table``) as raters of the models (columns)."""
    if table.shape[0] < 2:
        return Estimate(
            value=float("nan"),
            method="Kendall's W over variants: undefined with 1 variant (needs at least 2 to compare)",
            n=table.shape[1],
            baseline=0.0,
        )
    return kendall_w(table)


def _largest_shift(models: list[str], variants: list[str], table: np.ndarray) -> RankShift:
    """The first model x variant pair (input order) with the largest absolute change of place."""
    pairs = list(itertools.combinations(range(len(variants)), 2)) or [(0, 0)]
    shifts = [
        RankShift(
            model=model,
            from_variant=variants[a],
            to_variant=variants[b],
            from_rank=float(table[a, k]),
            to_rank=float(table[b, k]),
            shift=float(table[b, k] - table[a, k]),
        )
        for k, model in enumerate(models)
        for a, b in pairs
    ]
    return max(shifts, key=lambda shift: abs(shift.shift))
