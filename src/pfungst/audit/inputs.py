"""What a probe sees of a benchmark: one text per item (item level) or one row per item and option (option level).

Partial-input baselines choose which named fields make up the text (``fields=("hypothesis",)`` for a
hypothesis-only baseline); the choices-only baseline uses the option table without the question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pfungst.audit.features.corpus import ROWS_ATTR, presented_rows
from pfungst.data.benchmark import Benchmark
from pfungst.errors import ConfigError

__all__ = ["OPTION_FIELDS", "ItemInputs", "OptionRows", "OptionTable", "item_texts", "option_rows"]

OPTION_FIELDS: tuple[str, ...] = ("item", "position", "option", "question", "n_options")
"""The columns of an option table that option-level feature sets read: all but ``is_gold`` (the answer)."""


def item_texts(benchmark: Benchmark, fields: Sequence[str] = ()) -> tuple[str, ...]:
    """Each item's text, or the named fields joined by newlines (a partial-input baseline).

    Raises:
        ConfigError: an item lacks one of the fields (the message lists the fields it has).
    """
    if not fields:
        return tuple(item.text for item in benchmark)
    texts = []
    for item in benchmark:
        missing = [name for name in fields if name not in item.fields]
        if missing:
            have = ", ".join(item.fields) or "none"
            raise ConfigError(
                f"item {item.id!r} has no field {missing[0]!r} (it has: {have}); "
                "partial-input baselines need fields every item has"
            )
        texts.append("\n".join(item.fields[name] for name in fields))
    return tuple(texts)


@dataclass(frozen=True)
class ItemInputs:
    """Item-level probe inputs: a text and a class per item.

    For shared-label tasks the classes are the labels; for per-item choices they are gold positions (``A``,
    ``B``, ...), so an item-level probe asks whether the text predicts where the answer sits.
    """

    item_ids: tuple[str, ...]
    texts: tuple[str, ...]
    y: np.ndarray
    """Class index per item (int)."""
    classes: tuple[str, ...]
    """Class names, indexed by ``y``."""
    n_options: np.ndarray
    """Per item, how many classes it can take: the number of labels, or of the item's own options (for chance)."""

    @classmethod
    def from_benchmark(cls, benchmark: Benchmark, fields: Sequence[str] = ()) -> ItemInputs:
        classes = benchmark.option_kind.class_names(benchmark.labels, max(benchmark.option_counts, default=0))
        return cls(
            item_ids=tuple(item.id for item in benchmark),
            texts=item_texts(benchmark, fields),
            y=np.array([item.gold for item in benchmark], dtype=int),
            classes=classes,
            n_options=np.array([item.n_options for item in benchmark], dtype=int),
        )

    def __len__(self) -> int:
        return len(self.item_ids)

    def subset(self, indices: np.ndarray) -> ItemInputs:
        """The inputs of the items at ``indices`` (positions, not ids)."""
        return ItemInputs(
            item_ids=tuple(self.item_ids[i] for i in indices),
            texts=tuple(self.texts[i] for i in indices),
            y=self.y[indices],
            classes=self.classes,
            n_options=self.n_options[indices],
        )


@dataclass(frozen=True)
class OptionTable:
    """Option-level probe inputs: one row per (item, option), for models that choose among an item's options.

    ``frame`` columns: ``item`` (0-based item index), ``position`` (0-based), ``option`` (its text), ``question``
    (the item text, or '' for the choices-only baseline), ``n_options``, ``is_gold`` (bool).
    """

    item_ids: tuple[str, ...]
    frame: pd.DataFrame
    gold: np.ndarray
    """Gold position per item."""
    shared: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """Work on the whole table that transformers reuse across folds (fit-free option features), by their key."""

    @classmethod
    def from_benchmark(
        cls, benchmark: Benchmark, fields: Sequence[str] = (), with_question: bool = True
    ) -> OptionTable:
        if not benchmark.option_kind.has_positions:
            raise ConfigError("option-level features need per-item choices; this benchmark has a shared label set")
        questions = item_texts(benchmark, fields) if with_question else ("",) * len(benchmark)
        rows = [
            (index, position, option, questions[index], item.n_options, position == item.gold)
            for index, item in enumerate(benchmark)
            for position, option in enumerate(item.options)
        ]
        frame = pd.DataFrame(rows, columns=["item", "position", "option", "question", "n_options", "is_gold"])
        gold = np.array([item.gold for item in benchmark], dtype=int)
        return cls(item_ids=tuple(item.id for item in benchmark), frame=frame, gold=gold)

    def __len__(self) -> int:
        return len(self.item_ids)

    def subset(self, indices: np.ndarray) -> OptionTable:
        """The rows of the items at ``indices``, renumbered 0..len(indices)-1 in that order."""
        return self.rows(indices).table

    def rows(self, indices: np.ndarray) -> OptionRows:
        """The items at ``indices`` as a subset that remembers its rows in this table (see :class:`OptionRows`)."""
        indices = np.asarray(indices, dtype=np.int64)
        renumber = np.full(len(self.item_ids), -1, dtype=np.int64)
        renumber[indices] = np.arange(indices.size)
        new_item = renumber[self.frame["item"].to_numpy(dtype=np.int64)]
        kept = np.flatnonzero(new_item >= 0)
        # Rows of the new items in order, each item's options by position (stable, as the table lists them).
        source_rows = kept[np.lexsort((self.frame["position"].to_numpy()[kept], new_item[kept]))]
        frame = self.frame.iloc[source_rows].reset_index(drop=True)
        frame["item"] = new_item[source_rows]
        table = OptionTable(item_ids=tuple(self.item_ids[i] for i in indices), frame=frame, gold=self.gold[indices])
        return OptionRows(table, self, source_rows)


@dataclass(frozen=True)
class OptionRows:
    """A subset of an :class:`OptionTable` with the position of each of its rows in the whole table.

    Transformers read ``frame`` as from a table; those with features that need no fitting (option lengths, overlap)
    compute them once on ``source`` and take ``source_rows``, instead of once per fold.
    """

    table: OptionTable
    source: OptionTable
    source_rows: np.ndarray
    """Per row of ``table.frame``, its row in ``source.frame``."""

    @property
    def frame(self) -> pd.DataFrame:
        return self.table.frame

    def input_frame(self) -> pd.DataFrame:
        """The rows' frame with its ``attrs`` naming these rows, for a transformer that reuses whole-table work
        (:func:`option_rows` finds them again in the columns the encoder's ``InputField`` passes on)."""
        frame = self.frame.copy(deep=False)
        frame.attrs[ROWS_ATTR] = self
        return frame

    def __len__(self) -> int:
        return len(self.table)

    def __deepcopy__(self, memo: dict[int, Any]) -> OptionRows:
        """Itself: pandas deep-copies a frame's ``attrs`` into every frame taken from it; these rows never change."""
        return self


def option_rows(X: Any) -> OptionRows | None:
    """The :class:`OptionRows` behind ``X``: ``X`` itself, or the rows an input frame's ``attrs`` name if ``X``'s
    columns still hold exactly their values (a step that changed them keeps the ``attrs``); None otherwise."""
    if isinstance(X, OptionRows):
        return X
    rows = presented_rows(X)
    if not isinstance(rows, OptionRows) or not isinstance(X, pd.DataFrame) or len(X) != len(rows.frame):
        return None
    columns = list(X.columns)
    if not set(columns) <= set(rows.frame.columns):
        return None
    return rows if X.equals(rows.frame.loc[:, columns]) else None
