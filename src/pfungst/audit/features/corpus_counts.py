"""Every n-gram count of a whole corpus, computed once per process and analyzer, for the folds to slice.

A probe's n-gram sets fit on every training fold; the counts of each text do not change from fold to fold, so the
corpus is counted once (:func:`corpus_counts`) and :class:`~pfungst.audit.features.ngrams.NgramFeatures` takes the
rows and columns a fold uses. Word and GPT-2 token 1- and 2-grams are counted from token ids: each text is tokenised
once per tokenizer (shared by its 1-gram and 2-gram counts), a 2-gram is a pair of ids next to each other, and the
matrix is built row by row. The result is what ``CountVectorizer`` with the same analyzer gives (the same columns in
its sorted order, the same counts: the tests compare them), about five times faster; longer n-grams are counted by
``CountVectorizer`` itself.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer, strip_accents_unicode

from pfungst.audit.features.corpus import TextCorpus
from pfungst.audit.gpt2 import gpt2_symbols
from pfungst.audit.ngram_presence import token_ids

__all__ = ["CorpusCounts", "Level", "NgramAnalyzer", "columns_of", "corpus_counts"]

Level = Literal["word", "gpt2"]


class NgramAnalyzer:
    """CountVectorizer analyzer: a document's word or GPT-2 token n-grams, cached by text (a class, so it pickles).

    Probes fit the same texts again and again (every fold, every feature set, every seed); the n-grams of a text
    are computed once per setting and reused (for the last 16,384 texts: the corpus counts below already spare a
    large corpus a second pass, and a larger cache held hundreds of MB at a million items). The cache never changes
    a feature.
    """

    def __init__(self, level: Level, ngram_range: tuple[int, int], lowercase: bool, strip_accents: bool) -> None:
        self.level = level
        self.ngram_range = ngram_range
        self.lowercase = lowercase
        self.strip_accents = strip_accents

    def __call__(self, document: str) -> list[str]:
        return list(_document_grams(document, self.level, self.ngram_range, self.lowercase, self.strip_accents))

    def __repr__(self) -> str:
        return (
            f"NgramAnalyzer(level={self.level!r}, ngram_range={self.ngram_range}, lowercase={self.lowercase}, "
            f"strip_accents={self.strip_accents})"
        )


@lru_cache(maxsize=8)
def _word_analyzer(ngram_range: tuple[int, int], lowercase: bool, strip_accents: bool) -> Callable[[str], list[str]]:
    """scikit-learn's own word analyzer (default token pattern) for these settings."""
    strip = "unicode" if strip_accents else None
    analyzer: Callable[[str], list[str]] = CountVectorizer(
        lowercase=lowercase, ngram_range=ngram_range, strip_accents=strip
    ).build_analyzer()
    return analyzer


@lru_cache(maxsize=1 << 14)
def _document_grams(
    document: str, level: Level, ngram_range: tuple[int, int], lowercase: bool, strip_accents: bool
) -> tuple[str, ...]:
    if level == "word":
        return tuple(_word_analyzer(ngram_range, lowercase, strip_accents)(document))
    document = document.lower() if lowercase else document
    tokens = gpt2_symbols(strip_accents_unicode(document) if strip_accents else document)
    low, high = ngram_range
    grams = list(tokens) if low == 1 else []
    for n in range(max(low, 2), min(high, len(tokens)) + 1):
        grams += [" ".join(tokens[start : start + n]) for start in range(len(tokens) - n + 1)]
    return tuple(grams)


@dataclass(frozen=True)
class CorpusCounts:
    """Every n-gram count of a whole corpus: columns in the sorted order ``CountVectorizer`` gives its vocabulary.

    Counts are held as float32 (whole numbers below 2**24 are exact there: half the memory of float64 for a
    million-document corpus) and handed out as float64, as ``CountVectorizer(dtype=float64)`` gives them."""

    terms: np.ndarray
    matrix: sp.csr_matrix

    def take(self, rows: np.ndarray, columns: np.ndarray | None = None) -> sp.csr_matrix:
        """The counts of documents ``rows`` (in that order) in ``columns`` (ascending; None: all), float64."""
        return columns_of(self.matrix[rows], columns).astype(np.float64)


