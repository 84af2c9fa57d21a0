"""How many documents of each class contain each word n-gram, counted with integer arrays, not a string per n-gram.

The cue table needs, for every n-gram, the number of documents that contain it, in total and per label.
``CountVectorizer`` with a Python analyzer builds a string for every n-gram occurrence and looks it up in a dict
(about 2 microseconds per n-gram: 270 s and several GiB for a million 40-word documents, with 1- and 2-grams).
Here each word is looked up once (word -> id); an n-gram is numbered by pairing the number of its first ``n - 1``
words with the id of its last word (``pandas.factorize`` keeps the numbers dense); each (document, n-gram) pair counts
once; and strings are made only for the n-grams kept (those in at least ``min_documents`` documents). The counts
are exactly those of a binary ``CountVectorizer`` on the same tokens (tests compare them).

Example:
    >>> tally = NgramPresence.count([["not", "a", "cat"], ["a", "cat"]], (1, 2), classes=[0, 1], n_classes=2)
    >>> sorted(zip(tally.names().tolist(), tally.documents.tolist(), tally.by_class.tolist()))
    [('a', 2, [1, 1]), ('a cat', 2, [1, 1]), ('cat', 2, [1, 1]), ('not', 1, [1, 0]), ('not a', 1, [1, 0])]
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["NgramPresence", "token_ids"]


def token_ids(documents: Iterable[Sequence[str]]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """Each token looked up once: the vocabulary (token -> id, numbered by first occurrence), every document's token
    ids one document after another (int32: 4 bytes a token, not a Python int each), and each document's length.

    Example:
        >>> vocabulary, ids, lengths = token_ids([["a", "cat"], [], ["a"]])
        >>> vocabulary, ids.tolist(), lengths.tolist()
        ({'a': 0, 'cat': 1}, [0, 1, 0], [2, 0, 1])
    """
    vocabulary: dict[str, int] = {}
    ids, lengths = array("i"), array("q")
    for tokens in documents:
        ids.extend([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
        lengths.append(len(tokens))
    word = np.frombuffer(ids, dtype=np.int32) if ids else np.zeros(0, dtype=np.int32)
    size = np.frombuffer(lengths, dtype=np.int64) if lengths else np.zeros(0, dtype=np.int64)
    return vocabulary, word, size


@dataclass(frozen=True)
class NgramPresence:
    """The kept n-grams (in no particular order): their spelling, document counts and per-class document counts."""

    documents: np.ndarray
    """Per kept n-gram: how many documents contain it (int64)."""
    by_class: np.ndarray
    """Kept n-grams x classes: how many documents of each class contain it (int64)."""
    words: tuple[str, ...]
    """The word of each word id."""
    spelling: np.ndarray
    """Kept n-grams x longest n: the word ids of each n-gram, -1 past its end."""

    @classmethod
    def count(
        cls,
        documents: Iterable[Sequence[str]],
        ngram_range: tuple[int, int],
        *,
        classes: Sequence[int] | np.ndarray,
        n_classes: int,
        min_documents: int = 1,
    ) -> NgramPresence:
        """Count the n-grams of ``ngram_range`` (in words, both ends included) of each tokenised document.

        Args:
            documents: Each document's tokens.
            ngram_range: Shortest and longest n-gram, in words.
            classes: Each document's class, ``0 .. n_classes - 1``.
            n_classes: How many classes.
            min_documents: Keep only n-grams that occur in at least this many documents.
        """
        vocabulary, word, size = token_ids(documents)
        owner = np.repeat(np.arange(size.size, dtype=np.int32), size)
        label = np.asarray(classes, dtype=np.int64)
        low, high = ngram_range
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        # Word ids are dense already, numbered by first occurrence: the 1-grams need no renumbering. Positions and
        # word ids are int32 (a corpus of up to 2**31 tokens), longer n-grams' numbers int64.
        starts, code = np.arange(word.size, dtype=np.int32), word
        first = _first_occurrences(code)
        for n in range(1, high + 1):
            if n > 1:  # an (n-1)-gram extends to an n-gram where its document has one more word
                keep = starts < word.size - (n - 1)
                keep[keep] = owner[starts[keep] + (n - 1)] == owner[starts[keep]]
                starts, code = starts[keep], code[keep].astype(np.int64)
                del keep
                code *= len(vocabulary)
                code += word[starts + (n - 1)]
                code, first = _dense(code)
            if n >= low:
                counts, by_class, kept = _tally(owner[starts], code, first.size, label, n_classes, min_documents)
                parts.append((counts, by_class, _spell(word, starts[first[kept]], n, high)))
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return cls(
                empty, np.zeros((0, n_classes), dtype=np.int64), tuple(vocabulary), np.zeros((0, high), np.int64)
            )
        return cls(
            documents=np.concatenate([documents for documents, _, _ in parts]),
            by_class=np.concatenate([by_class for _, by_class, _ in parts]),
            words=tuple(vocabulary),
            spelling=np.concatenate([spelling for _, _, spelling in parts]),
        )

    def names(self) -> np.ndarray:
        """Each kept n-gram as a string (words joined by one space), an object array."""
        words = self.words
        return np.array([" ".join(words[i] for i in row if i >= 0) for row in self.spelling.tolist()], dtype=object)


def _tally(
    owner: np.ndarray, code: np.ndarray, n_codes: int, label: np.ndarray, n_classes: int, min_documents: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Document counts, per-class document counts and codes of the n-grams in ``min_documents`` documents.

    Arrays of one value per occurrence are the memory at a million documents (40 million occurrences: 320 MB
    each), so they are updated in place and dropped as soon as they are used."""
    base = max(1, n_codes)
    pairs = owner.astype(np.int64)  # (document, n-gram) as one int64
    pairs *= base
    pairs += code
    pairs = _distinct(pairs)  # each (document, n-gram) once
    gram = pairs % base
    pairs //= base  # now the documents
    counts = np.bincount(gram, minlength=n_codes)
    kept = np.flatnonzero(counts >= min_documents)
    present = counts[gram] >= min_documents
    if not present.all():
        gram, pairs = gram[present], pairs[present]
    del present
    row = np.zeros(n_codes, dtype=np.int64)
    row[kept] = np.arange(kept.size)
    np.take(row, gram, out=gram)  # each occurrence's kept row, then its (row, class) cell
    gram *= n_classes
    np.take(label, pairs, out=pairs)
    gram += pairs
    del pairs
    by_class = np.bincount(gram, minlength=kept.size * n_classes).reshape(kept.size, n_classes)
    return counts[kept], by_class, kept


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending (sorted in place, then compared: for integers, faster than ``numpy.unique``)."""
    values.sort()
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


def _dense(code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes renumbered ``0 .. distinct - 1`` in order of first occurrence (a hash table: linear time), and the
    position of each number's first occurrence."""
    numbers, _ = pd.factorize(code, sort=False)
    numbers = numbers.astype(np.int64, copy=False)
    return numbers, _first_occurrences(numbers)


def _first_occurrences(numbers: np.ndarray) -> np.ndarray:
    """Where each number of a sequence numbered by first occurrence first appears: where it first exceeds every
    number before it."""
    if not numbers.size:
        return np.zeros(0, dtype=np.int64)
    seen = np.maximum.accumulate(numbers)
    return np.flatnonzero(np.concatenate(([True], numbers[1:] > seen[:-1])))


def _spell(word: np.ndarray, starts: np.ndarray, n: int, high: int) -> np.ndarray:
    """The word ids of the n-grams starting at ``starts``: one row each, -1 past the n-th word."""
    spelling = np.full((starts.size, high), -1, dtype=np.int64)
    for j in range(n):
        spelling[:, j] = word[starts + j]
    return spelling
