"""The encoder pipeline: its matrices against references computed here by hand on small planted benchmarks."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline

from pfungst.audit.encoder import EncoderSettings, encoded_feature_set, make_encoder
from pfungst.audit.feature_sets import FeatureSet, get_feature_set
from pfungst.audit.features.corpus import TextCorpus, corpus_rows
from pfungst.audit.features.ngrams import NgramFeatures
from pfungst.audit.features.readability import ReadabilityFeatures
from pfungst.audit.inputs import ItemInputs, OptionTable, option_rows
from pfungst.audit.probe_tasks import ItemTask, OptionTask
from pfungst.data.synthetic import make_synthetic

CROSSFIT = EncoderSettings({}, scale_dense=True, scale_sparse=True)
TOKEN = re.compile(r"(?u)\b\w\w+\b")
"""Words as the word-level n-gram sets define them: two or more word characters, lower-cased first."""


def _planted(seed: int, n_items: int = 60) -> tuple[ItemTask, np.ndarray, np.ndarray]:
    """A cue-word benchmark (a planted word tells the label), its task, and a shuffled 3:1 train/test split."""
    task = ItemTask(ItemInputs.from_benchmark(make_synthetic("cue-word", n_items, seed=seed)))
    order = np.random.default_rng(seed).permutation(n_items)
    return task, order[: n_items * 3 // 4], order[n_items * 3 // 4 :]


def _reference_counts(texts: list[str], vocabulary: list[str]) -> np.ndarray:
    """Word counts of ``texts`` over ``vocabulary``, counted here with a regular expression."""
    counts = [Counter(TOKEN.findall(text.lower())) for text in texts]
    return np.array([[row[word] for word in vocabulary] for row in counts], dtype=float)


def _texts(task: ItemTask, items: np.ndarray) -> list[str]:
    return [task.corpus.texts[i] for i in items]


def test_presence_encoder_gives_the_zero_one_word_indicators_of_the_training_vocabulary(seed: int) -> None:
    task, train, test = _planted(seed)
    encoder = make_encoder(get_feature_set("1-grams_presence"), CROSSFIT)
    X_train = task.encode(encoder, train, fit=True).X
    X_test = task.encode(encoder, test, fit=False).X
    vocabulary = sorted({word for text in _texts(task, train) for word in TOKEN.findall(text.lower())})
    assert encoder.get_feature_names_out().tolist() == vocabulary
    assert sp.issparse(X_train) and sp.issparse(X_test)
    # Presence columns are already 0/1: dividing by each column's largest value changes nothing.
    assert np.array_equal(X_train.toarray(), (_reference_counts(_texts(task, train), vocabulary) > 0).astype(float))
    assert np.array_equal(X_test.toarray(), (_reference_counts(_texts(task, test), vocabulary) > 0).astype(float))


def test_term_frequency_encoder_divides_by_row_totals_then_by_each_columns_training_maximum(seed: int) -> None:
    task, train, test = _planted(seed)
    encoder = make_encoder(get_feature_set("1-grams_tf"), CROSSFIT)
    X_train = task.encode(encoder, train, fit=True).X.toarray()
    X_test = task.encode(encoder, test, fit=False).X.toarray()
    vocabulary = encoder.get_feature_names_out().tolist()
    counts = _reference_counts(_texts(task, train), vocabulary)
    frequencies = counts / counts.sum(axis=1, keepdims=True)
    column_max = frequencies.max(axis=0)
    assert np.allclose(X_train, frequencies / column_max, rtol=1e-12, atol=0)
    test_counts = _reference_counts(_texts(task, test), vocabulary)
    totals = test_counts.sum(axis=1, keepdims=True)
    expected = np.divide(test_counts, totals, out=np.zeros_like(test_counts), where=totals > 0) / column_max
    assert np.allclose(X_test, expected, rtol=1e-12, atol=0)


def test_readability_encoder_standardises_each_column_with_training_statistics(seed: int) -> None:
    task, train, test = _planted(seed)
    encoder = make_encoder(get_feature_set("readability"), CROSSFIT)
    X_train = task.encode(encoder, train, fit=True).X
    X_test = task.encode(encoder, test, fit=False).X
    raw = ReadabilityFeatures().fit(_texts(task, train))
    train_raw, test_raw = raw.transform(_texts(task, train)), raw.transform(_texts(task, test))
    mean, std = train_raw.mean(axis=0), train_raw.std(axis=0)
    std[std == 0] = 1.0
    assert isinstance(X_train, np.ndarray) and X_train.shape == train_raw.shape
    assert np.allclose(X_train, (train_raw - mean) / std, rtol=1e-9, atol=1e-12)
    assert np.allclose(X_test, (test_raw - mean) / std, rtol=1e-9, atol=1e-12)


def test_option_encoder_keeps_the_sets_own_scaling_and_never_reads_the_gold_flag(seed: int) -> None:
    table = OptionTable.from_benchmark(make_synthetic("longest-option", 40, seed=seed))
    task = OptionTask(table)
    train, test = np.arange(30), np.arange(30, 40)
    encoder = make_encoder(get_feature_set("options"), CROSSFIT)
    X_train = task.encode(encoder, train, fit=True).X
    X_test = task.encode(encoder, test, fit=False).X
    # The reference: the set's own transformer on plain frames (no whole-table work reused), gold flags scrambled.
    features = get_feature_set("options").make()
    frames = [table.subset(train).frame, table.subset(test).frame]
    for frame in frames:
        frame["is_gold"] = ~frame["is_gold"]
    assert np.array_equal(X_train, features.fit_transform(frames[0]))
    assert np.array_equal(X_test, features.transform(frames[1]))
    assert encoder.get_feature_names_out().tolist() == features.get_feature_names_out().tolist()


def test_paper_protocol_encoder_keeps_the_k_columns_of_highest_anova_f(seed: int) -> None:
    task, train, _ = _planted(seed, n_items=80)
    settings = EncoderSettings({"min_df": 2, "paper_compatible": True}, scale_dense=False, select_k=5)
    encoder = make_encoder(get_feature_set("1-grams_presence"), settings)
    X = task.encode(encoder, train, fit=True).X
    texts, y = _texts(task, train), task.y[train]
    words = sorted({word for text in texts for word in TOKEN.findall(text.lower())})
    in_two = (_reference_counts(texts, words) > 0).sum(axis=0) >= 2
    vocabulary = np.array(words)[in_two]
    counts = _reference_counts(texts, vocabulary.tolist())  # paper_compatible presence: raw counts
    groups = [counts[y == label] for label in np.unique(y)]
    between = sum(len(g) * (g.mean(axis=0) - counts.mean(axis=0)) ** 2 for g in groups) / (len(groups) - 1)
    within = sum(((g - g.mean(axis=0)) ** 2).sum(axis=0) for g in groups) / (len(y) - len(groups))
    with np.errstate(divide="ignore", invalid="ignore"):
        F = np.nan_to_num(between / within, nan=-np.inf)
    kept = np.isin(vocabulary, encoder.get_feature_names_out())
    assert X.shape == (train.size, 5) and kept.sum() == 5
    assert F[kept].min() >= F[~kept].max()
    assert np.array_equal(X.toarray(), counts[:, kept])


def test_encoder_hands_each_feature_set_its_field_and_never_the_answer() -> None:
    encoder = make_encoder(get_feature_set("2-grams_tfidf"), CROSSFIT)
    assert isinstance(encoder, Pipeline) and list(encoder.named_steps) == ["field", "transform", "scale", "select"]
    field = encoder.named_steps["field"]
    assert (field.feature_set, field.field) == ("2-grams_tfidf", "text") and encoded_feature_set(
        encoder
    ) == field.feature_set
    assert encoder.named_steps["transform"].get_params()["ngram_range"] == (1, 2)
    option_field = make_encoder(get_feature_set("options"), CROSSFIT).named_steps["field"].field
    assert "is_gold" not in option_field and "option" in option_field
    frame = TextCorpus(("a cat",)).frame([0]).rename(columns={"text": "question"})
    with pytest.raises(ValueError, match=r"feature set '2-grams_tfidf' reads column\(s\) \['text'\]"):
        encoder.fit(frame)


def test_a_sparse_feature_set_without_zeros_is_scaled_by_column_maximum_not_standardised() -> None:
    """Every training text holds every word: the n-gram matrix stores every entry, and is still divided by each
    column's largest value, as sparse n-grams are (standardising would give -1 and 1)."""
    encoder = make_encoder(get_feature_set("1-grams_tf"), CROSSFIT)
    texts = ("cat dog dog", "cat cat dog")
    task = ItemTask(ItemInputs(("a", "b"), texts, np.array([0, 1]), ("x", "y"), np.array([2, 2])))
    X = task.encode(encoder, np.arange(2), fit=True).X
    assert np.allclose(X.toarray() if sp.issparse(X) else X, [[0.5, 1.0], [1.0, 0.5]], rtol=1e-12, atol=0)


