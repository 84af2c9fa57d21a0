"""No silent coercion: a question, option, label or answer that is an object, an array, null, a boolean, NaN or
infinite is refused with file:line:field, in JSON lines, ``.json`` lines, CSV cells, native files and Parquet."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import pytest

import pfungst
from pfungst.errors import ReaderError

GOOD = {"question": "2+2=", "choices": ["3", "4", "5"], "answer": 1}
NOT_TEXT = [
    ({"nested": 1}, "an object"),
    (["a", "b"], "an array"),
    (None, "null"),
    (math.nan, "NaN"),
    (math.inf, "an infinite number"),
    (True, r"a boolean \(true\)"),
]
IDS = ["object", "array", "null", "nan", "inf", "bool"]


def _lines(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")  # NaN as NaN
    return path


@pytest.mark.parametrize("name", ["items.jsonl", "items.json"])
@pytest.mark.parametrize(("value", "found"), NOT_TEXT, ids=IDS)
def test_a_question_that_is_not_text_is_refused(tmp_path: Path, name: str, value: Any, found: str) -> None:
    path = _lines(tmp_path / name, GOOD, {**GOOD, "question": value})
    with pytest.raises(ReaderError, match=rf"items\.jsonl?:2: field 'question': expected text, found {found}"):
        pfungst.load(path, reader="jsonl")


@pytest.mark.parametrize("name", ["items.jsonl", "items.json"])
@pytest.mark.parametrize(("value", "found"), NOT_TEXT, ids=IDS)
def test_an_option_that_is_not_text_is_refused(tmp_path: Path, name: str, value: Any, found: str) -> None:
    path = _lines(tmp_path / name, {**GOOD, "choices": ["3", value, "5"], "answer": 0})
    with pytest.raises(ReaderError, match=rf"items\.jsonl?:1: field 'choices\[1\]': expected text, found {found}"):
        pfungst.load(path, reader="jsonl")


@pytest.mark.parametrize(("value", "found"), NOT_TEXT, ids=IDS)
def test_an_answer_that_is_not_an_index_letter_or_text_is_refused(tmp_path: Path, value: Any, found: str) -> None:
    # an option "None" / "True" / "nan" that the coerced answer would have matched
    choices = ["None", "True", "nan", "inf", "{'nested': 1}", "['a', 'b']"]
    path = _lines(tmp_path / "items.jsonl", {**GOOD, "choices": choices, "answer": value})
    with pytest.raises(ReaderError, match=rf"items\.jsonl:1: field 'answer': expected an answer .*, found {found}"):
        pfungst.load(path, reader="jsonl", answer_format="text")


@pytest.mark.parametrize(("cell", "found"), [("null", "null"), ("NaN", "NaN"), ('{"a": 1}', "an object")])
def test_an_option_in_a_csv_cells_json_list_that_is_not_text_is_refused(tmp_path: Path, cell: str, found: str) -> None:
    path = tmp_path / "items.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows([["question", "choices", "answer"], ["2+2=", f'["4", {cell}]', "0"]])
    with pytest.raises(ReaderError, match=rf"items\.csv:2: field 'choices\[1\]': expected text, found {found}"):
        pfungst.load(path, reader="csv")


def test_a_shared_label_that_is_null_is_refused(tmp_path: Path) -> None:
    rows = [{"premise": "p", "hypothesis": "h", "label": "yes"}, {"premise": "p2", "hypothesis": "h2", "label": None}]
    path = _lines(tmp_path / "pairs.jsonl", *rows)
    with pytest.raises(ReaderError, match=r"pairs\.jsonl:2: field 'label': expected text, found null"):
        pfungst.load(path, reader="jsonl")


def test_a_template_column_that_is_null_is_refused_not_left_blank(tmp_path: Path) -> None:
    rows = [{"premise": "p", "hypothesis": "h", "label": "yes"}, {"premise": None, "hypothesis": "h2", "label": "no"}]
    path = _lines(tmp_path / "pairs.jsonl", *rows)
    with pytest.raises(ReaderError, match=r"pairs\.jsonl:2: field 'premise': expected text, found null"):
        pfungst.load(path, reader="jsonl")


def test_a_null_option_in_a_native_file_is_refused(tmp_path: Path) -> None:
    path = _lines(tmp_path / "saved.jsonl", {"id": "a", "text": "q", "options": ["x", None], "gold": 0})
    with pytest.raises(ReaderError, match=r"saved\.jsonl:1: field 'options\[1\]': expected text, found null"):
        pfungst.load(path, reader="pfungst")


def test_a_nan_question_in_a_parquet_file_written_by_pandas_is_refused_not_read_as_nan(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"question": [1.5, math.nan], "A": ["x", "x"], "B": ["y", "y"], "answer": ["A", "B"]})
    path = tmp_path / "items.parquet"
    frame.to_parquet(path)
    with pytest.raises(ReaderError, match=r"items\.parquet:2: field 'question': expected text, found null"):
        pfungst.load(path, reader="parquet", option_columns="A,B")  # pandas writes NaN as a Parquet null


def test_a_nan_option_in_a_parquet_list_column_is_refused(tmp_path: Path) -> None:
    pyarrow = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    choices = pyarrow.array([[1.0, 2.0], [3.0, math.nan]], type=pyarrow.list_(pyarrow.float64()), from_pandas=False)
    table = pyarrow.table({"question": ["a?", "b?"], "choices": choices, "answer": [0, 1]})
    path = tmp_path / "items.parquet"
    parquet.write_table(table, path)
    with pytest.raises(ReaderError, match=r"items\.parquet:2: field 'choices\[1\]': expected text, found NaN"):
        pfungst.load(path, reader="parquet")
