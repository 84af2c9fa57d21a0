"""Readability and diversity features: textstat's formulas, Yule's K by hand, no NaN on degenerate texts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import textstat
from hypothesis import given, settings
from hypothesis import strategies as st

from pfungst.audit.features import readability
from pfungst.audit.features.corpus import TextCorpus
from pfungst.audit.features.readability import PAPER_FEATURES, ReadabilityFeatures, yules_k
from pfungst.errors import ConfigError

SENTENCE = "The cat saw the dog and the bird. The dog ran away quickly. Nobody understood the extraordinary situation."


def _row(text: str, **params: bool) -> dict[str, float]:
    features = ReadabilityFeatures(**params).fit([text])
    return dict(zip(features.get_feature_names_out(), features.transform([text])[0], strict=True))


def test_classic_formulas_match_textstat() -> None:
    row = _row(SENTENCE)
    assert row["flesch_reading_ease"] == textstat.flesch_reading_ease(SENTENCE)
    assert row["gunning_fog"] == textstat.gunning_fog(SENTENCE)
    assert row["smog_index"] == textstat.smog_index(SENTENCE)
    assert row["smog_index"] > 0  # three sentences: textstat computes SMOG


def test_yules_k_matches_hand_computation() -> None:
    # "the cat saw the dog and the bird": N = 8 words, V_1 = 5 (cat saw dog and bird), V_3 = 1 (the)
    words = ["the", "cat", "saw", "the", "dog", "and", "the", "bird"]
    assert yules_k(words) == pytest.approx(1e4 * (5 + 9 - 8) / 8**2)
    # case-insensitive inside the transformer; punctuation is dropped
    assert _row("The cat saw the dog and THE bird.")["yules_k"] == pytest.approx(937.5)


def test_diversity_and_length_columns_on_a_known_text() -> None:
    row = _row(SENTENCE)
    words = SENTENCE.lower().replace(".", "").split()  # 18 words, 14 types ("the" x5, "dog" x2)
    assert row["word_count"] == len(words) == 18
    assert row["type_token_ratio"] == pytest.approx(len(set(words)) / 18)
    assert row["mean_sentence_length"] == pytest.approx(18 / 3)
    monosyllables = sum(textstat.syllable_count(word) < 2 for word in words)
    assert row["forcast_grade"] == pytest.approx(20 - monosyllables * 150 / 18 / 10)


def test_paper_compatible_without_the_extra_warns_and_gives_the_four_textstat_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(readability, "paper_readability_available", lambda: False)
    with pytest.warns(UserWarning, match=r"pip install 'pfungst\[paper\]'.*cannot reproduce"):
        features = ReadabilityFeatures(paper_compatible=True).fit([SENTENCE])
    assert tuple(features.get_feature_names_out()) == PAPER_FEATURES
    full = ReadabilityFeatures().fit([SENTENCE]).transform([SENTENCE])
    assert np.array_equal(features.transform([SENTENCE]), full[:, :4])


@pytest.mark.parametrize("text", ["", "Hello", "!!!", "   \n", "Word."])
def test_empty_and_one_word_texts_give_finite_documented_values(text: str) -> None:
    row = _row(text)
    assert all(np.isfinite(value) for value in row.values())
    assert row["yules_k"] == 0.0
    if not text.strip(" !\n"):
        assert row == {
            "flesch_reading_ease": 206.84,
            "gunning_fog": 0.0,
            "smog_index": 0.0,
            "yules_k": 0.0,
            "forcast_grade": 20.0,
            "type_token_ratio": 0.0,
            "mean_sentence_length": 0.0,
            "word_count": 0.0,
        }
    else:
        assert row["word_count"] == 1.0 and row["type_token_ratio"] == 1.0


def test_output_is_dense_one_row_per_text() -> None:
    X = ReadabilityFeatures().fit([]).transform([SENTENCE, "", "Short one."])
    assert isinstance(X, np.ndarray) and X.shape == (3, 8)
    assert ReadabilityFeatures().fit([]).transform([]).shape == (0, 8)


def test_a_single_string_is_refused() -> None:
    with pytest.raises(ConfigError, match="not a single string"):
        ReadabilityFeatures().fit(SENTENCE)


def _textstat_scores(text: str) -> tuple[float, float, float]:
    return (textstat.flesch_reading_ease(text), textstat.gunning_fog(text), textstat.smog_index(text))


def test_classic_formulas_equal_textstat_on_real_benchmark_texts(shared_data: Path) -> None:
    """The per-word cached formulas give textstat's values to the last bit on every question and option of real
    benchmarks (punctuation, numbers, contractions, several sentences, non-ASCII)."""
    texts = []
    for path in sorted(shared_data.glob("*/*.jsonl"))[:12]:
        for line in path.read_text(encoding="utf-8").splitlines()[:300]:
            texts.append(line[:1500])  # the raw JSON lines: every kind of punctuation and quoting
    assert len(texts) > 1000
    for text in texts:
        assert readability._textstat_scores(text) == _textstat_scores(text), text[:80]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeiouy xyzAEÉİß'‘’=_-.!?,;:\n0123")), max_size=120))
def test_classic_formulas_equal_textstat_on_any_text(text: str) -> None:
    assert readability._textstat_scores(text) == _textstat_scores(text)


def test_corpus_rows_are_computed_once_and_equal_the_plain_texts() -> None:
    corpus = TextCorpus((SENTENCE, "A short one.", "", "Another text, with words!"))
    features = ReadabilityFeatures().fit(corpus.rows([0, 1]))
    via_corpus = features.transform(corpus.frame([3, 0, 2])["text"])
    plain = features.transform([corpus.texts[3], corpus.texts[0], corpus.texts[2]])
    assert np.array_equal(via_corpus, plain)
    assert np.array_equal(features.transform(corpus.rows([1])), features.transform(["A short one."]))