class _RecordsLabels(TransformerMixin, BaseEstimator):
    """A text feature set that remembers whether ``fit`` saw labels."""

    def fit(self, X: Any, y: Any = None) -> _RecordsLabels:
        self.saw_labels_ = y is not None
        return self

    def transform(self, X: Any) -> np.ndarray:
        return np.array([[len(text)] for text in X], dtype=float)


def test_crossfit_features_are_fitted_without_labels_and_paper_selection_with_them(seed: int) -> None:
    task, train, _ = _planted(seed)
    plugin = FeatureSet("recorder", "", "item", f"{__name__}:_RecordsLabels")
    crossfit = make_encoder(plugin, CROSSFIT)
    task.encode(crossfit, train, fit=True)
    assert not crossfit.named_steps["transform"].saw_labels_
    paper = make_encoder(plugin, EncoderSettings({}, scale_dense=False, select_k=1))
    task.encode(paper, train, fit=True)
    assert paper.named_steps["transform"].saw_labels_


def test_whole_corpus_counts_are_not_used_for_texts_a_step_has_changed() -> None:
    corpus = TextCorpus(("a cat", "a dog", "not a cat"))
    column = corpus.frame([2, 0])["text"]
    assert corpus_rows(column) is not None and corpus_rows(column).rows.tolist() == [2, 0]
    shouted = column.str.replace("cat", "bird")
    assert shouted.attrs and corpus_rows(shouted) is None
    assert NgramFeatures(weighting="presence").fit(shouted).get_feature_names_out().tolist() == ["bird", "not"]


