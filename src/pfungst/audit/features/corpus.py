"""A probe's texts as one corpus, so that work on the whole corpus (tokenising, counting n-grams) is done once.

A probe fits its feature set on every training fold (2 x 5 folds, each with an inner split) and several feature
sets share one tokenisation: word TF, TF-IDF and presence all count the same word n-grams. :class:`TextCorpus`
holds every item's text with a content fingerprint; :class:`CorpusRows` is the subset a fold fits or transforms.
``CorpusRows`` is a plain sequence of strings to any transformer (readability features, plugins), and a
transformer that can reuse whole-corpus work, such as :class:`~pfungst.audit.features.ngrams.NgramFeatures`,
reads ``corpus`` and ``rows`` to slice a count matrix computed once per corpus instead of counting again.

Example:
    >>> corpus = TextCorpus(("a cat", "a dog", "not a cat"))
    >>> rows = corpus.rows([2, 0])
    >>> list(rows), rows.rows.tolist(), len(rows)
    (['not a cat', 'a cat'], [2, 0], 2)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

__all__ = ["CorpusRows", "TextCorpus"]


class TextCorpus:
    """Every text a probe may fit or transform, with a fingerprint of their content (the key of shared work).

    The fingerprint, not the object's identity, keys shared work, so a corpus pickled to a worker process finds
    the counts that worker computed for an earlier fold.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts: tuple[str, ...] = tuple(texts)
        digest = hashlib.blake2b(digest_size=16)
        for text in self.texts:
            digest.update(text.encode("utf-8", "surrogatepass"))
            digest.update(b"\x00")
        self.key: str = f"{len(self.texts)}:{digest.hexdigest()}"
        """``N:hash`` of the texts in order; equal keys mean equal corpora."""

    def __len__(self) -> int:
        return len(self.texts)

    def rows(self, positions: Sequence[int] | np.ndarray) -> CorpusRows:
        """The texts at ``positions`` (in that order) as a sequence that remembers where they came from."""
        return CorpusRows(self, np.asarray(positions, dtype=np.int64))


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
