from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.cladder import CLadderReader
from pfungst.errors import ReaderError


def _record(question_id: int, answer: str) -> dict:
    return {
        "question_id": question_id,
        "desc_id": f"d{question_id}",
        "given_info": "X causes Y.",
        "question": "Does X cause Y?",
        "answer": answer,
        "meta": {"rung": 1, "query_type": "marginal"},
        "reasoning": {},
    }


@pytest.mark.parametrize(
    ("variant", "count", "yes", "duplicate_texts", "conflicting"),
    [
        ("anti", 844, 411, 76, 0),
        ("det", 512, 256, 0, 0),
        ("easy", 844, 411, 76, 0),
        ("hard", 844, 409, 76, 0),
        ("non", 1120, 533, 160, 40),
    ],
)
def test_cladder_files_are_detected_with_yes_no_labels(
    shared_data: Path, variant: str, count: int, yes: int, duplicate_texts: int, conflicting: int
) -> None:
    path = shared_data / "cladder" / f"test-generate-{variant}.json"
    assert CLadderReader().sniff(path)
    assert detect_format(path) == "cladder"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "cladder"
    assert len(benchmark) == count
    assert benchmark.labels == ("yes", "no")
    assert benchmark.gold_counts == {"yes": yes, "no": count - yes}
    assert benchmark.provenance.duplicate_texts == duplicate_texts
    assert benchmark.provenance.conflicting_duplicates == conflicting


def test_cladder_det_first_item_joins_given_info_and_question(shared_data: Path) -> None:
    item = pfungst.load(shared_data / "cladder" / "test-generate-det.json")[0]
    assert item.id == "1"
    given = (
        "We know that alarm set by husband causes alarm set by wife. alarm set by husband or alarm set by wife "
        "causes ringing alarm."
    )
    question = "Would the alarm rings the next morning if alarm not set by husband instead of alarm set by husband?"
    assert item.text == f"{given} {question}"
    assert dict(item.fields) == {"given_info": given, "question": question}
    assert item.answer == "no"
    assert item.metadata["rung"] == 3
    assert item.metadata["query_type"] == "det-counterfactual"
    assert item.metadata["story_id"] == "alarm"
    assert item.metadata["graph_id"] == "mediation"
    assert item.metadata["desc_id"] == "alarm-mediation-det-counterfactual-model148-spec0-q0"


def test_cladder_answer_other_than_yes_or_no_names_record_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "toy.json"
    path.write_text(json.dumps([_record(1, "yes"), _record(2, "maybe")], indent=2))
    assert detect_format(path) == "cladder"
    with pytest.raises(ReaderError, match=r"toy\.json:14: field 'answer': label 'maybe' is not one of 'yes', 'no'"):
        pfungst.load(path)


def test_cladder_missing_question_is_skipped_and_counted_with_on_error_skip(tmp_path: Path) -> None:
    broken = _record(2, "no")
    del broken["question"]
    path = tmp_path / "toy.json"
    path.write_text(json.dumps([_record(1, "yes"), broken]))
    benchmark = pfungst.load(path, on_error="skip")
    assert len(benchmark) == 1
    rejection = benchmark.provenance.rejected[0]
    assert rejection.field == "question"
    assert "missing field 'question'" in rejection.reason
