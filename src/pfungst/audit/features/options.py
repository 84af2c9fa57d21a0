"""Option-level features for per-item choices: what a test-wise guesser sees in the options themselves.

Both transformers take an :class:`~pfungst.audit.inputs.OptionTable` (or its ``frame``: one row per item and
option, columns ``item``, ``position``, ``option``, ``question``, ``n_options``) and return one row per option, in
the frame's order, for a model that chooses among an item's own options (a conditional logit). They never read
``is_gold``: that column is the answer.

:class:`OptionFeatures` (the ``options`` feature set), per option:

- ``length_chars``, ``length_words``, ``length_tokens`` (GPT-2 tokens) and each divided by the mean of its item's
  options (``relative_length_*``; 1 when every option of the item is empty);
- ``length_rank``: rank by characters within the item, 0 for the longest and 1 for the shortest (tied options share
  the better rank; 0 when the item has one option); ``length_ties``: how many other options of the item have the
  same number of characters; ``is_longest`` and ``is_shortest`` (by characters; every tied option gets the flag);
- ``position_A``, ``position_B``, ...: one-hot position, as many as the widest item seen in ``fit`` (a later,
  wider item's extra positions get all zeros), and ``position_last``;
- ``question_overlap`` (shared lower-cased word types with the question) and ``question_jaccard`` (their Jaccard
  index), both 0 when the question is empty (the choices-only baseline);
- ``negation_words``: occurrences of not, no, never, none, nothing, cannot, neither, nor, without and ``n't``;
- ``all_of_the_above``, ``none_of_the_above``, ``both``: 0/1 flags.

With ``standardize=True`` (the default) the count and length columns are centred and scaled with means and standard
deviations from ``fit`` only; the 0/1 columns are left as they are.

:class:`OptionNgramFeatures` (``options_1-grams_presence``) is the choices-only n-gram baseline: word n-gram presence
of the option text alone.
"""

from __future__ import annotations

import re
import string
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

from pfungst.audit.features.ngrams import NgramFeatures
from pfungst.audit.gpt2 import count_gpt2_tokens
from pfungst.audit.inputs import option_rows
from pfungst.errors import ConfigError

__all__ = ["NEGATION_WORDS", "OptionFeatures", "OptionNgramFeatures"]

NEGATION_WORDS: frozenset[str] = frozenset(
    {"not", "no", "never", "none", "nothing", "cannot", "neither", "nor", "without"}
)
"""Words counted as negations; any word ending in ``n't`` (``don't``, ``isn't``) counts too."""

_REQUIRED = ("item", "position", "option", "question", "n_options")
_WORD = re.compile(r"\w+(?:'\w+)*")
_ALL_ABOVE = re.compile(r"\ball (?:of )?(?:the )?(?:above|of these|these)\b")
_NONE_ABOVE = re.compile(r"\bnone (?:of )?(?:the )?(?:above|of these|these)\b")
_BOTH = re.compile(r"\bboth\b")
_CONTINUOUS = (
    "length_chars",
    "length_words",
    "length_tokens",
    "relative_length_chars",
    "relative_length_words",
    "relative_length_tokens",
    "length_rank",
    "length_ties",
    "question_overlap",
    "question_jaccard",
    "negation_words",
)
_FLAGS = ("is_longest", "is_shortest", "all_of_the_above", "none_of_the_above", "both")


