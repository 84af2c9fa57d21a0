from __future__ import annotations

from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.neubaroco import NeuBarocoReader
from pfungst.errors import ConfigError, ReaderError

_NLI_HEADER = "premises_ja\thypothesis_ja\tpremises_en\thypothesis_en\tgold\tfigure\n"


def test_naloma_is_detected_as_375_nli_items_with_9_duplicate_prompts(shared_data: Path) -> None:
    path = shared_data / "neubaroco" / "NeuBAROCO_NALOMA.tsv"
    assert NeuBarocoReader().sniff(path)
    assert detect_format(path) == "neubaroco"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "neubaroco"
    assert len(benchmark) == 375
    assert benchmark.labels == ("entailment", "neutral", "contradiction")
    assert benchmark.gold_counts == {"entailment": 122, "neutral": 182, "contradiction": 71}
    assert benchmark.provenance.duplicate_texts == 9
    assert benchmark.provenance.conflicting_duplicates == 0
    first = benchmark[0]
    assert first.id == "NeuBAROCO_NALOMA.tsv:2"
    assert first.text == "Premises: Some A are B. All B are C.\nHypothesis: All A are C."
    assert dict(first.fields) == {"premise": "Some A are B. All B are C.", "hypothesis": "All A are C."}
    assert first.answer == "neutral"
    assert first.metadata["figure"] == "IAA"
    assert first.metadata["content-type"] == "symbol"


def test_naloma_in_japanese_reads_the_ja_columns(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "neubaroco" / "NeuBAROCO_NALOMA.tsv", language="ja")
    assert len(benchmark) == 375
    assert benchmark.provenance.duplicate_texts == 9
    assert benchmark[0].fields["hypothesis"] == "すべてのAはCである。"
    assert benchmark[0].text == "Premises: あるAはBである。すべてのBはCである。\nHypothesis: すべてのAはCである。"


def test_mc_is_detected_as_80_five_option_items_with_balanced_gold(shared_data: Path) -> None:
    path = shared_data / "neubaroco" / "NeuBAROCO_MC.tsv"
    assert detect_format(path) == "neubaroco"
    benchmark = pfungst.load(path)
    assert len(benchmark) == 80
    assert benchmark.option_kind == "per_item"
    assert benchmark.option_counts == {5: 80}
    assert benchmark.gold_counts == {str(position): 16 for position in range(5)}
    # Two premise pairs repeat (one with a different answer), and two items list one hypothesis twice.
    assert benchmark.provenance.duplicate_texts == 2
    assert benchmark.provenance.conflicting_duplicates == 1
    assert len(benchmark.provenance.warnings) == 2
    assert "NeuBAROCO_MC.tsv:33: field 'hypothesis_en_1-5': duplicate option" in benchmark.provenance.warnings[0]
    first = benchmark[0]
    assert first.id == "1"
    assert first.text == (
        "All of Taro's friends are members of this club.  Some of Toshi's friends are not members of this club."
    )
    assert first.options[2] == "none of them."
    assert first.answer == "Some of Toshi's friends are not Taro's friends."
    assert first.metadata["mood"] == "AOO"


def test_mc_in_japanese_uses_japanese_hypotheses(shared_data: Path) -> None:
    first = pfungst.load(shared_data / "neubaroco" / "NeuBAROCO_MC.tsv", language="ja")[0]
    assert first.options[2] == "どれでもない。"
    assert first.gold == 1


def test_unknown_language_is_a_config_error(shared_data: Path) -> None:
    with pytest.raises(ConfigError, match="'en' or 'ja'"):
        pfungst.load(shared_data / "neubaroco" / "NeuBAROCO_MC.tsv", language="fr")


def test_naloma_unknown_label_names_file_line_and_gold(tmp_path: Path) -> None:
    path = tmp_path / "toy.tsv"
    path.write_text(
        _NLI_HEADER + "AはB。\tAはB。\tA is B.\tA is B.\tentailment\t1\nAはB。\tAはC。\tA is B.\tA is C.\tunknown\t1\n"
    )
    assert detect_format(path) == "neubaroco"
    with pytest.raises(ReaderError, match=r"toy\.tsv:3: field 'gold': label 'unknown' is not one of"):
        pfungst.load(path)


def test_naloma_empty_hypothesis_in_chosen_language_names_the_column(tmp_path: Path) -> None:
    path = tmp_path / "toy.tsv"
    path.write_text(_NLI_HEADER + "AはB。\t\tA is B.\tA is B.\tentailment\t1\n")
    assert len(pfungst.load(path)) == 1
    with pytest.raises(ReaderError, match=r"toy\.tsv:2: field 'hypothesis_ja': the value is empty"):
        pfungst.load(path, language="ja")