def test_whole_table_option_columns_are_not_used_for_rows_a_step_has_changed() -> None:
    table = OptionTable.from_benchmark(make_synthetic("longest-option", 6, seed=0))
    frame = table.rows(np.array([4, 1])).input_frame()
    assert option_rows(frame) is not None
    changed = frame.assign(option=frame["option"].str.upper())
    assert changed.attrs and option_rows(changed) is None


@pytest.mark.parametrize("name", ["1-grams_presence", "2-grams_tfidf_gpt2", "readability"])
def test_encoder_gives_the_same_matrix_from_the_corpus_frame_as_from_a_plain_frame(name: str, seed: int) -> None:
    task, train, test = _planted(seed)
    shared, plain = make_encoder(get_feature_set(name), CROSSFIT), make_encoder(get_feature_set(name), CROSSFIT)
    task.encode(shared, train, fit=True)
    X_shared = task.encode(shared, test, fit=False).X
    X_plain = plain.fit(pd.DataFrame({"text": _texts(task, train)})).transform(
        pd.DataFrame({"text": _texts(task, test)})
    )
    assert sp.issparse(X_shared) == sp.issparse(X_plain)
    as_array = (lambda X: X.toarray()) if sp.issparse(X_shared) else np.asarray
    assert np.array_equal(as_array(X_shared), as_array(X_plain))
    assert np.array_equal(shared.get_feature_names_out(), plain.get_feature_names_out())
