"""Assemble a probe's outcome from its fold results: predictions, scores, the final model and provenance.

Split from :mod:`~pfungst.audit.probe` so that fold jobs (which may run in other processes or on a cluster) and the
assembly that follows them stay small modules; nothing here fits more than the one final model.
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from pfungst.audit.classifiers import ClassifierSpec
from pfungst.audit.encoder import EncoderSettings, make_encoder
from pfungst.audit.feature_sets import FeatureSet
from pfungst.audit.probe_outcome import FoldChoice, ProbeOutcome, Scores, ScoreSettings, score_predictions
from pfungst.audit.probe_tasks import ItemTask, OptionTask, fit_final_model

if TYPE_CHECKING:
    from pfungst.audit.probe import ProbeConfig

__all__ = ["FoldResult", "assemble_outcome"]


@dataclass(frozen=True)
class FoldResult:
    """What one fold job returns: the held-out items, their predictions and the classifier chosen."""

    test: np.ndarray
    predictions: np.ndarray
    choice: FoldChoice
    warnings: int
    weights: tuple[Any, ...] | None = None
    """Top features of the chosen model when the protocol reports those of its fitted model (pacchiardi2024)."""
    seconds: float = 0.0
    """Wall seconds the job took (wherever it ran)."""
    gold_probability: np.ndarray | None = None
    """Per held-out item, the probability the fold's model gives its gold answer (NaN where it gives none)."""


def assemble_outcome(
    task: ItemTask | OptionTask,
    feature_set: FeatureSet,
    settings: EncoderSettings,
    config: ProbeConfig,
    folds: list[FoldResult],
) -> ProbeOutcome:
    """The probe's outcome from its fold results (in job order): scores, the final model's top features, settings."""
    started = time.perf_counter()
    n, n_repeats = len(task.item_ids), 1 + max(result.choice.repeat for result in folds)
    predictions = np.full((n_repeats, n), -1, dtype=int)
    for result in folds:
        predictions[result.choice.repeat, result.test] = result.predictions
    chosen = Counter(result.choice.classifier for result in folds)
    candidates = {spec.name: spec for spec in config.candidates()}
    final = max(candidates, key=lambda name: chosen.get(name, 0))
    weights, final_warnings = _final_weights(task, feature_set, settings, config, folds, candidates[final])
    scores = _scores(task, config, predictions)
    scored = predictions >= 0
    share = np.where(scored[0], (predictions == task.y).sum(axis=0) / np.maximum(scored.sum(axis=0), 1), np.nan)
    n_warnings = sum(result.warnings for result in folds) + final_warnings
    if n_warnings and config.protocol.warns_unconverged:
        warnings.warn(
            f"feature set '{feature_set.name}': {n_warnings} classifier fit(s) stopped at max_iter="
            f"{config.max_iter} without converging; raise ProbeConfig.max_iter",
            ConvergenceWarning,
            stacklevel=3,
        )
    return ProbeOutcome(
        feature_set=feature_set.name,
        level=task.level,
        protocol=config.protocol,
        classes=task.class_names,
        accuracy=scores.accuracy,
        kappa=scores.kappa,
        chance_corrected_accuracy=scores.chance_corrected_accuracy,
        majority_baseline=scores.majority_baseline,
        per_repeat=scores.per_repeat,
        folds=tuple(_with_penalty_and_C(result.choice, candidates) for result in folds),
        final_classifier=final,
        top_features=weights,
        item_ids=tuple(task.item_ids),
        gold=task.y.copy(),
        prediction=predictions[0],
        share_correct=share,
        settings=_probe_settings(task, feature_set, settings, config, candidates),
        convergence_warnings=n_warnings,
        seconds=time.perf_counter() - started + sum(result.seconds for result in folds),
        predictions=predictions,
        gold_probability=_mean_gold_probability(n, folds),
    )


def _mean_gold_probability(n: int, folds: list[FoldResult]) -> np.ndarray:
    """Per item, the mean over the repeats of its out-of-fold gold probability (NaN where no fold gave one)."""
    total, count = np.zeros(n), np.zeros(n)
    for result in folds:
        if result.gold_probability is not None:
            given = ~np.isnan(result.gold_probability)
            np.add.at(total, result.test[given], result.gold_probability[given])
            np.add.at(count, result.test[given], 1)
    return np.divide(total, count, out=np.full(n, np.nan), where=count > 0)


def _scores(task: ItemTask | OptionTask, config: ProbeConfig, predictions: np.ndarray) -> Scores:
    """The probe's estimates from its per-repeat predictions, described by the protocol that made them."""
    return score_predictions(
        task.y,
        predictions,
        ScoreSettings(
            n_classes=1.0 / task.chance,
            seed=config.seed,
            n_bootstrap=config.n_bootstrap,
            n_permutations=config.n_permutations,
            level=config.level,
            accuracy_interval=config.protocol.accuracy_interval,
            description=config.protocol.describe_scores(config),
        ),
    )


def _final_weights(
    task: ItemTask | OptionTask,
    feature_set: FeatureSet,
    settings: EncoderSettings,
    config: ProbeConfig,
    folds: list[FoldResult],
    final: ClassifierSpec,
) -> tuple[Any, int]:
    """The top features and the convergence warnings of the reported model: the paper reports its one fitted
    model; cross-fitting refits the most chosen classifier on all items."""
    if folds[0].weights is not None:
        return folds[0].weights, 0
    encoder = make_encoder(feature_set, settings)
    return fit_final_model(task, encoder, final, seed=config.seed, max_iter=config.max_iter, top_k=config.top_k)


def _probe_settings(
    task: ItemTask | OptionTask,
    feature_set: FeatureSet,
    settings: EncoderSettings,
    config: ProbeConfig,
    candidates: dict[str, ClassifierSpec],
) -> dict[str, Any]:
    """Everything that made the probe, for its result's provenance."""
    return {
        "config": config.to_dict(),
        "feature_set": feature_set.spec(),
        "chance": task.chance,
        "overrides": dict(settings.overrides),
        "scale_dense": settings.scale_dense,
        "scale_sparse": settings.scale_sparse,
        "select_k": settings.select_k,
        "classifiers": [spec.spec() for spec in candidates.values()],
    }


def _with_penalty_and_C(choice: FoldChoice, candidates: dict[str, ClassifierSpec]) -> FoldChoice:
    """``choice`` with the chosen classifier's penalty and ``C`` filled in where the fit left them out."""
    spec = candidates[choice.classifier]
    return choice if choice.penalty else replace(choice, penalty=spec.penalty, C=spec.C)
