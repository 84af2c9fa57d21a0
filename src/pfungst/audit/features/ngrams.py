"""Word and GPT-2-token n-gram features (TF, TF-IDF, presence), as in Pacchiardi et al. 2024, corrected.

:class:`NgramFeatures` composes scikit-learn's ``CountVectorizer`` with a ``TfidfTransformer`` where needed:

- ``tf``: term frequency, each document's counts divided by its total count of vocabulary n-grams (l1-normalised
  rows that sum to 1; n-grams not seen in ``fit`` are not counted; a row with none stays 0);
- ``presence``: 1 if the n-gram occurs in the document, else 0;
- ``tfidf``: scikit-learn's ``TfidfTransformer`` defaults (smooth idf, l2-normalised rows).

``paper_compatible=True`` reproduces the published code, where ``tf`` ("simple_frequency") and ``presence`` both
return raw counts, and accents are stripped (``strip_accents="unicode"``) before tokenising; ``tfidf`` weights
the same either way.

Word level uses scikit-learn's default token pattern (words of two or more word characters). GPT-2 level lower-cases
first (as the paper did, unless ``lowercase=False``), tokenises with GPT-2's BPE and forms n-grams of tokens; a
column is named by its tokens in GPT-2's vocabulary spelling joined by spaces (``"Ġis Ġnot"``: ``Ġ`` stands for a
space, ``Ċ`` for a newline), which is unambiguous because symbols contain no spaces.

Example:
    >>> features = NgramFeatures(weighting="tf").fit(["not a cat", "a dog"])
    >>> features.get_feature_names_out().tolist()
    ['cat', 'dog', 'not']
    >>> features.transform(["not not cat"]).toarray().round(3).tolist()
    [[0.333, 0.0, 0.667]]
"""

from __future__ import annotations

import numbers
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer, strip_accents_unicode
from sklearn.utils.validation import check_is_fitted

from pfungst.audit.features.corpus import CorpusRows, TextCorpus, corpus_rows
from pfungst.audit.features.texts import as_texts
from pfungst.audit.gpt2 import gpt2_symbols
from pfungst.audit.ngram_presence import token_ids
from pfungst.errors import ConfigError

__all__ = ["NgramFeatures"]

Level = Literal["word", "gpt2"]
Weighting = Literal["tf", "tfidf", "presence"]
_LEVELS = ("word", "gpt2")
_WEIGHTINGS = ("tf", "tfidf", "presence")


class _NgramAnalyzer:
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
            f"_NgramAnalyzer(level={self.level!r}, ngram_range={self.ngram_range}, lowercase={self.lowercase}, "
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


def _as_texts(X: Any) -> list[str]:
    return as_texts(X, "n-gram", "document")


@dataclass(frozen=True)
class _CorpusCounts:
    """Every n-gram count of a whole corpus: columns in the sorted order ``CountVectorizer`` gives its vocabulary.

    Counts are held as float32 (whole numbers below 2**24 are exact there: half the memory of float64 for a
    million-document corpus) and handed out as float64, as ``CountVectorizer(dtype=float64)`` gives them."""

    terms: np.ndarray
    matrix: sp.csr_matrix

    def take(self, rows: np.ndarray, columns: np.ndarray | None = None) -> sp.csr_matrix:
        """The counts of documents ``rows`` (in that order) in ``columns`` (ascending; None: all), float64."""
        return _columns(self.matrix[rows], columns).astype(np.float64)


def _columns(counts: sp.csr_matrix, columns: np.ndarray | None) -> sp.csr_matrix:
    """``counts`` restricted to ``columns`` (ascending); all of them: the matrix itself, not a copy."""
    return counts if columns is None or columns.size == counts.shape[1] else counts[:, columns]


_CORPUS_COUNTS: OrderedDict[tuple[str, str], _CorpusCounts] = OrderedDict()
_CORPUS_COUNTS_KEPT = 4
"""Count matrices kept per process: the default sets read four (word and GPT-2 tokens, 1- and 2-grams), once in
their fold jobs and again for their final models."""
_CORPUS_COUNTS_ENTRIES = 50_000_000
"""Past this many stored counts in all (about 400 MB), only the two newest matrices are kept (a million items)."""


_CORPUS_COUNTS_LOCK = threading.Lock()
"""Fold jobs in threads share the cache: one computes a corpus's counts, the others wait for them."""


def _corpus_counts(corpus: TextCorpus, analyzer: _NgramAnalyzer) -> _CorpusCounts:
    """The n-gram counts of every text of ``corpus``, computed once per process and analyzer (then reused)."""
    with _CORPUS_COUNTS_LOCK:
        return _cached_corpus_counts(corpus, analyzer)


