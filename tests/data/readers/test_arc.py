from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.arc import ArcReader
from pfungst.errors import ReaderError


def _record(key: str, labels: list[str], texts: list[str], stem: str = "Which?", item_id: str = "q") -> str:
    choices = [{"text": text, "label": label} for text, label in zip(texts, labels, strict=True)]
    return json.dumps({"id": item_id, "question": {"stem": stem, "choices": choices}, "answerKey": key})


def test_arc_challenge_test_has_1172_items_with_3_to_5_options(shared_data: Path) -> None:
    path = shared_data / "arc" / "ARC-Challenge-Test.jsonl"
    assert detect_format(path) == "arc"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "arc"
    assert len(benchmark) == 1172
    assert benchmark.option_counts == {3: 4, 4: 1165, 5: 3}
    assert benchmark.provenance.rejected == ()
    assert benchmark.provenance.duplicate_texts == 2
    first = benchmark[0]
    assert first.id == "Mercury_7175875"
    assert first.text.startswith("An astronomer observes that a planet rotates faster")
    assert first.options[2] == "Planetary days will become shorter."
    assert first.gold == 2
    assert first.metadata["labels"] == ["A", "B", "C", "D"]


def test_arc_numeric_answer_keys_match_numeric_labels(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "arc" / "ARC-Challenge-Test.jsonl")
    numeric = [item for item in benchmark if item.metadata["labels"][0] == "1"]
    assert len(numeric) == 22
    sled = next(item for item in numeric if item.id == "NYSEDREGENTS_2008_8_34")
    assert sled.metadata["answer_key"] == "2"
    assert sled.answer == "Kinetic energy increases and potential energy decreases."
    five = next(item for item in benchmark if item.id == "TIMSS_1995_8_J7")
    assert five.metadata["labels"] == ["A", "B", "C", "D", "E"]
    assert five.answer.startswith("Warm-blooded animals normally maintain")


def test_arc_challenge_dev_has_299_items(shared_data: Path) -> None:
    path = shared_data / "arc" / "ARC-Challenge-Dev.jsonl"
    assert detect_format(path) == "arc"
    benchmark = pfungst.load(path)
    assert len(benchmark) == 299
    assert benchmark.option_counts == {3: 3, 4: 295, 5: 1}
    assert benchmark[0].id == "Mercury_SC_407695"


def test_arc_does_not_claim_commonsenseqa(shared_data: Path) -> None:
    assert not ArcReader().sniff(shared_data / "csqa" / "dev_rand_split.jsonl")
    assert ArcReader().sniff(shared_data / "arc" / "ARC-Challenge-Dev.jsonl")


def test_arc_gold_is_found_by_label_not_position(tmp_path: Path) -> None:
    path = tmp_path / "arc.jsonl"
    path.write_text(_record("A", ["B", "A", "C"], ["bee", "ay", "see"]) + "\n")
    item = pfungst.load(path, reader="arc")[0]
    assert item.gold == 1
    assert item.answer == "ay"


def test_arc_answer_key_that_names_no_label_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "arc.jsonl"
    good = _record("A", ["A", "B"], ["yes", "no"], item_id="q1")
    bad = _record("E", ["A", "B"], ["yes", "no"], item_id="q2")
    path.write_text(good + "\n" + bad + "\n")
    with pytest.raises(ReaderError, match=r"arc\.jsonl:2: field 'answerKey': 'E' is not the label of any choice"):
        pfungst.load(path, reader="arc")
    skipped = pfungst.load(path, reader="arc", on_error="skip")
    assert len(skipped) == 1
    assert skipped.provenance.rejected[0].field == "answerKey"


def test_arc_missing_stem_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "arc.jsonl"
    path.write_text('{"id": "q", "question": {"choices": []}, "answerKey": "A"}\n')
    with pytest.raises(ReaderError, match=r"arc\.jsonl:1: field 'question\.stem'"):
        pfungst.load(path, reader="arc")
