"""What the probe fits on: item-level texts or option-level rows, encoded by a feature set fitted on training items.

An :class:`Encoder` is the feature set's transformer, then (crossfit protocol) a scaler so that one ``C`` means the
same for every feature: ``StandardScaler`` for dense output such as readability scores, ``MaxAbsScaler`` for sparse
n-grams (each column divided by its largest absolute value: sparsity kept, presence columns unchanged, term
frequencies and TF-IDF weights brought to the same 0..1 range), then (pacchiardi2024 protocol only)
``SelectKBest(f_classif)``. It is fitted on training items only. :class:`ItemTask` and :class:`OptionTask` give
the two input kinds one interface: encode items, take a subset of encoded items, fit a grid classifier, predict one
class (item level) or one option position (option level) per item.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.preprocessing import MaxAbsScaler, StandardScaler

from pfungst.audit.classifiers import (
    ClassifierSpec,
    FeatureWeight,
    counting_convergence_warnings,
    fit_item_classifier,
    make_choice_model,
    top_features,
)
from pfungst.audit.feature_sets import FeatureSet
from pfungst.audit.features.corpus import TextCorpus
from pfungst.audit.features.ngrams import NgramFeatures
from pfungst.audit.inputs import ItemInputs, OptionTable

__all__ = [
    "Block",
    "Encoder",
    "EncoderSettings",
    "ItemTask",
    "OptionTask",
    "accepted_overrides",
    "fit_final_model",
    "inner_split",
    "make_task",
    "selection_items",
]


@dataclass(frozen=True)
class EncoderSettings:
    """How to turn a feature set into a fitted encoder."""

    overrides: Mapping[str, Any]
    """Keyword arguments for ``feature_set.make`` (only those the transformer accepts)."""
    scale_dense: bool = True
    """Standardise dense feature matrices (readability) unless the transformer has its own ``standardize``
    parameter (option features)."""
    scale_sparse: bool = False
    """Divide each column of a sparse feature matrix (n-grams) by its largest absolute value (``MaxAbsScaler``)."""
    select_k: int = 0
    """Keep the ``min(select_k, n_features)`` best features by ANOVA F (0: keep all)."""


def accepted_overrides(feature_set: FeatureSet, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The ``overrides`` that ``feature_set``'s transformer takes as parameters (``min_df`` only for n-grams)."""
    params = feature_set.make().get_params()
    return {key: value for key, value in overrides.items() if key in params}


class Encoder:
    """A feature set's transformer, then optional scaling and feature selection, fitted on training items."""

    def __init__(self, feature_set: FeatureSet, settings: EncoderSettings) -> None:
        self.transformer = feature_set.make(**settings.overrides)
        self.settings = settings
        self.scaler: StandardScaler | MaxAbsScaler | None = None
        self.selector: SelectKBest | None = None

    def fit_transform(self, raw: Any, y: np.ndarray | None) -> Any:
        """Fit on the training items' raw inputs and return their features (``y`` is needed for selection)."""
        X = self.transformer.fit_transform(raw)
        # A transformer with a ``standardize`` parameter (option features) scales its own columns.
        if self.settings.scale_dense and not sp.issparse(X) and "standardize" not in self.transformer.get_params():
            self.scaler = StandardScaler()
            X = self.scaler.fit_transform(X)
        elif self.settings.scale_sparse and sp.issparse(X):
            self.scaler = MaxAbsScaler(copy=not self._fresh_output())
            X = self.scaler.fit_transform(X)
        if self.settings.select_k and y is not None:
            self.selector = SelectKBest(f_classif, k=min(self.settings.select_k, X.shape[1]))
            with warnings.catch_warnings():  # constant columns give F = NaN; they are simply not selected
                warnings.simplefilter("ignore", RuntimeWarning)
                warnings.filterwarnings("ignore", message="Features .* are constant")
                X = self.selector.fit_transform(X, y)
        return X

    def transform(self, raw: Any) -> Any:
        X = self.transformer.transform(raw)
        if self.scaler is not None:
            X = self.scaler.transform(X)
        if self.selector is not None:
            X = self.selector.transform(X)
        return X

    def _fresh_output(self) -> bool:
        """Whether every output of the transformer is a new matrix of its own (n-grams: scaled in place, one copy
        fewer; a plugin's output may be shared, so it is copied)."""
        return isinstance(self.transformer, NgramFeatures)

    def feature_names(self) -> np.ndarray:
        names = np.asarray(self.transformer.get_feature_names_out(), dtype=object)
        return names[self.selector.get_support()] if self.selector is not None else names


