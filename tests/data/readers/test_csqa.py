from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.csqa import CommonsenseQaReader
from pfungst.errors import ReaderError


def test_commonsenseqa_dev_has_1221_items_with_5_options(shared_data: Path) -> None:
    path = shared_data / "csqa" / "dev_rand_split.jsonl"
    assert detect_format(path) == "csqa"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "csqa"
    assert len(benchmark) == 1221
    assert benchmark.option_counts == {5: 1221}
    first = benchmark[0]
    assert first.id == "1afa02df02c908a558b4036e80242fac"
    assert first.text.startswith("A revolving door is convenient for two direction travel")
    assert first.options == ("bank", "library", "department store", "mall", "new york")
    assert first.answer == "bank"
    assert first.metadata["question_concept"] == "revolving door"


def test_commonsenseqa_duplicate_options_load_as_24_warnings(shared_data: Path) -> None:
    path = shared_data / "csqa" / "dev_rand_split.jsonl"
    warnings = pfungst.load(path).provenance.warnings
    assert len(warnings) == 24
    assert "dev_rand_split.jsonl:23: field 'question.choices': duplicate option 'indestructible'" in warnings[0]
    with pytest.raises(ReaderError, match=r"dev_rand_split\.jsonl:23: field 'question\.choices': duplicate"):
        pfungst.load(path, strict=True)


def test_commonsenseqa_does_not_claim_arc(shared_data: Path) -> None:
    assert not CommonsenseQaReader().sniff(shared_data / "arc" / "ARC-Challenge-Test.jsonl")


def test_commonsenseqa_choices_that_are_not_a_list_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "csqa.jsonl"
    record = {"id": "x", "answerKey": "A", "question": {"question_concept": "c", "stem": "?", "choices": "A) a"}}
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(ReaderError, match=r"csqa\.jsonl:1: field 'question\.choices': expected a list"):
        pfungst.load(path, reader="csqa")
