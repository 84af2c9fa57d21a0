"""Which word n-grams occur in which documents, counted with integer arrays instead of a string per n-gram.

The cue table needs, for every n-gram, the documents that contain it. ``CountVectorizer`` with a Python analyzer
builds a string for every n-gram occurrence and looks it up in a dict: about 2 microseconds per n-gram, 270 s for
a million 40-word documents. Here each word is looked up once (word -> id), longer n-grams are numbered by pairing
the id of their first ``n - 1`` words with the id of the last word (``numpy.unique`` makes the numbers dense), and
each (document, n-gram) pair is kept once. Strings are made only for the n-grams a caller names. The pairs are
exactly those a binary ``CountVectorizer`` with the same tokens would store (a test compares them).

Example:
    >>> presence = NgramPresence.count([["not", "a", "cat"], ["a", "cat"]], (1, 2))
    >>> counts = presence.document_counts()
    >>> sorted(zip(presence.names(range(presence.n_grams)).tolist(), counts.tolist()))
    [('a', 2), ('a cat', 2), ('cat', 2), ('not', 1), ('not a', 1)]
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["NgramPresence"]


@dataclass(frozen=True)
class NgramPresence:
    """(document, n-gram) presence pairs, each pair once, with n-grams numbered ``0 .. n_grams - 1``."""

    document: np.ndarray
    """Per pair: the document's position (int64)."""
    gram: np.ndarray
    """Per pair: the n-gram's number (int64)."""
    n_grams: int
    """How many distinct n-grams occur in any document."""
    words: tuple[str, ...]
    """The word of each word id."""
    spelling: tuple[np.ndarray, ...]
    """Per n-gram number: its word ids, one array per word position (``spelling[j][g]``: the j-th word of n-gram
    ``g``, -1 past its end)."""

    @classmethod
    def count(cls, documents: Iterable[Sequence[str]], ngram_range: tuple[int, int]) -> NgramPresence:
        """The n-grams of ``ngram_range`` (in words, both ends included) of each tokenised document."""
        vocabulary: dict[str, int] = {}
        ids = array("q")  # 8 bytes a token, not a Python int each
        lengths = array("q")
        for tokens in documents:
            ids.extend([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
            lengths.append(len(tokens))
        word = np.frombuffer(ids, dtype=np.int64) if ids else np.zeros(0, dtype=np.int64)
        size = np.frombuffer(lengths, dtype=np.int64) if lengths else np.zeros(0, dtype=np.int64)
        owner = np.repeat(np.arange(size.size, dtype=np.int64), size)
        # Per token: how many tokens of its document start at it (itself included).
        left = np.repeat(size, size) - (np.arange(word.size) - np.repeat(np.cumsum(size) - size, size))
        low, high = ngram_range
        documents_out, grams_out, spellings = [], [], []
        offset = 0
        starts, code = np.arange(word.size, dtype=np.int64), word  # 1-grams: every token starts one
        for n in range(1, high + 1):
            if n > 1:  # an (n-1)-gram extends to an n-gram where its document has a word left
                keep = left[starts] >= n
                starts, prefix = starts[keep], code[keep]
                code = prefix * (int(word.max(initial=0)) + 1) + word[starts + n - 1]
            code, first = _dense(code)
            if n >= low:
                n_distinct = max(1, first.size)
                pairs = _distinct(owner[starts] * n_distinct + code)  # each (document, n-gram) once
                documents_out.append(pairs // n_distinct)
                grams_out.append(pairs % n_distinct + offset)
                spellings.append(_spell(word, starts[first], n, high))
                offset += first.size
        empty = np.zeros(0, dtype=np.int64)
        return cls(
            document=np.concatenate(documents_out) if documents_out else empty,
            gram=np.concatenate(grams_out) if grams_out else empty,
            n_grams=offset,
            words=tuple(vocabulary),
            spelling=tuple(np.concatenate(parts) for parts in zip(*spellings, strict=True))
            if spellings
            else tuple(empty for _ in range(high)),
        )

    def document_counts(self) -> np.ndarray:
        """Per n-gram: the number of documents that contain it."""
        return np.bincount(self.gram, minlength=self.n_grams)

    def names(self, grams: Iterable[int] | np.ndarray) -> np.ndarray:
        """The n-grams numbered ``grams`` as strings (words joined by one space), an object array."""
        grams = np.asarray(list(grams) if not isinstance(grams, np.ndarray) else grams, dtype=np.int64)
        words = self.words
        parts = [row[grams].tolist() for row in self.spelling]
        return np.array(
            [" ".join(words[i] for i in ids if i >= 0) for ids in zip(*parts, strict=True)] if parts else [],
            dtype=object,
        )


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending (a sort and a comparison: for integers, faster than ``numpy.unique``'s hash)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


def _dense(code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes renumbered ``0 .. distinct - 1``, and the position of each code's first occurrence."""
    distinct, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    del distinct
    return inverse.reshape(-1).astype(np.int64), first


def _spell(word: np.ndarray, starts: np.ndarray, n: int, high: int) -> list[np.ndarray]:
    """The word ids of the n-grams starting at ``starts`` (one array per word position, -1 past the n-th)."""
    return [word[starts + j] if j < n else np.full(starts.size, -1, dtype=np.int64) for j in range(high)]