@dataclass(frozen=True)
class Block:
    """Encoded items: feature rows, the class of each item, and (option level) which item each row belongs to."""

    X: Any
    y: np.ndarray
    """Per item: the label index (item level) or the gold position (option level)."""
    row_item: np.ndarray | None = None
    """Option level: per row, the item's position in this block; None at item level (one row per item)."""
    is_gold: np.ndarray | None = None

    def take(self, items: np.ndarray) -> Block:
        """The items at ``items`` (positions in this block; option level keeps ascending order)."""
        if self.row_item is None or self.is_gold is None:
            return Block(self.X[items], self.y[items])
        items = np.sort(items)
        mask = np.isin(self.row_item, items)
        renumber = np.full(self.y.size, -1)
        renumber[items] = np.arange(items.size)
        return Block(self.X[np.flatnonzero(mask)], self.y[items], renumber[self.row_item[mask]], self.is_gold[mask])


class ItemTask:
    """Item-level inputs: one text per item, classes are the labels (or gold positions)."""

    level: Literal["item", "option"] = "item"

    def __init__(self, inputs: ItemInputs) -> None:
        self.item_ids = inputs.item_ids
        self.corpus = TextCorpus(inputs.texts)
        """Every item's text: folds pass rows of it, so n-gram counts are computed once per corpus."""
        self.y = np.asarray(inputs.y, dtype=int)
        self.class_names = tuple(inputs.classes)
        self.n_classes = len(self.class_names)
        # Uniform guessing among each item's own options; for shared labels every item has all the labels.
        n_options = np.asarray(inputs.n_options, dtype=float)
        self.chance = float(np.mean(1.0 / n_options)) if n_options.size else float("nan")

    def encode(self, encoder: Encoder, items: np.ndarray, fit: bool) -> Block:
        """Features of ``items`` (positions), fitting ``encoder`` on them when ``fit``."""
        raw = self.corpus.rows(items)
        y = self.y[items]
        X = encoder.fit_transform(raw, y) if fit else encoder.transform(raw)
        return Block(X, y)

    def fit(self, name: ClassifierSpec | str, block: Block, *, seed: int, max_iter: int) -> Any:
        return fit_item_classifier(name, block.X, block.y, n_classes=self.n_classes, seed=seed, max_iter=max_iter)

    def predict(self, model: Any, block: Block) -> np.ndarray:
        return np.asarray(model.predict(block.X), dtype=int)


