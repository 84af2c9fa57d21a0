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


def _tally(texts: list[str], ngram_range: tuple[int, int], classes: list[int], min_documents: int = 1) -> dict:
    """Per kept n-gram: (documents, per-class documents), from NgramPresence."""
    tally = NgramPresence.count(
        (tokenize(text) for text in texts), ngram_range, classes=classes, n_classes=2, min_documents=min_documents
    )
    rows = zip(tally.names().tolist(), tally.documents.tolist(), tally.by_class.tolist(), strict=True)
    return {name: (documents, tuple(by_class)) for name, documents, by_class in rows}


def _oracle(texts: list[str], ngram_range: tuple[int, int], classes: list[int], min_documents: int = 1) -> dict:
    """The same from the CountVectorizer's (document, n-gram) pairs."""
    found: dict[str, list[int]] = {}
    for document, gram in _vectorizer_pairs(texts, ngram_range):
        found.setdefault(gram, [0, 0])[classes[document]] += 1
    return {gram: (sum(c), tuple(c)) for gram, c in found.items() if sum(c) >= min_documents}


TEXTS = [
    "the cat is not on the mat",
    "",  # no tokens at all
    "cat",  # shorter than a 2-gram
    "the the the the",  # repeats count once per document
    "Don't go; it CANNOT rain. The cat, the cat!",
    "a b a b a b c",
]


CLASSES = [0, 1, 0, 1, 1, 0]


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2), (2, 2), (1, 3), (2, 4)])
@pytest.mark.parametrize("min_documents", [1, 2])
def test_counts_are_those_of_a_binary_count_vectorizer(ngram_range: tuple[int, int], min_documents: int) -> None:
    assert _tally(TEXTS, ngram_range, CLASSES, min_documents) == _oracle(TEXTS, ngram_range, CLASSES, min_documents)


def test_document_counts_count_each_document_once() -> None:
    counts = _tally(TEXTS, (1, 1), CLASSES)
    assert counts["the"] == (3, (1, 2)) and counts["cat"] == (3, (2, 1)) and counts["not"] == (2, (1, 1))


def test_no_tokens_anywhere_gives_no_ngrams() -> None:
    tally = NgramPresence.count([[], []], (1, 2), classes=[0, 1], n_classes=2)
    assert tally.documents.size == 0 and tally.by_class.shape == (0, 2) and tally.names().size == 0


def test_synthetic_counts_match_the_vectorizer_at_a_thousand_items() -> None:
    benchmark = make_synthetic("cue-word", 1000)
    texts, classes = [item.text for item in benchmark], [int(item.gold > 0) for item in benchmark]
    assert _tally(texts, (1, 2), classes, 5) == _oracle(texts, (1, 2), classes, 5)


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
