"""What a probe found: estimates with intervals and tests, their distribution over repeats, and per-item predictions.

Statistics (see :func:`score_predictions`):

- ``accuracy``: share of scored items predicted right (mean over repeats); ``baseline`` = majority-class share of
  the scored items (all items under cross-fitting, the test items under pacchiardi2024).
- ``kappa``: Cohen's kappa of predictions against labels (chance from both marginals; mean over repeats);
  ``baseline`` 0. Its ``pvalue`` tests kappa = 0 by shuffling labels against the fixed out-of-fold predictions.
  Both marginals are kept by a shuffle, so kappa is then a monotone function of accuracy and the test is the same
  for accuracy and chance-corrected accuracy: all three carry the one p-value.
- ``chance_corrected_accuracy``: Pacchiardi et al. 2024's "kappa", ``(acc - 1/K) / (1 - 1/K)``; ``baseline`` is
  the value the majority-class guess gets (0 only for balanced labels). Its interval maps the accuracy interval
  through the same increasing function.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pfungst.audit.classifiers import FeatureWeight
from pfungst.audit.probe_protocol import ProbeProtocol, get_protocol
from pfungst.audit.resampled_kappa import bootstrap_draws_kappa, interval_from_draws, kappa_permutation_pvalue
from pfungst.errors import ConfigError
from pfungst.schema import Fields, read_dataclass
from pfungst.serialization import frame_records, to_jsonable
from pfungst.stats import (
    ConfidenceInterval,
    Estimate,
    chance_corrected_accuracy,
    cohen_kappa,
    majority_baseline,
    wilson_interval,
)

__all__ = ["FoldChoice", "ProbeOutcome", "RepeatScore", "ScoreSettings", "Scores", "score_predictions"]


@dataclass(frozen=True)
class RepeatScore:
    """The scores of one repeat of the cross-fitting (one full set of out-of-fold predictions)."""

    repeat: int
    accuracy: float
    kappa: float
    chance_corrected_accuracy: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FoldChoice:
    """The classifier chosen on validation data inside one training fold, and the validation scores behind it."""

    repeat: int
    fold: int
    n_train: int
    n_test: int
    classifier: str
    validation_scores: dict[str, float] = field(default_factory=dict)
    """Validation score (the selection metric) of every classifier of the grid."""
    penalty: str = ""
    """The chosen classifier's penalty, ``l1`` or ``l2``."""
    C: float = math.nan
    """The chosen classifier's inverse regularisation strength (from the C grid under crossfit)."""

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "validation_scores": dict(self.validation_scores)}


@dataclass(frozen=True)
class ScoreSettings:
    """How to turn predictions into estimates."""

    n_classes: float
    """K in ``(acc - 1/K) / (1 - 1/K)``: the number of labels, or ``1 / mean(1 / n_options)`` for options."""
    seed: int
    n_bootstrap: int = 1000
    n_permutations: int = 1000
    level: float = 0.95
    accuracy_interval: str = "bootstrap"
    """``bootstrap`` (over items, repeats averaged) or ``wilson`` (one prediction per item)."""
    description: str = ""
    """How the predictions were made, prefixed to every estimate's ``method``."""


@dataclass(frozen=True)
class Scores:
    """The headline estimates and their distribution over repeats."""

    accuracy: Estimate
    kappa: Estimate
    chance_corrected_accuracy: Estimate
    majority_baseline: Estimate
    per_repeat: tuple[RepeatScore, ...]


