"""A probe's texts as one corpus, so that work on the whole corpus (tokenising, counting n-grams) is done once.

A probe fits its feature set on every training fold (2 x 5 folds, each with an inner split) and several feature
sets share one tokenisation: word TF, TF-IDF and presence all count the same word n-grams. :class:`TextCorpus`
holds every item's text with a content fingerprint; :class:`CorpusRows` is the subset a fold fits or transforms.
``CorpusRows`` is a plain sequence of strings to any transformer (readability features, plugins), and a
transformer that can reuse whole-corpus work, such as :class:`~pfungst.audit.features.ngrams.NgramFeatures`,
reads ``corpus`` and ``rows`` to slice a count matrix computed once per corpus instead of counting again.

The probe's encoder (:func:`~pfungst.audit.encoder.make_encoder`) takes a frame: :meth:`TextCorpus.frame` gives the
texts as a ``text`` column whose ``attrs`` remember the ``CorpusRows`` they present; the column the transformer gets
keeps them, and :func:`corpus_rows` finds them again, once it has checked that the texts are still those rows' texts.

Example:
    >>> corpus = TextCorpus(("a cat", "a dog", "not a cat"))
    >>> rows = corpus.rows([2, 0])
    >>> list(rows), rows.rows.tolist(), len(rows)
    (['not a cat', 'a cat'], [2, 0], 2)
    >>> corpus_rows(corpus.frame([2, 0])["text"]).rows.tolist()
    [2, 0]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
import pandas as pd

from pfungst.data.fingerprint import texts_fingerprint

__all__ = ["ROWS_ATTR", "TEXT_FIELD", "CorpusRows", "TextCorpus", "corpus_rows", "presented_rows"]

TEXT_FIELD = "text"
"""The column of an item-level input frame that holds each item's text."""
ROWS_ATTR = "pfungst.rows"
"""The key in a frame's ``attrs`` of the rows object (:class:`CorpusRows`, ``OptionRows``) the frame presents."""


class TextCorpus:
    """Every text a probe may fit or transform, with a fingerprint of their content (the key of shared work).

    The fingerprint, not the object's identity, keys shared work, so a corpus pickled to a worker process finds
    the counts that worker computed for an earlier fold.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts: tuple[str, ...] = tuple(texts)
        self.key: str = texts_fingerprint(self.texts)
        """``N:hash`` of the texts in order; equal keys mean equal corpora."""
        self.array: np.ndarray = np.empty(len(self.texts), dtype=object)
        """The same texts as an object array (the same string objects), to take rows of and compare with."""
        self.array[:] = self.texts

    def __len__(self) -> int:
        return len(self.texts)

    def rows(self, positions: Sequence[int] | np.ndarray) -> CorpusRows:
        """The texts at ``positions`` (in that order) as a sequence that remembers where they came from."""
        return CorpusRows(self, np.asarray(positions, dtype=np.int64))

    def frame(self, positions: Sequence[int] | np.ndarray) -> pd.DataFrame:
        """The texts at ``positions`` as a ``text`` column (object dtype), its ``attrs`` naming their rows."""
        rows = self.rows(positions)
        frame = pd.DataFrame({TEXT_FIELD: pd.Series(self.array[rows.rows], dtype=object, copy=False)})
        frame.attrs[ROWS_ATTR] = rows
        return frame


class CorpusRows(Sequence[str]):
    """Some texts of a :class:`TextCorpus`, in a given order: a sequence of strings with its corpus and rows."""

    def __init__(self, corpus: TextCorpus, rows: np.ndarray) -> None:
        self.corpus = corpus
        self.rows = rows
        """Positions in ``corpus.texts``, one per text of this sequence."""

    def __len__(self) -> int:
        return int(self.rows.size)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self.corpus.texts[i] for i in self.rows[index]]
        return self.corpus.texts[int(self.rows[index])]

    def __iter__(self) -> Iterator[str]:
        texts = self.corpus.texts
        return (texts[i] for i in self.rows.tolist())

    def __deepcopy__(self, memo: dict[int, Any]) -> CorpusRows:
        """Itself: pandas deep-copies a frame's ``attrs`` into every frame and column taken from it, and these rows
        (a view of an immutable corpus) are never changed."""
        return self


def presented_rows(X: Any) -> Any:
    """The rows object a frame or column says it presents (its ``attrs``), or None."""
    attrs = getattr(X, "attrs", None)
    return attrs.get(ROWS_ATTR) if isinstance(attrs, dict) else None


def corpus_rows(X: Any) -> CorpusRows | None:
    """Where the texts of ``X`` sit in a corpus: ``X`` itself if it is :class:`CorpusRows`, else the rows a column
    taken from :meth:`TextCorpus.frame` presents, if it still holds exactly their texts in their order (a step that
    changed the texts keeps the ``attrs``, not the texts); None otherwise."""
    if isinstance(X, CorpusRows):
        return X
    rows = presented_rows(X)
    if not isinstance(rows, CorpusRows) or getattr(X, "ndim", 0) != 1 or len(X) != len(rows):
        return None
    values = np.asarray(X, dtype=object)
    return rows if np.array_equal(values, rows.corpus.array[rows.rows]) else None