def _option_frame(X: Any) -> pd.DataFrame:
    """The option rows of ``X`` (an OptionTable or its frame), checked for the columns the features use."""
    frame = getattr(X, "frame", X)
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(f"option features take an OptionTable or its frame (a DataFrame), not {type(X).__name__}")
    missing = [column for column in _REQUIRED if column not in frame.columns]
    if missing:
        raise ConfigError(
            f"option frame lacks column(s) {', '.join(missing)} (it has: "
            f"{', '.join(map(str, frame.columns))}); build it with OptionTable.from_benchmark"
        )
    return frame


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def _length_features(frame: pd.DataFrame, words: list[list[str]]) -> pd.DataFrame:
    """Lengths, relative lengths, rank, ties and longest / shortest flags (by characters) of each option."""
    options = frame["option"].astype(str)
    group = frame["item"].to_numpy()
    lengths = pd.DataFrame(
        {
            "length_chars": options.str.len().to_numpy(dtype=float),
            "length_words": np.fromiter((len(w) for w in words), dtype=float, count=len(words)),
            "length_tokens": count_gpt2_tokens(options.tolist()).astype(float),
        },
        index=frame.index,
    )
    grouped = lengths.groupby(group)
    means = grouped.transform("mean")
    for column in list(lengths.columns):
        relative = lengths[column] / means[column].where(means[column] > 0)
        lengths[f"relative_{column}"] = relative.fillna(1.0)
    chars = lengths["length_chars"]
    by_item = chars.groupby(group)
    size = by_item.transform("size")
    rank = by_item.rank(method="min", ascending=False) - 1
    lengths["length_rank"] = (rank / (size - 1).where(size > 1)).fillna(0.0)
    lengths["length_ties"] = chars.groupby([group, chars.to_numpy()]).transform("size") - 1
    lengths["is_longest"] = (chars == by_item.transform("max")).astype(float)
    lengths["is_shortest"] = (chars == by_item.transform("min")).astype(float)
    return lengths


def _text_features(frame: pd.DataFrame, words: list[list[str]]) -> pd.DataFrame:
    """Overlap with the question, negation count and "all / none of the above" / "both" flags of each option."""
    question_words: dict[str, set[str]] = {}
    overlap, jaccard = [], []
    for question, option_words in zip(frame["question"].astype(str), words, strict=True):
        if question not in question_words:
            question_words[question] = set(_words(question))
        asked, offered = question_words[question], set(option_words)
        shared = len(asked & offered)
        union = len(asked | offered)
        overlap.append(float(shared) if asked else 0.0)
        jaccard.append(shared / union if asked and union else 0.0)
    lowered = frame["option"].astype(str).str.lower().str.replace("\u2019", "'", regex=False)
    return pd.DataFrame(
        {
            "question_overlap": overlap,
            "question_jaccard": jaccard,
            "negation_words": [float(sum(w in NEGATION_WORDS or w.endswith("n't") for w in ws)) for ws in words],
            "all_of_the_above": lowered.str.contains(_ALL_ABOVE).astype(float).to_numpy(),
            "none_of_the_above": lowered.str.contains(_NONE_ABOVE).astype(float).to_numpy(),
            "both": lowered.str.contains(_BOTH).astype(float).to_numpy(),
        },
        index=frame.index,
    )


_SHARED_KEY = "options:fit-free-columns"


