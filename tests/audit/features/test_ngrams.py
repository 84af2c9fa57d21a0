"""N-gram features: real TF and presence, the paper's raw-count variant, GPT-2 token n-grams."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from pfungst.audit.feature_sets import PAPER_FEATURE_SETS, get_feature_set
from pfungst.audit.features.ngrams import NgramFeatures
from pfungst.errors import ConfigError

TEXTS = ["The cat is not on the mat.", "A dog is on the mat", "The cat and the dog", "Nothing at all"]


def _column(features: NgramFeatures, name: str) -> int:
    return list(features.get_feature_names_out()).index(name)


def test_tf_is_counts_over_document_total() -> None:
    features = NgramFeatures(weighting="tf").fit(TEXTS)
    X = features.transform(TEXTS).toarray()
    assert np.allclose(X.sum(axis=1), 1.0)
    assert X[0, _column(features, "the")] == pytest.approx(2 / 7)  # the cat is not on the mat: 7 words


def test_presence_is_zero_or_one() -> None:
    features = NgramFeatures(weighting="presence").fit(TEXTS)
    X = features.transform(TEXTS).toarray()
    assert set(np.unique(X)) == {0.0, 1.0}
    assert X[0, _column(features, "the")] == 1.0
    assert X[0].sum() == 6  # six word types in the first text


@pytest.mark.parametrize("weighting", ["tf", "presence"])
def test_paper_compatible_tf_and_presence_are_raw_counts(weighting: str) -> None:
    features = NgramFeatures(weighting=weighting, paper_compatible=True).fit(TEXTS)  # type: ignore[arg-type]
    X = features.transform(TEXTS).toarray()
    assert X[0, _column(features, "the")] == 2.0
    assert X[0].sum() == 7  # seven words


def test_tfidf_is_sklearn_default_and_unchanged_by_paper_compatibility() -> None:
    expected = TfidfVectorizer().fit(TEXTS).transform(TEXTS).toarray()
    for paper_compatible in (False, True):
        features = NgramFeatures(weighting="tfidf", paper_compatible=paper_compatible).fit(TEXTS)
        assert np.allclose(features.transform(TEXTS).toarray(), expected)


def test_min_df_drops_rare_ngrams() -> None:
    names = NgramFeatures(min_df=2).fit(TEXTS).get_feature_names_out().tolist()
    assert names == ["cat", "dog", "is", "mat", "on", "the"]


def test_bigrams_include_unigrams() -> None:
    names = NgramFeatures(ngram_range=(1, 2)).fit(["not a cat"]).get_feature_names_out().tolist()
    assert names == ["cat", "not", "not cat"]  # sklearn's token pattern drops one-letter words


def test_unseen_words_in_transform_are_ignored() -> None:
    features = NgramFeatures(weighting="presence").fit(TEXTS[:2])
    X = features.transform(["zebra cat", "zebra"])
    assert X.shape == (2, len(features.get_feature_names_out()))
    assert X.toarray()[0].sum() == 1 and X.toarray()[1].sum() == 0
    assert "zebra" not in features.get_feature_names_out()


def test_tf_of_document_with_only_unseen_words_is_zero_not_nan() -> None:
    X = NgramFeatures(weighting="tf").fit(TEXTS).transform(["zebra", ""]).toarray()
    assert np.all(X == 0)


def test_gpt2_level_gives_lowercased_token_ngrams() -> None:
    features = NgramFeatures(level="gpt2", ngram_range=(1, 2), weighting="presence").fit(["It is NOT so"])
    names = features.get_feature_names_out().tolist()
    assert names == sorted(["it", "Ġis", "Ġnot", "Ġso", "it Ġis", "Ġis Ġnot", "Ġnot Ġso"])


def test_gpt2_level_keeps_case_when_asked_and_counts_punctuation() -> None:
    features = NgramFeatures(level="gpt2", lowercase=False, weighting="tf").fit(["Not!", "not"])
    assert features.get_feature_names_out().tolist() == ["!", "Not", "not"]
    # "Not! Not!" is Not, !, ĠNot, !: ĠNot was not seen in fit, so the known total is 3
    assert np.allclose(features.transform(["Not! Not!"]).toarray(), [[2 / 3, 1 / 3, 0.0]])


def test_gpt2_tf_rows_sum_to_one() -> None:
    X = NgramFeatures(level="gpt2", ngram_range=(1, 2)).fit(TEXTS).transform(TEXTS)
    assert np.allclose(X.sum(axis=1), 1.0)


def test_output_is_sparse_deterministic_and_picklable() -> None:
    features = NgramFeatures(level="gpt2", ngram_range=(1, 2), weighting="tfidf").fit(TEXTS)
    first = features.transform(TEXTS)
    again = NgramFeatures(level="gpt2", ngram_range=(1, 2), weighting="tfidf").fit(TEXTS).transform(TEXTS)
    restored = pickle.loads(pickle.dumps(features))
    assert sp.issparse(first)
    assert (first != again).nnz == 0
    assert (restored.transform(TEXTS) != first).nnz == 0
    assert restored.get_feature_names_out().tolist() == features.get_feature_names_out().tolist()


def test_max_features_keeps_the_most_frequent() -> None:
    names = NgramFeatures(max_features=1).fit(TEXTS).get_feature_names_out().tolist()
    assert names == ["the"]


def test_pruning_every_ngram_says_so() -> None:
    with pytest.raises(ConfigError, match=r"min_df=5\) found no n-grams in 4 training texts"):
        NgramFeatures(min_df=5).fit(TEXTS)


def test_invalid_parameters_and_inputs_are_refused() -> None:
    with pytest.raises(ConfigError, match="weighting must be one of tf, tfidf, presence, not 'count'"):
        NgramFeatures(weighting="count").fit(TEXTS)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="level must be one of word, gpt2"):
        NgramFeatures(level="char").fit(TEXTS)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="ngram_range"):
        NgramFeatures(ngram_range=(2, 1)).fit(TEXTS)
    with pytest.raises(ConfigError, match="not a single string"):
        NgramFeatures().fit("a text")
    with pytest.raises(ConfigError, match="document 1 is int"):
        NgramFeatures().fit(["a text", 3])  # type: ignore[list-item]


@pytest.mark.parametrize("name", [name for name in PAPER_FEATURE_SETS if name != "readability"])
def test_paper_ngram_sets_fit_and_name_their_columns(name: str) -> None:
    features = get_feature_set(name).make()
    X = features.fit_transform(TEXTS)
    assert X.shape == (4, len(features.get_feature_names_out()))
    assert np.isfinite(X.toarray()).all()


CORPUS = (
    "The cat is not on the mat.",
    "A dog sat on the mat, not the cat.",
    "Never mind the dog.",
    "The cat sat; the dog did not.",
    "Épée fencing is not boxing.",
    "Nothing here.",
)


@pytest.mark.parametrize("name", [name for name in PAPER_FEATURE_SETS if name != "readability"])
@pytest.mark.parametrize("overrides", [{}, {"min_df": 2, "paper_compatible": True}, {"min_df": 0.4}])
def test_corpus_rows_give_the_same_features_as_the_texts_themselves(name: str, overrides: dict) -> None:
    from pfungst.audit.features.corpus import TextCorpus

    corpus, train, test = TextCorpus(CORPUS), [4, 0, 2, 3], [5, 1]
    plain = get_feature_set(name).make(**overrides)
    shared = get_feature_set(name).make(**overrides)
    X_plain = plain.fit_transform([CORPUS[i] for i in train])
    X_shared = shared.fit_transform(corpus.rows(train))
    assert shared.get_feature_names_out().tolist() == plain.get_feature_names_out().tolist()
    assert (X_shared != X_plain).nnz == 0
    expected = plain.transform([CORPUS[i] for i in test])
    assert (shared.transform(corpus.rows(test)) != expected).nnz == 0
    assert (shared.transform([CORPUS[i] for i in test]) != expected).nnz == 0  # plain texts after a corpus fit


def test_corpus_rows_with_no_ngram_left_name_min_df() -> None:
    from pfungst.audit.features.corpus import TextCorpus

    with pytest.raises(ConfigError, match="found no n-grams in 2 training texts.*min_df"):
        NgramFeatures(min_df=2).fit(TextCorpus(("a cat", "one dog")).rows([0, 1]))


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.text(alphabet=st.sampled_from(list("ab cdÉé'.\n")), max_size=30), min_size=1, max_size=8),
    level=st.sampled_from(["word", "gpt2"]),
    ngram_range=st.sampled_from([(1, 1), (1, 2), (2, 2)]),
    paper_compatible=st.booleans(),
)
def test_corpus_counts_from_token_ids_are_count_vectorizers(
    texts: list[str], level: str, ngram_range: tuple[int, int], paper_compatible: bool
) -> None:
    """The corpus's n-gram counts, built from each text's token ids once, have CountVectorizer's columns, order and
    counts (any text: empty, repeated tokens, accents, punctuation)."""
    from pfungst.audit.features.corpus import TextCorpus

    params = {"level": level, "ngram_range": ngram_range, "weighting": "presence", "paper_compatible": paper_compatible}
    plain, shared = NgramFeatures(**params), NgramFeatures(**params)
    try:
        X_plain = plain.fit_transform(texts)
    except ConfigError:  # no n-gram at all: the corpus path says so too
        with pytest.raises(ConfigError, match="found no n-grams"):
            shared.fit(TextCorpus(texts).rows(range(len(texts))))
        return
    X_shared = shared.fit_transform(TextCorpus(texts).rows(range(len(texts))))
    assert shared.get_feature_names_out().tolist() == plain.get_feature_names_out().tolist()
    assert (X_shared != X_plain).nnz == 0


def test_corpus_counts_of_real_benchmark_texts_are_count_vectorizers(shared_data: Path) -> None:
    from pfungst.audit.features.corpus import TextCorpus

    lines = (shared_data / "mnli" / "dev_matched.tsv").read_text(encoding="utf-8").splitlines()
    texts = [line[:800] for line in lines[1:1500]]
    for level in ("word", "gpt2"):
        params = {"level": level, "ngram_range": (1, 2), "weighting": "tf"}
        plain, shared = NgramFeatures(**params), NgramFeatures(**params)
        X_plain = plain.fit_transform(texts)
        X_shared = shared.fit_transform(TextCorpus(texts).rows(range(len(texts))))
        assert shared.get_feature_names_out().tolist() == plain.get_feature_names_out().tolist()
        assert abs(X_shared - X_plain).max() == 0