def score_predictions(y: np.ndarray, predictions: np.ndarray, settings: ScoreSettings) -> Scores:
    """Estimates from per-repeat predictions ``(n_repeats, n_items)``; -1 marks items not predicted (not scored)."""
    predictions = np.atleast_2d(predictions)
    scored = predictions[0] >= 0
    truth, preds = np.asarray(y)[scored], predictions[:, scored]
    correct = preds == truth
    n, k = int(truth.size), settings.n_classes
    majority = majority_baseline(truth)
    per_repeat = _per_repeat(truth, preds, k)
    accuracy = float(correct.mean()) if n else math.nan
    kappa = float(np.mean([s.kappa for s in per_repeat])) if n else math.nan
    pvalue, accuracy_ci, kappa_ci = _tests_and_intervals(truth, preds, settings)
    how = f"{settings.description}; " if settings.description else ""
    test = f"permutation p-value ({settings.n_permutations} label shuffles against fixed predictions)"
    corrected = Estimate(
        chance_corrected_accuracy(accuracy, k) if n else math.nan,
        f"{how}chance-corrected accuracy (acc - 1/K) / (1 - 1/K), K = {k:g} (Pacchiardi et al. 2024's 'kappa'; "
        "ignores label imbalance); interval mapped from the accuracy interval",
        n,
        ConfidenceInterval(
            chance_corrected_accuracy(accuracy_ci.low, k),
            chance_corrected_accuracy(accuracy_ci.high, k),
            settings.level,
        ),
        pvalue,
        chance_corrected_accuracy(majority, k) if n else math.nan,
    )
    return Scores(
        accuracy=Estimate(
            accuracy, f"{how}accuracy; {settings.accuracy_interval} interval; {test}", n, accuracy_ci, pvalue, majority
        ),
        kappa=Estimate(
            kappa, f"{how}Cohen's kappa; percentile bootstrap interval over items; {test}", n, kappa_ci, pvalue, 0.0
        ),
        chance_corrected_accuracy=corrected,
        majority_baseline=Estimate(
            majority,
            "share of the most frequent class among the scored items; wilson",
            n,
            wilson_interval(round(majority * n), n, settings.level) if n else None,
            baseline=1.0 / k,
        ),
        per_repeat=per_repeat,
    )


def _per_repeat(truth: np.ndarray, preds: np.ndarray, k: float) -> tuple[RepeatScore, ...]:
    """Accuracy, kappa and chance-corrected accuracy of each repeat's predictions (none without scored items)."""
    if not truth.size:
        return ()
    correct = preds == truth
    return tuple(
        RepeatScore(
            r,
            float(correct[r].mean()),
            cohen_kappa(truth, preds[r]),
            chance_corrected_accuracy(float(correct[r].mean()), k),
        )
        for r in range(preds.shape[0])
    )


def _tests_and_intervals(
    truth: np.ndarray, preds: np.ndarray, settings: ScoreSettings
) -> tuple[float, ConfidenceInterval, ConfidenceInterval]:
    """The permutation p-value of the repeat-averaged kappa, and the accuracy and kappa intervals (one seeded
    stream for the permutations, one for both bootstraps, which then resample the same items)."""
    n, correct = int(truth.size), preds == truth
    seeds = np.random.SeedSequence(settings.seed).spawn(2)
    if not n:
        empty = ConfidenceInterval(math.nan, math.nan, settings.level)
        return math.nan, empty, empty
    pvalue = (
        kappa_permutation_pvalue(truth, preds, n_permutations=settings.n_permutations, seed=seeds[0])
        if settings.n_permutations
        else math.nan
    )
    accuracy_draws, kappa_draws = bootstrap_draws_kappa(truth, preds, n_resamples=settings.n_bootstrap, seed=seeds[1])
    if settings.accuracy_interval == "wilson":
        accuracy_ci = wilson_interval(int(correct.sum()), n, settings.level)
    else:
        accuracy_ci = interval_from_draws(accuracy_draws, settings.level)
    kappa_ci = interval_from_draws(kappa_draws, settings.level)
    return pvalue, accuracy_ci, kappa_ci


