"""N-gram presence counted with integer arrays: the same (document, n-gram) pairs as a binary CountVectorizer."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from pfungst import load
from pfungst.audit.cues import CueConfig, _ngrams, find_cues, tokenize
from pfungst.audit.ngram_presence import NgramPresence
from pfungst.data.synthetic import make_synthetic


def _vectorizer_pairs(texts: list[str], ngram_range: tuple[int, int]) -> set[tuple[int, str]]:
    """The oracle: (document, n-gram) pairs of scikit-learn's binary CountVectorizer on the cue tokens."""
    analyzer = partial(_ngrams, ngram_range=ngram_range, expand_negations=True)
    vectorizer = CountVectorizer(analyzer=analyzer, binary=True)
    matrix = vectorizer.fit_transform(texts).tocoo()
    names = vectorizer.get_feature_names_out()
    return {(int(row), str(names[col])) for row, col in zip(matrix.row, matrix.col, strict=True)}


def _pairs(texts: list[str], ngram_range: tuple[int, int]) -> set[tuple[int, str]]:
    presence = NgramPresence.count((tokenize(text) for text in texts), ngram_range)
    names = presence.names(presence.gram)
    return {(int(d), str(name)) for d, name in zip(presence.document, names, strict=True)}


TEXTS = [
    "the cat is not on the mat",
    "",  # no tokens at all
    "cat",  # shorter than a 2-gram
    "the the the the",  # repeats count once per document
    "Don't go; it CANNOT rain. The cat, the cat!",
    "a b a b a b c",
]


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2), (2, 2), (1, 3), (2, 4)])
def test_pairs_are_those_of_a_binary_count_vectorizer(ngram_range: tuple[int, int]) -> None:
    assert _pairs(TEXTS, ngram_range) == _vectorizer_pairs(TEXTS, ngram_range)


def test_document_counts_count_each_document_once() -> None:
    presence = NgramPresence.count([tokenize(text) for text in TEXTS], (1, 1))
    counts = dict(
        zip(presence.names(range(presence.n_grams)).tolist(), presence.document_counts().tolist(), strict=True)
    )
    assert counts["the"] == 3 and counts["cat"] == 3 and counts["not"] == 2


def test_no_tokens_anywhere_gives_no_ngrams() -> None:
    presence = NgramPresence.count([[], []], (1, 2))
    assert presence.n_grams == 0 and presence.document_counts().size == 0 and presence.names([]).size == 0


def test_synthetic_pairs_match_the_vectorizer_at_a_thousand_items() -> None:
    texts = [item.text for item in make_synthetic("cue-word", 1000)]
    assert _pairs(texts, (1, 2)) == _vectorizer_pairs(texts, (1, 2))


def test_mnli_label_cue_table_is_that_of_the_count_vectorizer(shared_data: Path) -> None:
    """The whole tested table (every row, not only the top) as the CountVectorizer path computed it."""
    mnli = load(shared_data / "mnli" / "dev_matched.tsv")
    config = CueConfig(fields=("hypothesis",), top_k=0)
    frame = find_cues(mnli, config=config).to_frame()
    texts = [item.fields["hypothesis"] for item in mnli]
    oracle = _vectorizer_pairs(texts, config.ngram_range)
    count: dict[str, int] = {}
    for _, gram in oracle:
        count[gram] = count.get(gram, 0) + 1
    kept = {gram for gram, value in count.items() if value >= config.min_count}
    assert set(frame["cue"]) == kept
    gold = np.array([item.gold for item in mnli])
    label_of = dict(enumerate(mnli.labels))
    hits: dict[tuple[str, str], int] = {}
    for document, gram in oracle:
        if gram in kept:
            key = (gram, label_of[int(gold[document])])
            hits[key] = hits.get(key, 0) + 1
    for row in frame.itertuples():
        assert row.count == count[row.cue]
        assert row.hits == hits.get((row.cue, row.label), 0)
