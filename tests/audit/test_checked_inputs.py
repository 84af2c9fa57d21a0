"""A probe checks its components and features once, with clear messages, before fitting without per-call checks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import InvalidParameterError

from pfungst.audit.checked_inputs import check_finite, check_parameters
from pfungst.audit.encoder import EncoderSettings, make_encoder
from pfungst.audit.feature_sets import FeatureSet
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError


class _GapsForCats(TransformerMixin, BaseEstimator):
    """A text feature set whose value is NaN for every text that mentions a cat."""

    def fit(self, X: Any, y: Any = None) -> _GapsForCats:
        return self

    def transform(self, X: Any) -> np.ndarray:
        return np.array([[np.nan if "cat" in text else float(len(text))] for text in X])


def test_a_feature_set_that_gives_nan_is_named_in_a_config_error() -> None:
    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 120, seed=0), fields=("hypothesis",))
    inputs = replace(inputs, texts=tuple(f"{text} cat" if i % 7 == 0 else text for i, text in enumerate(inputs.texts)))
    gaps = FeatureSet("gaps", "", "item", f"{__name__}:_GapsForCats")
    with pytest.raises(ConfigError, match=r"feature set 'gaps' gave \d+ value\(s\) that are NaN or infinite"):
        run_probe(gaps, inputs, ProbeConfig(n_bootstrap=50, n_permutations=50))


def test_check_finite_counts_the_values_and_rows_of_a_sparse_matrix() -> None:
    X = sp.csr_matrix(np.array([[1.0, np.inf, 0.0], [0.0, 0.0, 2.0], [np.nan, np.nan, 1.0]]))
    with pytest.raises(ConfigError, match=r"'words' gave 3 value\(s\) that are NaN or infinite \(2 of 3 rows\)"):
        check_finite(X, "words")
    check_finite(sp.csr_matrix(np.eye(3)), "words")  # finite: nothing raised


def test_invalid_transformer_parameters_are_rejected_with_scikit_learns_message() -> None:
    words = FeatureSet("bad-words", "", "item", "sklearn.feature_extraction.text:CountVectorizer", {"min_df": -3})
    encoder = make_encoder(words, EncoderSettings({}))
    with pytest.raises(InvalidParameterError, match="The 'min_df' parameter of CountVectorizer must be"):
        check_parameters([encoder])
