"""The probe's encoder: one scikit-learn ``Pipeline`` from a fold's input frame to the matrix a classifier fits.

:func:`make_encoder` composes, for one feature set::

    Pipeline([
        ("field", InputField(field, feature_set=name)),
        ("transform", transformer),
        ("scale", FeatureScaler(...)),
        ("select", BestFeatures(k=...) or "passthrough"),
    ])

:class:`InputField` hands the transformer what the feature set's level reads of the input frame: the ``text``
column at item level (a pandas Series of strings), the option table's columns but ``is_gold`` at option level
(:data:`~pfungst.audit.inputs.OPTION_FIELDS`). It is what a ``ColumnTransformer`` of one transformer would do,
without its per-call checks and dispatch, which a probe would pay in each of a few hundred folds. :class:`FeatureScaler`
(crossfit protocol) makes one ``C`` mean the same for every feature: ``StandardScaler`` for a dense output such as
readability scores, ``MaxAbsScaler`` for a sparse one such as n-grams (each column divided by its largest absolute
value: sparsity kept, presence columns unchanged, term frequencies and TF-IDF weights brought to 0..1); a
transformer with a ``standardize`` parameter (option features) scales its own columns and is left as it is.
:class:`BestFeatures` (pacchiardi2024 protocol only) keeps the ``min(k, n_features)`` best columns by ANOVA F.

The whole encoder is fitted on training items only. Labels reach it only when it selects features: the crossfit
protocol shares a fold's fitted features with its inner validation split, so they must not have seen labels.

Example:
    >>> import numpy as np
    >>> from pfungst.audit.feature_sets import get_feature_set
    >>> from pfungst.audit.features.corpus import TextCorpus
    >>> encoder = make_encoder(get_feature_set("1-grams_presence"), EncoderSettings({}, scale_sparse=True))
    >>> frame = TextCorpus(("a cat sat", "a dog sat", "no cat")).frame(np.arange(3))
    >>> X = fit_encoder(encoder, frame, np.array([0, 1, 0]))
    >>> encoder.get_feature_names_out().tolist(), X.shape
    (['cat', 'dog', 'no', 'sat'], (3, 4))
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from sklearn.utils.validation import check_is_fitted

from pfungst.audit.feature_sets import FeatureSet
from pfungst.audit.features.corpus import TEXT_FIELD
from pfungst.audit.inputs import OPTION_FIELDS

__all__ = [
    "BestFeatures",
    "EncoderSettings",
    "FeatureScaler",
    "InputField",
    "accepted_overrides",
    "encoded_feature_set",
    "feature_field",
    "fit_encoder",
    "make_encoder",
]


@dataclass(frozen=True)
class EncoderSettings:
    """How to turn a feature set into an encoder."""

    overrides: Mapping[str, Any]
    """Keyword arguments for ``feature_set.make`` (only those the transformer accepts)."""
    scale_dense: bool = True
    """Standardise dense feature matrices (readability) unless the transformer has its own ``standardize``
    parameter (option features)."""
    scale_sparse: bool = False
    """Divide each column of a sparse feature matrix (n-grams) by its largest absolute value (``MaxAbsScaler``)."""
    select_k: int = 0
    """Keep the ``min(select_k, n_features)`` best features by ANOVA F (0: keep all)."""


def accepted_overrides(feature_set: FeatureSet, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The ``overrides`` that ``feature_set``'s transformer takes as parameters (``min_df`` only for n-grams)."""
    params = feature_set.make().get_params()
    return {key: value for key, value in overrides.items() if key in params}


class FeatureScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale one feature set's columns so that one ``C`` means the same for every feature.

    Args:
        dense: Standardise a dense matrix (``StandardScaler``).
        sparse: Divide each column of a sparse matrix by its largest absolute value (``MaxAbsScaler``; sparsity
            and 0/1 columns kept).

    Attributes:
        scaler_: The fitted scaler for the matrix seen in ``fit``, or None (the matrix passes unchanged).
        n_features_in_: The number of columns seen in ``fit``.
    """

    def __init__(self, *, dense: bool = True, sparse: bool = False) -> None:
        self.dense = dense
        self.sparse = sparse

    def fit(self, X: Any, y: Any = None) -> FeatureScaler:
        """Choose the scaler for ``X``'s kind (dense or sparse) and learn its statistics."""
        self.fit_transform(X)
        return self

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Fit on ``X`` and return it scaled (a new matrix: the transformer's own output is never changed)."""
        self.n_features_in_ = int(X.shape[1])
        scaler: StandardScaler | MaxAbsScaler | None = None
        if sp.issparse(X) and self.sparse:
            scaler = _fitted_max_abs(X) if X.format == "csr" else MaxAbsScaler().fit(X)
        elif sp.issparse(X):
            scaler = None
        elif self.dense:
            scaler = StandardScaler().fit(X)
        self.scaler_ = scaler
        return self.transform(X)

    def transform(self, X: Any) -> Any:
        """``X`` scaled with the statistics from ``fit``."""
        check_is_fitted(self, "n_features_in_")
        if isinstance(self.scaler_, MaxAbsScaler) and sp.issparse(X) and X.format == "csr":
            return _divided_by_column(X, self.scaler_.scale_)
        return X if self.scaler_ is None else self.scaler_.transform(X)


def _fitted_max_abs(X: Any) -> MaxAbsScaler:
    """``MaxAbsScaler().fit(X)`` for a CSR matrix, in one pass over its stored values: the same ``max_abs_`` (the
    largest absolute value per column, implicit zeros included, NaN ignored) and ``scale_`` (1 where that is below
    ten machine epsilons), without the column-major copy the scaler makes (most of a fold's encoding time)."""
    dtype = X.dtype if X.dtype.kind == "f" else np.dtype(np.float64)  # the scaler's own conversion of integers
    max_abs = np.zeros(X.shape[1], dtype=dtype)
    np.fmax.at(max_abs, X.indices, np.abs(X.data))
    scale = max_abs.copy()
    scale[scale < 10 * np.finfo(dtype).eps] = 1.0
    scaler = MaxAbsScaler()
    scaler.max_abs_, scaler.scale_ = max_abs, scale
    scaler.n_samples_seen_, scaler.n_features_in_ = int(X.shape[0]), int(X.shape[1])
    return scaler


def _divided_by_column(X: Any, scale: np.ndarray) -> Any:
    """``X`` (CSR) with each column divided by ``scale``, as ``MaxAbsScaler.transform`` computes it, value for value:
    a new values array over ``X``'s own index arrays (``MaxAbsScaler`` copies the whole matrix and then allocates
    another array of its size: a fold's largest transient)."""
    data = np.take(1.0 / scale, X.indices)
    data *= X.data
    return type(X)((data, X.indices, X.indptr), shape=X.shape)


def _anova_f(X: Any, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``f_classif``, quietly: constant columns get F = NaN and are simply not selected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.filterwarnings("ignore", message="Features .* are constant")
        scores: tuple[np.ndarray, np.ndarray] = f_classif(X, y)
    return scores


class BestFeatures(TransformerMixin, BaseEstimator):
    """The ``min(k, n_features)`` columns with the highest ANOVA F against the labels (``SelectKBest(f_classif)``).

    Args:
        k: How many columns to keep at most.

    Attributes:
        selector_: The fitted ``SelectKBest``.
    """

    def __init__(self, *, k: int = 20000) -> None:
        self.k = k

    def fit(self, X: Any, y: Any) -> BestFeatures:
        """Score every column of ``X`` against ``y`` and keep the best."""
        self.selector_ = SelectKBest(_anova_f, k=min(int(self.k), int(X.shape[1]))).fit(X, y)
        return self

    def transform(self, X: Any) -> Any:
        """The kept columns of ``X``."""
        check_is_fitted(self, "selector_")
        return self.selector_.transform(X)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The names of the kept columns."""
        check_is_fitted(self, "selector_")
        names: np.ndarray = self.selector_.get_feature_names_out(input_features)
        return names


def feature_field(feature_set: FeatureSet) -> str | list[str]:
    """The input frame's column(s) ``feature_set`` reads: ``text`` (item level), else the option columns."""
    return TEXT_FIELD if feature_set.level == "item" else list(OPTION_FIELDS)


class InputField(TransformerMixin, BaseEstimator):
    """The column (a name: a Series) or columns (a list: a DataFrame) of the input frame that a feature set reads.

    Args:
        field: What :func:`feature_field` gives for the feature set.
        feature_set: The feature set's name, for messages (nothing is done with it).
    """

    def __init__(self, field: str | list[str] = TEXT_FIELD, *, feature_set: str = "") -> None:
        self.field = field
        self.feature_set = feature_set

    def fit(self, X: Any, y: Any = None) -> InputField:
        """Nothing to learn; checks that ``X`` has the field."""
        self._check(X)
        return self

    def transform(self, X: Any) -> Any:
        """``X[field]`` (a frame's column keeps the frame's ``attrs``: the rows it presents)."""
        self._check(X)
        return X[self.field]

    def _check(self, X: Any) -> None:
        fields = [self.field] if isinstance(self.field, str) else list(self.field)
        missing = [name for name in fields if name not in getattr(X, "columns", ())]
        if missing:
            raise ValueError(f"feature set {self.feature_set!r} reads column(s) {missing} the input frame lacks")

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The field's column name(s): what the transformer after it is handed."""
        return np.asarray([self.field] if isinstance(self.field, str) else list(self.field), dtype=object)


def make_encoder(feature_set: FeatureSet, settings: EncoderSettings) -> Pipeline:
    """An unfitted encoder for ``feature_set`` (see the module docstring)."""
    transformer = feature_set.make(**settings.overrides)
    # A transformer with a ``standardize`` parameter (option features) scales its own columns.
    scale_dense = settings.scale_dense and "standardize" not in transformer.get_params()
    return Pipeline(
        [
            ("field", InputField(feature_field(feature_set), feature_set=feature_set.name)),
            ("transform", transformer),
            ("scale", FeatureScaler(dense=scale_dense, sparse=settings.scale_sparse)),
            ("select", BestFeatures(k=settings.select_k) if settings.select_k else "passthrough"),
        ]
    )


def fit_encoder(encoder: Pipeline, X: Any, y: np.ndarray) -> Any:
    """Fit ``encoder`` on the training frame ``X`` and return its features; ``y`` reaches it only when it selects
    features (the crossfit protocol's inner split shares the fitted features, which must not have seen labels)."""
    selects = encoder.named_steps["select"] != "passthrough"
    return encoder.fit_transform(X, y if selects else None)


def encoded_feature_set(encoder: Pipeline) -> str:
    """The name of the feature set an encoder of :func:`make_encoder` encodes."""
    return str(encoder.named_steps["field"].feature_set)