class OptionTask:
    """Option-level inputs: one row per (item, option); a conditional logit picks one option per item."""

    level: Literal["item", "option"] = "option"

    def __init__(self, table: OptionTable) -> None:
        self.table = table
        self.item_ids = table.item_ids
        self.y = np.asarray(table.gold, dtype=int)
        n_options = table.frame.groupby("item", sort=True)["n_options"].first().to_numpy()
        self.n_classes = int(n_options.max()) if n_options.size else 0
        self.class_names = tuple(_position_name(k) for k in range(self.n_classes))
        self.chance = float(np.mean(1.0 / n_options)) if n_options.size else float("nan")
        self.random_ties = True
        """Break ties between equally scored options at random: set in ``encode`` for features without position
        columns, so that a position-blind probe cannot win by tie-breaking towards the first slot."""

    def encode(self, encoder: Encoder, items: np.ndarray, fit: bool) -> Block:
        """Features of the options of ``items`` (positions), fitting ``encoder`` on them when ``fit``."""
        items = np.sort(items)
        rows = self.table.rows(items)
        frame = rows.frame
        is_gold = frame["is_gold"].to_numpy(dtype=bool)
        X = encoder.fit_transform(rows, is_gold.astype(int)) if fit else encoder.transform(rows)
        if fit:
            self.random_ties = not _has_position_columns(encoder)
        return Block(X, self.y[items], frame["item"].to_numpy(dtype=int), is_gold)

    def fit(self, name: ClassifierSpec | str, block: Block, *, seed: int, max_iter: int) -> Any:
        del seed  # the conditional logit is deterministic
        rows, is_gold = _option_rows(block)
        return make_choice_model(name, max_iter=max_iter).fit(block.X, is_gold, rows)

    def predict(self, model: Any, block: Block) -> np.ndarray:
        rows, _ = _option_rows(block)
        # Position-blind features: ties at random (seeded by the block's size, so reruns agree), never the first
        # slot. Features with position columns keep first-slot ties: they see positions anyway.
        seed = len(rows) if self.random_ties else None
        return np.asarray(model.predict_choice(block.X, rows, seed=seed), dtype=int)


def _has_position_columns(encoder: Encoder) -> bool:
    """Whether a fitted option-level encoder outputs position columns (``position_A``, ...); False if it cannot say."""
    try:
        names = encoder.feature_names()
    except (AttributeError, ValueError, TypeError):
        return False
    return any(str(name).startswith("position_") for name in names)


def _option_rows(block: Block) -> tuple[np.ndarray, np.ndarray]:
    if block.row_item is None or block.is_gold is None:
        raise TypeError("an option-level block needs row_item and is_gold")
    return block.row_item, block.is_gold


def _position_name(k: int) -> str:
    return chr(ord("A") + k) if k < 26 else str(k + 1)


def make_task(inputs: ItemInputs | OptionTable) -> ItemTask | OptionTask:
    """The task adapter for ``inputs``."""
    if isinstance(inputs, OptionTable):
        return OptionTask(inputs)
    return ItemTask(inputs)


def fit_final_model(
    task: ItemTask | OptionTask,
    encoder: Encoder,
    classifier: ClassifierSpec | str,
    *,
    seed: int,
    max_iter: int,
    top_k: int,
) -> tuple[tuple[FeatureWeight, ...], int]:
    """Fit ``encoder`` and ``classifier`` on all items: the ``top_k`` most predictive features per class, and how many
    fits stopped without converging."""
    warned = [0]
    with counting_convergence_warnings(lambda count: warned.__setitem__(0, count)):
        block = task.encode(encoder, np.arange(len(task.item_ids)), fit=True)
        model = task.fit(classifier, block, seed=seed, max_iter=max_iter)
        weights = top_features(model, encoder.feature_names(), task.class_names, top_k)
    return weights, warned[0]


def inner_split(y: np.ndarray, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A validation split of a training fold, stratified when every class has at least two items."""
    _, counts = np.unique(y, return_counts=True)
    stratified = counts.min() >= 2 and round(fraction * y.size) >= counts.size
    splitter = (StratifiedShuffleSplit if stratified else ShuffleSplit)(
        n_splits=1, test_size=fraction, random_state=seed
    )
    inner_train, inner_val = next(splitter.split(np.zeros(y.size), y))
    return np.sort(inner_train), np.sort(inner_val)


def selection_items(y: np.ndarray, max_items: int, seed: int) -> np.ndarray | None:
    """At most ``max_items`` positions of a training fold to compare the classifier grid on (a seeded sample,
    stratified when every class has two items), ascending; None when the fold is no larger (use all of it)."""
    if y.size <= max_items:
        return None
    _, counts = np.unique(y, return_counts=True)
    stratified = counts.min() >= 2 and max_items >= counts.size
    splitter = (StratifiedShuffleSplit if stratified else ShuffleSplit)(
        n_splits=1, train_size=max_items, random_state=seed
    )
    chosen, _ = next(splitter.split(np.zeros(y.size), y))
    return np.sort(chosen)
