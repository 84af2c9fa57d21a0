"""Pacchiardi et al. 2024's nine readability measures: their formulas on NLTK Punkt / Treebank tokens and syllapy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pfungst.audit.features.paper_readability import (
    PAPER_READABILITY_FEATURES,
    PaperReadabilityFeatures,
    paper_readability_available,
)
from pfungst.audit.features.readability import ReadabilityFeatures
from pfungst.errors import ConfigError

pytestmark = pytest.mark.skipif(not paper_readability_available(), reason="needs pip install 'pfungst[paper]'")

TEXT = "The cat saw the dog. The dog didn't see Dr. Smith's extraordinary cat!"


def _row(text: str) -> dict[str, float]:
    features = PaperReadabilityFeatures().fit([text])
    return dict(zip(features.get_feature_names_out(), features.transform([text])[0], strict=True))


def test_nine_measures_by_hand_on_a_known_text() -> None:
    import syllapy

    row = _row(TEXT)
    # Punkt knows "Dr." as an abbreviation: 2 sentences. Treebank splits "didn't" -> "did" "n't" and "Smith's" ->
    # "Smith" "'s"; only alphabetic tokens stay, case kept ("The" and "the" are two types).
    # "Dr." stays one token with its period, which is not alphabetic, so it is dropped.
    words = ["The", "cat", "saw", "the", "dog", "The", "dog", "did", "see", "Smith", "extraordinary", "cat"]
    n = len(words)
    syllables = [syllapy.count(word) for word in words]
    poly, mono = sum(s >= 3 for s in syllables), sum(s == 1 for s in syllables)
    counts = {word: words.count(word) for word in set(words)}
    spectrum = {i: sum(1 for c in counts.values() if c == i) for i in set(counts.values())}
    expected = {
        "flesch_reading_ease": 206.835 - 1.015 * n / 2 - 84.6 * sum(syllables) / n,
        "gunning_fog": 0.4 * (n / 2 + 100 * poly / n),
        "smog_c": 0.9986 * math.sqrt(poly * 30 / 2 + 5) + 2.8795,
        "forcast": 20 - mono * 15 / n,
        "scrabble_measure": sum(sum(_SCRABBLE[c.lower()] for c in word) for word in words) / n,
        "word_count": n,
        "mean_sentence_length": n / 2,
        "type_token_ratio": len(counts) / n,
        "yules_k_variant": (sum(v * i * i for i, v in spectrum.items()) - n * n) / n**3,
    }
    assert n == 12 and tuple(row) == PAPER_READABILITY_FEATURES
    assert row == pytest.approx(expected)


_SCRABBLE = {**dict.fromkeys("aeioulnstr", 1), **dict.fromkeys("dg", 2), **dict.fromkeys("bcmp", 3)}
_SCRABBLE |= {**dict.fromkeys("fhvwy", 4), "k": 5, "j": 8, "x": 8, "q": 10, "z": 10}


@pytest.mark.parametrize("text", ["", "   ", "!!! 42"])
def test_texts_without_words_give_zeros(text: str) -> None:
    row = _row(text)
    assert row["word_count"] == 0 and row["flesch_reading_ease"] == 0 and row["yules_k_variant"] == 0
    assert all(np.isfinite(value) for value in row.values())


def test_readability_paper_compatible_uses_the_paper_measures() -> None:
    features = ReadabilityFeatures(paper_compatible=True).fit([TEXT])
    assert tuple(features.get_feature_names_out()) == PAPER_READABILITY_FEATURES
    assert np.array_equal(features.transform([TEXT]), PaperReadabilityFeatures().fit([]).transform([TEXT]))
    assert ReadabilityFeatures().fit([TEXT]).transform([TEXT]).shape == (1, 8)  # the default is unchanged


def test_a_single_string_is_refused() -> None:
    with pytest.raises(ConfigError, match="not a single string"):
        PaperReadabilityFeatures().fit(TEXT)


def test_the_paper_protocol_warns_when_the_extra_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from pfungst.audit.feature_sets import get_feature_set
    from pfungst.audit.features import readability
    from pfungst.audit.inputs import ItemInputs
    from pfungst.audit.probe import ProbeConfig, run_probe
    from pfungst.data.synthetic import make_synthetic

    monkeypatch.setattr(readability, "paper_readability_available", lambda: False)
    inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 60), fields=("hypothesis",))
    config = ProbeConfig(protocol="pacchiardi2024", n_bootstrap=1, n_permutations=1)
    with pytest.warns(UserWarning, match="falling back to pfungst's own four textstat measures"):
        run_probe(get_feature_set("readability"), inputs, config)
