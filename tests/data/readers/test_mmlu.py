from __future__ import annotations

from pathlib import Path

import pytest

import pfungst
from pfungst.errors import ReaderError


def test_mmlu_test_split_has_14042_items_over_57_subjects(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "mmlu" / "test")
    assert benchmark.provenance.format == "mmlu"
    assert len(benchmark) == 14042
    assert len({item.metadata["subject"] for item in benchmark}) == 57
    assert benchmark.option_counts == {4: 14042}
    first = benchmark[0]
    assert first.id == "abstract_algebra/test/1"
    assert first.options == ("0", "4", "2", "6")
    assert first.answer == "4"


def test_mmlu_reports_duplicate_options_instead_of_hiding_them(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "mmlu" / "test" / "business_ethics_test.csv")
    assert any(
        "business_ethics_test.csv:3: field 'A-D': duplicate option 'Employee rights'" in warning
        for warning in benchmark.provenance.warnings
    )
    with pytest.raises(ReaderError, match=r"business_ethics_test\.csv:3: field 'A-D': duplicate option"):
        pfungst.load(shared_data / "mmlu" / "test" / "business_ethics_test.csv", strict=True)


def test_mmlu_answer_letter_outside_a_to_d_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "toy_test.csv"
    path.write_text("What is 1+1?,1,2,3,4,B\nWhat is 2+2?,1,2,3,4,E\n")
    with pytest.raises(ReaderError, match=r"toy_test\.csv:2: field 'answer': 'E' is not an option letter \(A-D\)"):
        pfungst.load(path, reader="mmlu")


def test_a_subject_file_whose_first_question_spans_lines_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "nutrition_dev.csv"
    path.write_text(
        '"A cohort study found:\n\nwhich statement is correct?",lower,higher,unknown,none,C\nQ2?,a,b,c,d,A\n'
    )
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "mmlu" and benchmark[0].answer == "unknown"


def test_every_shared_subject_file_is_detected_as_mmlu(shared_data: Path) -> None:
    files = sorted((shared_data / "mmlu").rglob("*.csv"))
    assert files and all(pfungst.data.detect_format(file) == "mmlu" for file in files)