def _cached_corpus_counts(corpus: TextCorpus, analyzer: _NgramAnalyzer) -> _CorpusCounts:
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


def _vectorized(corpus: TextCorpus, analyzer: _NgramAnalyzer) -> _CorpusCounts:
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
    return _CorpusCounts(terms, matrix)


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


def _corpus_tokens(corpus: TextCorpus, analyzer: _NgramAnalyzer) -> _CorpusTokens:
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


def _counted_tokens(corpus: TextCorpus, analyzer: _NgramAnalyzer) -> _CorpusCounts:
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
        return _CorpusCounts(every, sp.csr_matrix((len(corpus), 0), dtype=np.float32))
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
    return _CorpusCounts(every[order], matrix)


def _stored() -> int:
    """Counts stored in every kept matrix."""
    return sum(counts.matrix.nnz for counts in _CORPUS_COUNTS.values())


class NgramFeatures(TransformerMixin, BaseEstimator):
    """Bag-of-n-grams features of each item's text, fitted on training folds only (unseen n-grams are ignored).

    Args:
        level: ``"word"`` (scikit-learn's default token pattern) or ``"gpt2"`` (GPT-2 BPE tokens).
        ngram_range: Smallest and largest n; ``(1, 2)`` is the paper's "2-grams" (1- and 2-grams together).
        weighting: ``"tf"`` (counts / document total), ``"tfidf"`` (scikit-learn defaults) or ``"presence"`` (0/1).
        min_df: Keep n-grams occurring in at least this many training documents (int) or this fraction (float).
            The paper used 2.
        lowercase: Lower-case the text first (both levels).
        paper_compatible: Reproduce the paper's code: ``tf`` and ``presence`` are raw counts; accents stripped.
        max_features: Keep only the most frequent n-grams (None: all).

    Attributes:
        terms_: The n-gram of each output column, in order.
        vectorizer_: The fitted ``CountVectorizer``; None when fitted on
            :class:`~pfungst.audit.features.corpus.CorpusRows` (the corpus's shared counts are sliced instead).
        corpus_columns_: With ``CorpusRows``: the corpus count columns kept, in output order; else None.
        weighter_: The fitted ``TfidfTransformer`` (``tf`` and ``tfidf``), or None for counts and presence.
    """

    def __init__(
        self,
        *,
        level: Level = "word",
        ngram_range: tuple[int, int] = (1, 1),
        weighting: Weighting = "tf",
        min_df: int | float = 1,
        lowercase: bool = True,
        paper_compatible: bool = False,
        max_features: int | None = None,
    ) -> None:
        self.level = level
        self.ngram_range = ngram_range
        self.weighting = weighting
        self.min_df = min_df
        self.lowercase = lowercase
        self.paper_compatible = paper_compatible
        self.max_features = max_features

    def _check_params(self) -> tuple[int, int]:
        if self.level not in _LEVELS:
            raise ConfigError(f"NgramFeatures: level must be one of {', '.join(_LEVELS)}, not {self.level!r}")
        if self.weighting not in _WEIGHTINGS:
            raise ConfigError(
                f"NgramFeatures: weighting must be one of {', '.join(_WEIGHTINGS)}, not {self.weighting!r}"
            )
        low, high = (int(n) for n in self.ngram_range)
        if not 1 <= low <= high:
            raise ConfigError(
                f"NgramFeatures: ngram_range must be (low, high) with 1 <= low <= high, not {self.ngram_range!r}"
            )
        return low, high

    def _binary(self) -> bool:
        return self.weighting == "presence" and not self.paper_compatible

    def _analyzer(self, ngram_range: tuple[int, int]) -> _NgramAnalyzer:
        return _NgramAnalyzer(self.level, ngram_range, self.lowercase, self.paper_compatible)

    def _make_vectorizer(self, ngram_range: tuple[int, int]) -> CountVectorizer:
        common: dict[str, Any] = {
            "min_df": self.min_df,
            "max_features": self.max_features,
            "binary": self._binary(),
            "dtype": np.float64,
        }
        return CountVectorizer(analyzer=self._analyzer(ngram_range), lowercase=False, **common)

    def _make_weighter(self) -> TfidfTransformer | None:
        if self.weighting == "tfidf":
            return TfidfTransformer()
        if self.weighting == "tf" and not self.paper_compatible:
            return TfidfTransformer(use_idf=False, norm="l1")
        return None

    def fit(self, X: Sequence[str], y: Any = None) -> NgramFeatures:
        """Learn the vocabulary (and idf weights) from the training texts ``X``."""
        self.fit_transform(X)
        return self

    def fit_transform(self, X: Sequence[str], y: Any = None, **fit_params: Any) -> sp.csr_matrix:
        """Fit on ``X`` and return its features (one pass over the texts).

        ``X`` may be :class:`~pfungst.audit.features.corpus.CorpusRows`, or the ``text`` column of a corpus frame
        (:func:`~pfungst.audit.features.corpus.corpus_rows`): the vocabulary is then the columns of the corpus's
        count matrix (counted once per process) that the training rows use, which is exactly the vocabulary
        ``CountVectorizer`` would learn from those texts, with the same columns in the same order.

        Raises:
            ConfigError: invalid parameters, input that is not a sequence of strings, or no n-gram left after
                ``min_df`` / ``max_features`` (the message suggests a lower ``min_df``).
        """
        ngram_range = self._check_params()
        rows = corpus_rows(X)
        if rows is not None and self.max_features is None:
            counts = self._fit_corpus_rows(rows, ngram_range)
        else:
            counts = self._fit_texts(_as_texts(X), ngram_range)
        self.weighter_ = self._make_weighter()
        if self.weighter_ is None:
            return counts
        return self.weighter_.fit_transform(counts).tocsr()

    def _fit_texts(self, texts: list[str], ngram_range: tuple[int, int]) -> sp.csr_matrix:
        """Count the training texts with a fresh ``CountVectorizer`` (the vocabulary is its own)."""
        self.vectorizer_: CountVectorizer | None = self._make_vectorizer(ngram_range)
        try:
            counts = self.vectorizer_.fit_transform(texts)
        except ValueError as exc:  # sklearn: empty vocabulary, or min_df pruned every term
            raise self._no_ngrams(len(texts), str(exc)) from exc
        self.terms_ = np.asarray(self.vectorizer_.get_feature_names_out(), dtype=object)
        self.corpus_columns_: np.ndarray | None = None
        counts = counts.tocsr()
        counts.sort_indices()  # canonical order, as the corpus path gives: the same sums to the last bit
        return counts

    def _fit_corpus_rows(self, X: CorpusRows, ngram_range: tuple[int, int]) -> sp.csr_matrix:
        """The training rows of the corpus counts, restricted to the n-grams they use (``min_df`` applied)."""
        shared = _corpus_counts(X.corpus, self._analyzer(ngram_range))
        rows = shared.matrix[X.rows]  # float32 until the columns are chosen: one float64 copy, of those only
        n_docs = len(X)
        low = self.min_df if isinstance(self.min_df, numbers.Integral) else self.min_df * n_docs
        document_frequency = np.bincount(rows.indices, minlength=shared.terms.size)
        columns = np.flatnonzero((document_frequency > 0) & (document_frequency >= low))
        if columns.size == 0:
            raise self._no_ngrams(n_docs, "After pruning, no terms remain. Try a lower min_df.")
        self.vectorizer_ = None
        self.corpus_columns_ = columns
        self.terms_ = shared.terms[columns]
        return self._binarised(_columns(rows, columns).astype(np.float64))

    def _binarised(self, counts: sp.csr_matrix) -> sp.csr_matrix:
        counts = counts.tocsr()
        if self._binary():
            counts.data[:] = 1.0
        return counts

    def _no_ngrams(self, n_texts: int, reason: str) -> ConfigError:
        return ConfigError(
            f"NgramFeatures({self.level}, min_df={self.min_df}) found no n-grams in {n_texts} training texts: {reason}"
        )

    def transform(self, X: Sequence[str]) -> sp.csr_matrix:
        """The features of ``X`` (sparse, one row per text); n-grams not seen in fit are ignored."""
        check_is_fitted(self, "terms_")
        counts = self._counts(X)
        if self.weighter_ is None:
            return counts
        return self.weighter_.transform(counts).tocsr()

    def _counts(self, X: Sequence[str]) -> sp.csr_matrix:
        if self.vectorizer_ is not None:
            return self.vectorizer_.transform(_as_texts(X)).tocsr()
        columns = self.corpus_columns_
        rows = corpus_rows(X) if columns is not None else None
        if rows is not None and columns is not None:
            shared = _corpus_counts(rows.corpus, self._analyzer(self._check_params()))
            if shared.terms.size > int(columns.max()) and np.array_equal(shared.terms[columns], self.terms_):
                return self._binarised(shared.take(rows.rows, columns))
        # Texts from elsewhere: count them against the fitted vocabulary.
        fixed = CountVectorizer(
            analyzer=self._analyzer(self._check_params()),
            lowercase=False,
            vocabulary={term: j for j, term in enumerate(self.terms_)},
            binary=self._binary(),
            dtype=np.float64,
        )
        return fixed.transform(_as_texts(X)).tocsr()

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The n-gram of each column: words joined by spaces, or GPT-2 symbols (``"Ġnot"``) joined by spaces."""
        check_is_fitted(self, "terms_")
        names: np.ndarray = self.terms_.copy()
        return names