def columns_of(counts: sp.csr_matrix, columns: np.ndarray | None) -> sp.csr_matrix:
    """``counts`` restricted to ``columns`` (ascending); all of them: the matrix itself, not a copy."""
    return counts if columns is None or columns.size == counts.shape[1] else counts[:, columns]


_CORPUS_COUNTS: OrderedDict[tuple[str, str], CorpusCounts] = OrderedDict()
_CORPUS_COUNTS_KEPT = 4
"""Count matrices kept per process: the default sets read four (word and GPT-2 tokens, 1- and 2-grams), once in
their fold jobs and again for their final models."""
_CORPUS_COUNTS_ENTRIES = 50_000_000
"""Past this many stored counts in all (about 400 MB), only the two newest matrices are kept (a million items)."""


_CORPUS_COUNTS_LOCK = threading.Lock()
"""Fold jobs in threads share the cache: one computes a corpus's counts, the others wait for them."""


def corpus_counts(corpus: TextCorpus, analyzer: NgramAnalyzer) -> CorpusCounts:
    """The n-gram counts of every text of ``corpus``, computed once per process and analyzer (then reused)."""
    with _CORPUS_COUNTS_LOCK:
        return _cached_corpus_counts(corpus, analyzer)


def _cached_corpus_counts(corpus: TextCorpus, analyzer: NgramAnalyzer) -> CorpusCounts:
    key = (corpus.key, repr(analyzer))
    found = _CORPUS_COUNTS.get(key)
    if found is not None:
        _CORPUS_COUNTS.move_to_end(key)
        return found
    low, high = analyzer.ngram_range
    found = _counted_tokens(corpus, analyzer) if high <= 2 else _vectorized(corpus, analyzer)
    _CORPUS_COUNTS[key] = found
    while len(_CORPUS_COUNTS) > _CORPUS_COUNTS_KEPT or (len(_CORPUS_COUNTS) > 2 and _stored() > _CORPUS_COUNTS_ENTRIES):
        _CORPUS_COUNTS.popitem(last=False)
    return found


def _vectorized(corpus: TextCorpus, analyzer: NgramAnalyzer) -> CorpusCounts:
    """The corpus counted by ``CountVectorizer`` with ``analyzer`` (n-grams longer than 2)."""
    vectorizer = CountVectorizer(analyzer=analyzer, lowercase=False, dtype=np.float32)
    try:
        matrix = vectorizer.fit_transform(corpus.texts).tocsr()
    except ValueError:  # no n-gram in any text: every fold fails the same way, with the usual message
        matrix = sp.csr_matrix((len(corpus), 0), dtype=np.float32)
        terms = np.asarray([], dtype=object)
    else:
        terms = np.asarray(vectorizer.get_feature_names_out(), dtype=object)
    matrix.sort_indices()
    return CorpusCounts(terms, matrix)


@dataclass(frozen=True)
class _CorpusTokens:
    """Every text's tokens as ids into ``vocabulary`` (in order of first appearance), text after text."""

    vocabulary: np.ndarray
    ids: np.ndarray
    """int32: 4 bytes a token (160 MB for a million texts of 40 words)."""
    lengths: np.ndarray
    """Per text, its number of tokens."""


_CORPUS_TOKENS: OrderedDict[tuple[str, str, bool, bool], _CorpusTokens] = OrderedDict()
_CORPUS_TOKENS_KEPT = 2
"""Tokenised corpora kept per process: words and GPT-2 tokens, each read by its 1-gram and its 2-gram counts."""


