"""Every malformed-input case names the file, the line and the field; none is silently dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.errors import ConfigError, DataError, ReaderError


def _jsonl(path: Path, *records: object) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = {"question": "2+2=", "choices": ["3", "4", "5"], "answer": 1}


def test_malformed_json_line_names_file_and_line(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", GOOD, '{"question": "x", "choices": [1, 2', GOOD)
    with pytest.raises(ReaderError, match=r"items\.jsonl:2: field '\(json\)': malformed JSON"):
        pfungst.load(path, reader="jsonl")


def test_missing_field_names_the_field(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", GOOD, {"question": "3+3=", "choices": ["6", "7"]})
    with pytest.raises(ReaderError, match=r"items\.jsonl:2: field 'answer': missing field 'answer'"):
        pfungst.load(path, reader="jsonl")


def test_answer_index_out_of_range(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", GOOD, {**GOOD, "answer": 7})
    with pytest.raises(ReaderError, match=r"items\.jsonl:2: field 'answer': answer index 7 is out of range"):
        pfungst.load(path, reader="jsonl")


def test_answer_letter_not_among_the_options(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("q,A,B,C,key\nWhat is 1+1?,1,2,3,B\nWhat is 2+2?,3,4,5,E\n")
    with pytest.raises(ReaderError, match=r"items\.csv:3: field 'key': 'E' is not an option letter \(A-C\)"):
        pfungst.load(path, reader="csv", question="q", option_columns="A,B,C", answer="key", answer_format="letter")


def test_empty_options(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", {**GOOD, "choices": []})
    with pytest.raises(ReaderError, match=r"items\.jsonl:1: field 'choices': the item has no options"):
        pfungst.load(path, reader="jsonl", answer_format="index")


def test_a_single_option(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", GOOD, {**GOOD, "choices": ["4"], "answer": 0})
    with pytest.raises(ReaderError, match=r"items\.jsonl:2: field 'choices': the item has a single option"):
        pfungst.load(path, reader="jsonl")


def test_an_empty_option_string(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", {**GOOD, "choices": ["3", " ", "5"]})
    with pytest.raises(ReaderError, match=r"items\.jsonl:1: field 'choices': option 1 is empty"):
        pfungst.load(path, reader="jsonl")


def test_duplicate_options_warn_by_default_and_raise_when_strict(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", GOOD, {**GOOD, "choices": ["4", "5", "4"], "answer": 1})
    benchmark = pfungst.load(path, reader="jsonl")
    assert len(benchmark) == 2
    assert benchmark.provenance.warnings == (f"{path}:2: field 'choices': duplicate option '4' at positions 0 and 2",)
    with pytest.raises(ReaderError, match=r"items\.jsonl:2: field 'choices': duplicate option '4'"):
        pfungst.load(path, reader="jsonl", strict=True)


def test_non_utf8_bytes_name_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    good = json.dumps(GOOD).encode()
    bad = b'{"question": "caf\xe9?", "choices": ["a", "b"], "answer": 0}'
    path.write_bytes(good + b"\n" + bad + b"\n")
    with pytest.raises(ReaderError, match=r"items\.jsonl:2: field 'question': invalid UTF-8 byte 0xE9"):
        pfungst.load(path, reader="jsonl")


def test_non_utf8_bytes_in_a_csv_cell(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_bytes(b"question,A,B,answer\nok?,x,y,A\nna\xefve?,x,y,B\n")
    with pytest.raises(ReaderError, match=r"items\.csv:3: field 'question': invalid UTF-8 byte 0xEF"):
        pfungst.load(path, reader="csv", option_columns="A,B")


def test_non_utf8_bytes_in_a_csv_header(tmp_path: Path) -> None:
    """A column name is never decoded with stand-in characters: they would reach every message and result file."""
    path = tmp_path / "items.csv"
    path.write_bytes(b"question,A,B,an\x8bswer\nok?,x,y,A\n")
    with pytest.raises(ReaderError, match=r"items\.csv:1: field '\(header\)': invalid UTF-8 byte 0x8B"):
        pfungst.load(path, reader="csv", option_columns="A,B")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text("")
    with pytest.raises(ReaderError, match=r"items\.jsonl: the file holds no data rows"):
        pfungst.load(path, reader="jsonl")


def test_unknown_format_suggests_close_names(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", GOOD)
    with pytest.raises(ConfigError, match=r"Unknown format 'mmluu'\. Did you mean: mmlu\? Available: .*arc"):
        pfungst.load(path, reader="mmluu")


def test_mapping_that_names_a_missing_column(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("q,A,B,key\nWhat?,x,y,A\n")
    with pytest.raises(
        ReaderError,
        match=r"items\.csv:2: field 'stem': no column 'stem' in the file \(columns: "
        r"q, A, B, key\)",
    ):
        pfungst.load(path, reader="csv", question="stem", option_columns="A,B", answer="key")


def test_mixed_option_counts_are_allowed_and_reported(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", GOOD, {**GOOD, "choices": ["3", "4"]}, {**GOOD, "choices": list("1234")})
    benchmark = pfungst.load(path, reader="jsonl")
    assert benchmark.option_counts == {2: 1, 3: 1, 4: 1}


def test_wrong_field_count_in_csv_names_missing_columns(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("question,A,B,answer\nok?,x,y,A\nshort?,x\n")
    with pytest.raises(
        ReaderError,
        match=r"items\.csv:3: field 'B': line has 2 fields, the header has 4\. "
        r"No value for: B, answer",
    ):
        pfungst.load(path, reader="csv", option_columns="A,B")


def test_skip_policy_counts_every_rejected_row(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", GOOD, "{broken", {**GOOD, "answer": 9}, GOOD)
    benchmark = pfungst.load(path, reader="jsonl", on_error="skip")
    provenance = benchmark.provenance
    assert (provenance.rows_read, provenance.rows_kept, len(provenance.rejected)) == (4, 2, 2)
    assert [r.line for r in provenance.rejected] == [2, 3]
    assert provenance.rejected[1].field == "answer"
    assert provenance.duplicate_texts == 1


def test_missing_file_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nothing\.jsonl: no such file or directory"):
        pfungst.load(tmp_path / "nothing.jsonl")


@pytest.mark.parametrize(("name", "text"), [("items.csv", "q,A,B,key,key\n"), ("items.tsv", "q\tA\tB\tkey\tkey\n")])
def test_a_header_that_repeats_a_column_is_refused(tmp_path: Path, name: str, text: str) -> None:
    """Issue 15: the last of two 'key' columns used to win silently in every row."""
    path = tmp_path / name
    separator = "\t" if name.endswith(".tsv") else ","
    path.write_text(text + separator.join(["One?", "1", "2", "A", "B"]) + "\n")
    with pytest.raises(
        ReaderError, match=rf"{name.replace('.', '[.]')}:1: field 'key': the header repeats this column"
    ):
        pfungst.load(path, reader=name.split(".")[1], question="q", option_columns="A,B", answer="key")


def test_a_first_record_larger_than_the_detection_window_says_so(tmp_path: Path) -> None:
    """Issue 15: a 50 MB first line was reported as an undetectable format, with no hint of why."""
    path = _jsonl(tmp_path / "items.jsonl", {**GOOD, "question": "x" * 100_000}, GOOD)
    with pytest.raises(DataError, match=r"first record is larger than the format detection window.*--reader"):
        pfungst.load(path)
    assert len(pfungst.load(path, reader="jsonl").items) == 2
