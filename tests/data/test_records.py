"""Records from files: CSV fields past Python's 128 KiB default, and truncated or corrupt ``.gz`` files."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.data import records
from pfungst.errors import ReaderError

GOOD = {"question": "2+2=", "choices": ["3", "4", "5"], "answer": 1}


def _table(path: Path, rows: list[list[str]], delimiter: str = ",") -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, delimiter=delimiter).writerows(rows)
    return path


@pytest.mark.parametrize(("name", "reader", "delimiter"), [("long.csv", "csv", ","), ("long.tsv", "tsv", "\t")])
def test_a_field_longer_than_128_kib_is_read_whole(tmp_path: Path, name: str, reader: str, delimiter: str) -> None:
    passage = "a long passage " * 20_000  # 300,000 characters, past csv's default limit of 131,072
    rows = [["question", "A", "B", "answer"], [passage, "yes", "no", "A"], ["short?", "yes", "no", "B"]]
    benchmark = pfungst.load(_table(tmp_path / name, rows, delimiter), reader=reader, option_columns="A,B")
    assert [item.text for item in benchmark] == [passage, "short?"]


def test_reading_a_long_field_leaves_the_csv_modules_limit_as_it_was(tmp_path: Path) -> None:
    before = csv.field_size_limit()
    path = _table(tmp_path / "long.csv", [["question", "A"], ["x" * 200_000, "y"]])
    assert len(list(records.iter_csv(path))) == 1
    assert csv.field_size_limit() == before


def test_a_field_over_the_cap_names_its_line_and_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert records.MAX_CSV_FIELD == 64 * 2**20  # type: ignore[attr-defined]
    monkeypatch.setattr(records, "MAX_CSV_FIELD", 1000)
    rows = [["question", "A", "B", "answer"], ["ok?", "yes", "no", "A"], ["q?", "y" * 1001, "no", "A"]]
    path = _table(tmp_path / "items.csv", rows)
    with pytest.raises(ReaderError, match=r"items\.csv:3: field 'A': the field holds 0\.0 MiB of text, more than"):
        pfungst.load(path, reader="csv", option_columns="A,B")
    skipped = pfungst.load(path, reader="csv", option_columns="A,B", on_error="skip")
    assert (skipped.provenance.rows_kept, skipped.provenance.rejected[0].field) == (1, "A")


def _gzip_lines(count: int = 200) -> bytes:
    lines = "".join(json.dumps({**GOOD, "question": f"What is {i}+{i}?"}) + "\n" for i in range(count))
    return gzip.compress(lines.encode())


@pytest.mark.parametrize("reader", ["jsonl", None])
def test_a_truncated_gzip_file_says_it_is_truncated(tmp_path: Path, reader: str | None) -> None:
    data = _gzip_lines()
    path = tmp_path / "items.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ReaderError, match=r"items\.jsonl\.gz: the gzip stream ends early: the file is truncated"):
        pfungst.load(path, reader=reader)


def test_corrupt_gzip_data_is_a_reader_error(tmp_path: Path) -> None:
    data = bytearray(_gzip_lines())
    data[20:40] = b"\xff" * 20  # inside the deflate stream
    path = tmp_path / "items.jsonl.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(ReaderError, match=r"items\.jsonl\.gz: the gzip data is corrupt"):
        pfungst.load(path, reader="jsonl")


def test_a_truncated_json_gz_exits_2_with_the_reason_not_aborted(tmp_path: Path) -> None:
    data = _gzip_lines()
    path = tmp_path / "items.json.gz"
    path.write_bytes(data[: len(data) - 30])
    result = CliRunner().invoke(app, ["inspect", str(path)])
    assert result.exit_code == 2, result.output
    assert "the gzip stream ends early: the file is truncated" in " ".join(result.output.split())
    assert "Aborted" not in result.output