def _corpus_tokens(corpus: TextCorpus, analyzer: NgramAnalyzer) -> _CorpusTokens:
    """The tokens of every text of ``corpus`` as the analyzer's 1-grams give them (tokenised once per process)."""
    key = (corpus.key, analyzer.level, analyzer.lowercase, analyzer.strip_accents)
    found = _CORPUS_TOKENS.get(key)
    if found is None:
        level, lowercase, strip = analyzer.level, analyzer.lowercase, analyzer.strip_accents
        vocabulary, ids, lengths = token_ids(
            _document_grams(text, level, (1, 1), lowercase, strip) for text in corpus.texts
        )
        found = _CorpusTokens(np.asarray(list(vocabulary), dtype=object), ids, lengths)
        _CORPUS_TOKENS[key] = found
        while len(_CORPUS_TOKENS) > _CORPUS_TOKENS_KEPT:
            _CORPUS_TOKENS.popitem(last=False)
    _CORPUS_TOKENS.move_to_end(key)
    return found


def _counted_tokens(corpus: TextCorpus, analyzer: NgramAnalyzer) -> CorpusCounts:
    """The counts ``CountVectorizer(analyzer=analyzer)`` gives (the same columns, in its sorted order, the same
    counts), from the corpus's token ids: 1-grams are the ids, 2-grams the pairs of ids next to each other in a
    text, joined as the analyzer joins them (``"a b"``). Tokens hold no spaces, so each joined 2-gram is one pair.

    Each part's entries come text by text already, so its matrix is built row by row (no sort of the whole corpus's
    entries; int32 column numbers), and the parts are added."""
    tokens = _corpus_tokens(corpus, analyzer)
    low, high = analyzer.ngram_range
    terms: list[np.ndarray] = []
    parts: list[tuple[np.ndarray, np.ndarray]] = []  # per part: each entry's key, each text's number of entries
    if low == 1:
        terms.append(tokens.vocabulary)
        parts.append((tokens.ids, tokens.lengths))
    if high == 2:
        size, ids = tokens.vocabulary.size, tokens.ids
        follows = np.ones(max(ids.size - 1, 0), dtype=bool)  # token i + 1 is in token i's text
        ends = np.cumsum(tokens.lengths)[:-1] - 1
        follows[ends[(ends >= 0) & (ends < follows.size)]] = False
        codes = ids[:-1][follows].astype(np.int64) * size + ids[1:][follows]
        pairs, inverse = np.unique(codes, return_inverse=True)
        del codes
        first, second = np.divmod(pairs, size)
        vocabulary = tokens.vocabulary
        terms.append(
            np.asarray([f"{vocabulary[a]} {vocabulary[b]}" for a, b in zip(first, second, strict=True)], dtype=object)
        )
        offset = sum(part.size for part in terms[:-1])
        parts.append((inverse.reshape(-1) + offset, np.maximum(tokens.lengths - 1, 0)))
    every = np.concatenate(terms) if terms else np.asarray([], dtype=object)
    if every.size == 0:
        return CorpusCounts(every, sp.csr_matrix((len(corpus), 0), dtype=np.float32))
    order = np.asarray(sorted(range(every.size), key=every.__getitem__), dtype=np.int64)
    column = np.empty(every.size, dtype=np.int32)
    column[order] = np.arange(every.size, dtype=np.int32)
    matrix: sp.csr_matrix | None = None
    for keys, per_text in parts:
        indptr = np.zeros(per_text.size + 1, dtype=np.int64)
        np.cumsum(per_text, out=indptr[1:])
        part = sp.csr_matrix(
            (np.ones(keys.size, dtype=np.float32), column[keys], indptr), shape=(len(corpus), every.size)
        )
        part.sum_duplicates()  # sorts each row's columns, then adds repeats
        matrix = part if matrix is None else matrix + part
    assert matrix is not None
    matrix.sort_indices()
    return CorpusCounts(every[order], matrix)


def _stored() -> int:
    """Counts stored in every kept matrix."""
    return sum(counts.matrix.nnz for counts in _CORPUS_COUNTS.values())