@dataclass(frozen=True, eq=False)
class ProbeOutcome:
    """The result of one probe: one feature set, one protocol, on one benchmark's items or options."""

    feature_set: str
    level: str
    """``item`` (a classifier per item) or ``option`` (a conditional logit among each item's options)."""
    protocol: ProbeProtocol
    """The protocol that split, fitted and scored it (:mod:`~pfungst.audit.probe_protocol`; written by its name)."""
    classes: tuple[str, ...]
    """Class names (labels, or option positions A, B, ... at option level), indexed by ``gold`` / ``prediction``."""
    accuracy: Estimate
    kappa: Estimate
    """Cohen's kappa: the default headline statistic (chance from the label and prediction marginals)."""
    chance_corrected_accuracy: Estimate
    """Pacchiardi et al. 2024's "kappa", ``(acc - 1/K) / (1 - 1/K)``: their headline statistic."""
    majority_baseline: Estimate
    per_repeat: tuple[RepeatScore, ...]
    """One score per repeat (cross-fitting) or the single test split (pacchiardi2024): a distribution."""
    folds: tuple[FoldChoice, ...]
    """Per training fold (or the one training split), the classifier chosen on validation data."""
    final_classifier: str
    """The classifier chosen most often, refitted on all items for ``top_features``."""
    top_features: tuple[FeatureWeight, ...]
    item_ids: tuple[str, ...]
    gold: np.ndarray
    """Per item, the gold class index."""
    prediction: np.ndarray
    """Per item, the predicted class index of repeat 0; -1 where the item was not predicted (not a test item)."""
    share_correct: np.ndarray
    """Per item, the share of repeats that predicted it right; NaN where it was not predicted."""
    settings: dict[str, Any]
    """Every setting used: the probe config, the feature set spec and overrides, the classifier grid."""
    convergence_warnings: int = 0
    """Fits that stopped at ``max_iter`` without converging (each also reported as a warning)."""
    seconds: float = 0.0
    file_counts: tuple[int, int] = (-1, -1)
    """``(n_items, n_predicted)`` as read from a result file written without per-item records (then the per-item
    arrays are empty); ``(-1, -1)`` when the arrays are held."""
    predictions: np.ndarray | None = None
    """Per repeat and item ``(n_repeats, n_items)``, the predicted class index (-1: not predicted); the verdict
    bootstraps its repeat-averaged statistic. Not part of :meth:`to_dict` (``prediction`` is its first row)."""
    gold_probability: np.ndarray | None = None
    """Per item, the out-of-fold probability of its gold answer, mean over repeats (option-level probes: the
    conditional logit's softmax within the item); NaN where none was computed (item-level probes), None where the
    outcome holds no per-item arrays."""

    @property
    def classifier_summary(self) -> str:
        """Which classifier (penalty and ``C``) won how many folds, most often first: ``l2_C10 x6, l2_C1 x4``."""
        counts = Counter(fold.classifier for fold in self.folds)
        return ", ".join(f"{name} x{count}" for name, count in counts.most_common()) or self.final_classifier

    @property
    def predicted(self) -> np.ndarray:
        """Per item, whether it received an out-of-fold (or test) prediction."""
        return self.prediction >= 0

    @property
    def n_items(self) -> int:
        """Items the probe saw (predicted or not)."""
        return self.file_counts[0] if self.file_counts[0] >= 0 else len(self.item_ids)

    @property
    def n_predicted(self) -> int:
        """Items that received an out-of-fold (or test) prediction."""
        return self.file_counts[1] if self.file_counts[1] >= 0 else int(self.predicted.sum())

    @classmethod
    def from_fields(cls, fields: Fields) -> ProbeOutcome:
        """Read :meth:`to_dict` back; the per-item arrays are empty unless it was written with ``items=True``.

        Raises:
            ReaderError: a value of the wrong type or a missing key, naming the file and the field.
        """
        records = fields.records("items") if fields.has("items") else []
        item_ids = tuple(record.string("item_id") for record in records)
        classes = fields.typed("classes", tuple[str, ...])
        gold = np.array([_class_index(record, "gold", len(classes), 0) for record in records], dtype=int)
        prediction = np.array(
            [
                _class_index(record, "prediction", len(classes), -1) if record.has("prediction") else -1
                for record in records
            ],
            dtype=int,
        )
        share = np.array([record.number("share_correct") for record in records], dtype=float)
        gold_probability = np.array([_optional_number(record, "gold_probability") for record in records], dtype=float)
        return cls(
            feature_set=fields.string("feature_set"),
            level=fields.string("level"),
            protocol=_read_protocol(fields),
            classes=classes,
            accuracy=fields.estimate("accuracy"),
            kappa=fields.estimate("kappa"),
            chance_corrected_accuracy=fields.estimate("chance_corrected_accuracy"),
            majority_baseline=fields.estimate("majority_baseline"),
            per_repeat=tuple(read_dataclass(RepeatScore, entry) for entry in fields.records("per_repeat")),
            folds=tuple(read_dataclass(FoldChoice, entry) for entry in fields.records("folds")),
            final_classifier=fields.string("final_classifier"),
            top_features=tuple(
                read_dataclass(FeatureWeight, entry, {"class_name": "class"})
                for entry in fields.records("top_features")
            ),
            item_ids=item_ids,
            gold=gold,
            prediction=prediction,
            share_correct=share,
            settings=_settings(fields),
            convergence_warnings=fields.integer("convergence_warnings"),
            seconds=fields.number("seconds"),
            file_counts=(-1, -1) if records else (fields.integer("n_items"), fields.integer("n_predicted")),
            gold_probability=gold_probability if records else None,
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per item: gold, prediction and correct (``<NA>`` where not predicted), share of repeats correct."""
        predicted = self.predicted
        names = np.asarray(self.classes, dtype=object)
        missing = ~predicted
        return pd.DataFrame(
            {
                "item_id": list(self.item_ids),
                "feature_set": self.feature_set,
                "gold": self.gold,
                "gold_class": names[self.gold],
                "predicted": predicted,
                "prediction": pd.arrays.IntegerArray(np.maximum(self.prediction, 0), missing),
                "prediction_class": pd.Series(
                    np.where(predicted, names[np.maximum(self.prediction, 0)], None), dtype=object
                ),
                "correct": pd.arrays.BooleanArray(self.prediction == self.gold, missing),
                "share_correct": self.share_correct,
                "gold_probability": (
                    self.gold_probability if self.gold_probability is not None else np.full(len(self.item_ids), np.nan)
                ),
            }
        )

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; ``items=True`` adds the per-item records of :meth:`to_frame`."""
        result: dict[str, Any] = {
            "feature_set": self.feature_set,
            "level": self.level,
            "protocol": self.protocol.name,
            "classes": list(self.classes),
            "n_items": self.n_items,
            "n_predicted": self.n_predicted,
            "accuracy": self.accuracy.to_dict(),
            "kappa": self.kappa.to_dict(),
            "chance_corrected_accuracy": self.chance_corrected_accuracy.to_dict(),
            "majority_baseline": self.majority_baseline.to_dict(),
            "per_repeat": [score.to_dict() for score in self.per_repeat],
            "folds": [fold.to_dict() for fold in self.folds],
            "final_classifier": self.final_classifier,
            "classifier_summary": self.classifier_summary,
            "top_features": [weight.to_dict() for weight in self.top_features],
            "settings": to_jsonable(self.settings),
            "convergence_warnings": self.convergence_warnings,
            "seconds": self.seconds,
        }
        if items:
            result["items"] = frame_records(self.to_frame())
        return result

    def __repr__(self) -> str:
        k, ci = self.kappa, self.kappa.ci
        interval = f" [{ci.low:.3f}, {ci.high:.3f}]" if ci else ""
        return (
            f"ProbeOutcome({self.feature_set!r}, {self.protocol.name}, kappa={k.value:.3f}{interval}, "
            f"p={k.pvalue:.3g}, accuracy={self.accuracy.value:.3f}, n={k.n})"
        )


def _class_index(record: Fields, key: str, n_classes: int, lowest: int) -> int:
    """A class index of a per-item row (``gold``; ``prediction``, -1 where not predicted) within ``classes``."""
    value = record.integer(key)
    if not lowest <= value < n_classes:
        raise record.error(key, f"{value} is not a class index ({lowest}..{n_classes - 1}) of the {n_classes} classes")
    return value


def _optional_number(record: Fields, key: str) -> float:
    """A per-item number that may be null or absent (an older file): NaN then."""
    return record.number(key) if record.has(key) else math.nan


def _settings(fields: Fields) -> dict[str, Any]:
    """The probe's settings; the chance accuracy, which reports and the reliance analysis read, is a share."""
    settings = fields.sub("settings")
    if "chance" in settings.data:
        settings.number("chance")
    return dict(settings.data)


def _read_protocol(fields: Fields) -> ProbeProtocol:
    """The protocol a result file names, or a :class:`~pfungst.errors.ReaderError` at ``protocol`` naming the file."""
    name = fields.string("protocol")
    try:
        return get_protocol(name)
    except ConfigError as error:
        raise fields.error("protocol", str(error)) from None