def _fit_free_columns(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The continuous and the 0/1 flag columns of every row of ``frame`` (positions apart: their width is fitted)."""
    words = [_words(text) for text in frame["option"].astype(str)]
    table = pd.concat([_length_features(frame, words), _text_features(frame, words)], axis=1)
    return table[list(_CONTINUOUS)].to_numpy(dtype=float), table[list(_FLAGS)].to_numpy(dtype=float)


def _position_names(n_positions: int) -> list[str]:
    letters = string.ascii_uppercase
    return [f"position_{letters[k] if k < 26 else k + 1}" for k in range(n_positions)] + ["position_last"]


def _position_features(frame: pd.DataFrame, n_positions: int) -> np.ndarray:
    positions = frame["position"].to_numpy(dtype=int)
    one_hot = (positions[:, None] == np.arange(n_positions)[None, :]).astype(float)
    last = (positions == frame["n_options"].to_numpy(dtype=int) - 1).astype(float)
    return np.column_stack([one_hot, last])


class OptionFeatures(TransformerMixin, BaseEstimator):
    """Length, position, overlap and wording features of each option (never the gold flag).

    Args:
        standardize: Centre and scale the count and length columns with statistics from ``fit``.
        positions: Include the one-hot position columns (default). ``False`` makes a probe that cannot see where
            an option sits (the ``options_no_position`` set), so what it finds is a content cue, not a file-layout
            artifact such as "the gold is always listed first".

    Attributes:
        n_positions_: The most options an item had in ``fit`` (the width of the one-hot position; 0 without
            ``positions``).
        scaler_: The ``StandardScaler`` of the continuous columns, or None without ``standardize``.
        feature_names_: The column names, in output order.
    """

    def __init__(self, *, standardize: bool = True, positions: bool = True) -> None:
        self.standardize = standardize
        self.positions = positions

    def _unscaled(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """The continuous columns and the 0/1 columns (flags, then positions) of ``X``'s rows, unscaled.

        For :class:`~pfungst.audit.inputs.OptionRows` (or an input frame that presents them, see
        :func:`~pfungst.audit.inputs.option_rows`) the fit-free columns are computed once on the whole table
        and taken by row (every option's features depend only on its own item's options).
        """
        frame = _option_frame(X)
        rows = option_rows(X)
        if rows is not None:
            whole = rows.source.shared.get(_SHARED_KEY)
            if whole is None:
                whole = rows.source.shared[_SHARED_KEY] = _fit_free_columns(rows.source.frame)
            # The memory layout a frame's own columns have, so every sum over rows is the same to the last bit.
            continuous, flags = (np.asfortranarray(columns[rows.source_rows]) for columns in whole)
        else:
            continuous, flags = _fit_free_columns(frame)
        if self.positions:
            flags = np.column_stack([flags, _position_features(frame, self.n_positions_)])
        return continuous, flags

    def fit(self, X: Any, y: Any = None) -> OptionFeatures:
        """Fix the position width and, with ``standardize``, learn the scaling from the training options ``X``.

        Raises:
            ConfigError: ``X`` is not an option table, lacks a column, or has no rows.
        """
        self._fit_features(X)
        return self

    def _fit_features(self, X: Any) -> np.ndarray:
        """Fix the columns, compute the training features once, learn the scaling; the scaled training features."""
        frame = _option_frame(X)
        if frame.empty:
            raise ConfigError("option features need at least one option row to fit")
        self.n_positions_ = int(max(frame["n_options"].max(), frame["position"].max() + 1)) if self.positions else 0
        position_names = _position_names(self.n_positions_) if self.positions else []
        self.feature_names_ = np.asarray([*_CONTINUOUS, *_FLAGS, *position_names], dtype=object)
        continuous, flags = self._unscaled(X)
        self.scaler_ = StandardScaler().fit(continuous) if self.standardize else None
        if self.scaler_ is not None:
            continuous = self.scaler_.transform(continuous)
        return np.column_stack([continuous, flags])

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> np.ndarray:
        """Fit on ``X`` and return its features, computing them once."""
        return self._fit_features(X)

    def transform(self, X: Any) -> np.ndarray:
        """The features of each option row of ``X`` (float array, rows in ``X``'s order)."""
        check_is_fitted(self, "feature_names_")
        frame = _option_frame(X)
        if frame.empty:
            return np.zeros((0, len(self.feature_names_)))
        continuous, flags = self._unscaled(X)
        if self.scaler_ is not None:
            continuous = self.scaler_.transform(continuous)
        return np.column_stack([continuous, flags])

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The column names: lengths, ranks, overlap and negation counts, flags, then ``position_A``..."""
        check_is_fitted(self, "feature_names_")
        return self.feature_names_.copy()


class OptionNgramFeatures(TransformerMixin, BaseEstimator):
    """The choices-only baseline: 0/1 word n-grams of each option's text, without the question.

    Args:
        ngram_range: Smallest and largest n.
        min_df: Keep n-grams in at least this many training options (int) or this fraction (float).

    Attributes:
        ngrams_: The fitted :class:`~pfungst.audit.features.ngrams.NgramFeatures` (word level, presence).
    """

    def __init__(self, *, ngram_range: tuple[int, int] = (1, 1), min_df: int | float = 1) -> None:
        self.ngram_range = ngram_range
        self.min_df = min_df

    def fit(self, X: Any, y: Any = None) -> OptionNgramFeatures:
        """Learn the n-gram vocabulary of the training options."""
        options = _option_frame(X)["option"].astype(str).tolist()
        self.ngrams_ = NgramFeatures(
            level="word", ngram_range=self.ngram_range, weighting="presence", min_df=self.min_df
        ).fit(options)
        return self

    def transform(self, X: Any) -> sp.csr_matrix:
        """0/1 n-gram indicators of each option row of ``X`` (sparse, rows in ``X``'s order)."""
        check_is_fitted(self, "ngrams_")
        return self.ngrams_.transform(_option_frame(X)["option"].astype(str).tolist())

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The word n-gram of each column."""
        check_is_fitted(self, "ngrams_")
        return self.ngrams_.get_feature_names_out()
