"""What the probe fits on: item-level texts or option-level rows, encoded by a feature set fitted on training items.

The encoder (:func:`~pfungst.audit.encoder.make_encoder`) is a scikit-learn ``Pipeline`` fitted on training items
only. :class:`ItemTask` and :class:`OptionTask` give the two input kinds one interface: encode items (a frame of
their texts or option rows through the encoder), take a subset of encoded items, fit a grid classifier, predict one
class (item level) or one option position (option level) per item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.pipeline import Pipeline

from pfungst.audit.checked_inputs import check_finite
from pfungst.audit.classifiers import (
    ClassifierSpec,
    FeatureWeight,
    counting_convergence_warnings,
    fit_item_classifier,
    make_choice_model,
    top_features,
)
from pfungst.audit.encoder import encoded_feature_set, fit_encoder
from pfungst.audit.features.corpus import TextCorpus
from pfungst.audit.folds import fold_ids, is_grouped
from pfungst.audit.inputs import ItemInputs, OptionTable
from pfungst.audit.liblinear_logistic import predict_classes

__all__ = [
    "Block",
    "ItemTask",
    "OptionTask",
    "fit_final_model",
    "inner_split",
    "make_task",
    "selection_items",
]


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

    def occupied_columns(self) -> np.ndarray | None:
        """The columns of a sparse ``X`` with a nonzero entry in some row, ascending; None when ``X`` is dense or
        every column has one."""
        if not sp.issparse(self.X):
            return None
        occupied = np.flatnonzero(sp.csr_matrix(self.X).count_nonzero(axis=0))
        return None if occupied.size == self.X.shape[1] else occupied

    def keep_columns(self, columns: np.ndarray | None) -> Block:
        """This block with only the feature columns ``columns`` (None: all of them)."""
        if columns is None:
            return self
        return Block(sp.csr_matrix(self.X)[:, columns], self.y, self.row_item, self.is_gold)


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

    def encode(self, encoder: Pipeline, items: np.ndarray, fit: bool) -> Block:
        """Features of ``items`` (positions), fitting ``encoder`` on them when ``fit``."""
        frame = self.corpus.frame(items)
        y = self.y[items]
        X = fit_encoder(encoder, frame, y) if fit else encoder.transform(frame)
        check_finite(X, encoded_feature_set(encoder))
        return Block(X, y)

    def fit(self, name: ClassifierSpec | str, block: Block, *, seed: int, max_iter: int) -> Any:
        return fit_item_classifier(name, block.X, block.y, n_classes=self.n_classes, seed=seed, max_iter=max_iter)

    def predict(self, model: Any, block: Block) -> np.ndarray:
        return np.asarray(predict_classes(model, block.X), dtype=int)

    def gold_probability(self, model: Any, block: Block) -> np.ndarray:
        """Per item, the probability the model gives its gold class: NaN (the one-vs-rest scores of an item-level
        probe are not one distribution over the classes)."""
        del model
        return np.full(block.y.size, np.nan)


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

    def encode(self, encoder: Pipeline, items: np.ndarray, fit: bool) -> Block:
        """Features of the options of ``items`` (positions), fitting ``encoder`` on them when ``fit``."""
        items = np.sort(items)
        rows = self.table.rows(items)
        frame = rows.input_frame()
        is_gold = frame["is_gold"].to_numpy(dtype=bool)
        X = fit_encoder(encoder, frame, is_gold.astype(int)) if fit else encoder.transform(frame)
        check_finite(X, encoded_feature_set(encoder))
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

    def gold_probability(self, model: Any, block: Block) -> np.ndarray:
        """Per item (in the order of :meth:`predict`), the probability the conditional logit gives its gold option:
        the softmax of the option scores within the item."""
        rows, is_gold = _option_rows(block)
        found = np.full(block.y.size, np.nan)
        found[rows[is_gold]] = model.predict_proba_rows(block.X, rows)[is_gold]
        return found


def _has_position_columns(encoder: Pipeline) -> bool:
    """Whether a fitted option-level encoder outputs position columns (``position_A``, ...); False if it cannot say."""
    try:
        names = encoder.get_feature_names_out()
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
    encoder: Pipeline,
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
        weights = top_features(model, encoder.get_feature_names_out(), task.class_names, top_k)
    return weights, warned[0]


def inner_split(
    y: np.ndarray, fraction: float, seed: int, groups: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A validation split of a training fold, stratified when every class has at least two items.

    With ``groups`` that put items together, each group falls wholly on one side (one fold of a seeded stratified
    group K-fold into about ``1 / fraction`` folds is the validation part), so that the classifier is not chosen
    for how well it recalls a sibling.
    """
    folds = round(1 / fraction)
    if groups is not None and is_grouped(groups) and np.unique(groups).size >= folds >= 2:
        fold = fold_ids(y, groups, folds, seed)
        return np.flatnonzero(fold != 0), np.flatnonzero(fold == 0)
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
