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
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
from sklearn.utils.validation import check_is_fitted

from pfungst.audit.features.corpus import CorpusRows, corpus_rows
from pfungst.audit.features.corpus_counts import Level, NgramAnalyzer, columns_of, corpus_counts
from pfungst.audit.features.texts import as_texts
from pfungst.errors import ConfigError

__all__ = ["NgramFeatures"]

Weighting = Literal["tf", "tfidf", "presence"]
_LEVELS = ("word", "gpt2")
_WEIGHTINGS = ("tf", "tfidf", "presence")


def _as_texts(X: Any) -> list[str]:
    return as_texts(X, "n-gram", "document")


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

    def _analyzer(self, ngram_range: tuple[int, int]) -> NgramAnalyzer:
        return NgramAnalyzer(self.level, ngram_range, self.lowercase, self.paper_compatible)

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
        shared = corpus_counts(X.corpus, self._analyzer(ngram_range))
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
        return self._binarised(columns_of(rows, columns).astype(np.float64))

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
            shared = corpus_counts(rows.corpus, self._analyzer(self._check_params()))
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
