from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.prontoqa import ProntoQaReader
from pfungst.errors import ReaderError


def _record(number: int, options: list[str], answer: str = "A") -> dict:
    return {
        "id": f"ProntoQA_{number}",
        "context": "Cats are animals. Tom is a cat.",
        "question": "Is the following statement true or false? Tom is an animal.",
        "options": options,
        "answer": answer,
        "explanation": ["Tom is a cat.", "Tom is an animal."],
    }


def test_prontoqa_dev_is_detected_as_500_true_false_items(shared_data: Path) -> None:
    path = shared_data / "prontoqa" / "dev.json"
    assert ProntoQaReader().sniff(path)
    assert detect_format(path) == "prontoqa"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "prontoqa"
    assert len(benchmark) == 500
    assert benchmark.option_kind == "shared_labels"
    assert benchmark.labels == ("True", "False")
    assert benchmark.gold_counts == {"True": 258, "False": 242}
    assert benchmark.provenance.duplicate_texts == 0


def test_prontoqa_first_item_strips_letter_prefixes_and_maps_the_letter(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "prontoqa" / "dev.json")
    first = benchmark[0]
    assert first.id == "ProntoQA_1"
    assert first.options == ("True", "False")
    assert first.answer == "False"
    assert first.text.startswith("Jompuses are not shy. Jompuses are yumpuses.")
    assert first.text.endswith("Max is a yumpus.\nIs the following statement true or false? Max is sour.")
    assert first.fields["question"] == "Is the following statement true or false? Max is sour."
    assert first.metadata["explanation"][-1] == "Max is not sour."
    assert benchmark[-1].id == "ProntoQA_500"


def test_prontoqa_options_other_than_true_false_name_the_options_field(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    records = [_record(1, ["A) True", "B) False"]), _record(2, ["A) True", "B) False", "C) Unknown"])]
    path.write_text(json.dumps(records))
    assert detect_format(path) == "prontoqa"
    with pytest.raises(ReaderError, match=r"dev\.json:1: field 'options': expected \['A\) True', 'B\) False'\]"):
        pfungst.load(path)


def test_prontoqa_answer_letter_outside_a_b_names_the_answer_field(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([_record(1, ["A) True", "B) False"], "C")], indent=1))
    with pytest.raises(ReaderError, match=r"dev\.json:2: field 'answer': 'C' is not an option letter \(A-B\)"):
        pfungst.load(path, reader="prontoqa")


def test_three_option_logic_lm_files_are_not_claimed(tmp_path: Path) -> None:
    path = tmp_path / "proofwriter.json"
    path.write_text(json.dumps([_record(1, ["A) True", "B) False", "C) Unknown"])]))
    assert not ProntoQaReader().sniff(path)
