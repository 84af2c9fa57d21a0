"""Cheap looks at the start of a file, for readers' ``sniff`` methods. They never raise."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import zlib
from pathlib import Path
from typing import Any

from pfungst.data.records import parse_json

__all__ = [
    "DETECTION_WINDOW",
    "first_array_element",
    "first_csv_row",
    "first_json_record",
    "first_line_exceeds_head",
    "first_parquet_row",
    "head_lines",
    "head_text",
    "json_document",
]

DETECTION_WINDOW = 64 * 1024
"""How much of a file format detection reads (the detection window)."""
_ARRAY_START = re.compile(r"\s*\[\s*")


def _head_bytes(path: Path, size: int) -> bytes:
    try:
        if not path.is_file():
            return b""
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as handle:
                return handle.read(size)
        with path.open("rb") as handle:
            return handle.read(size)
    except (OSError, EOFError, zlib.error):  # a truncated or corrupt .gz: the reader says so when it reads
        return b""


def head_text(path: Path, size: int = DETECTION_WINDOW) -> str:
    """Up to ``size`` bytes from the start of the file (gunzipped for ``.gz``), decoded leniently; '' on failure."""
    return _head_bytes(path, size).decode("utf-8", errors="replace").lstrip("\ufeff")


def first_line_exceeds_head(path: Path) -> bool:
    """Whether the first non-blank line runs past the detection window, so that no reader could see it whole."""
    raw = _head_bytes(path, DETECTION_WINDOW + 1)
    return len(raw) > DETECTION_WINDOW and b"\n" not in raw.lstrip()[:DETECTION_WINDOW]


def head_lines(path: Path, count: int = 2) -> list[str]:
    """The first ``count`` non-blank lines (complete lines only, as far as the head reaches)."""
    lines = [line.rstrip("\r") for line in head_text(path).split("\n") if line.strip()]
    return lines[:count]


def first_json_record(path: Path) -> dict[str, Any] | None:
    """The first line parsed as a JSON object (JSON-lines files), or None."""
    for line in head_lines(path, 1):
        try:
            data = parse_json(line)
        except json.JSONDecodeError:
            return None
        return data if isinstance(data, dict) else None
    return None


def json_document(path: Path, max_bytes: int = 50 * 1024 * 1024) -> Any:
    """The whole file parsed as one JSON document, for files up to ``max_bytes``; None otherwise."""
    try:
        if not path.is_file() or path.stat().st_size > max_bytes or path.suffix == ".gz":
            return None
        return parse_json(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, json.JSONDecodeError):
        return None


def first_array_element(path: Path) -> Any:
    """The first element of a ``.json`` file's top-level array, parsed from the file's head; None if none."""
    if path.suffix != ".json":
        return None
    text = head_text(path)
    match = _ARRAY_START.match(text)
    if not match:
        return None
    try:
        first, _ = json.JSONDecoder().raw_decode(text, match.end())
    except json.JSONDecodeError:
        return None
    return first


def first_csv_row(path: Path, delimiter: str = ",") -> dict[str, str] | None:
    """The first data row of a CSV / TSV file with a header, keyed by the header's columns; None if none."""
    rows = csv.reader(io.StringIO(head_text(path), newline=""), delimiter=delimiter)
    try:
        header = [column.strip() for column in next(rows)]
        row = next(rows)
    except (StopIteration, csv.Error):
        return None
    return dict(zip(header, row, strict=True)) if len(row) == len(header) > 1 else None


def first_parquet_row(path: Path) -> dict[str, Any] | None:
    """The first row of a Parquet file as a dict (lists and structs as Python lists and dicts); None if none."""
    try:
        import pyarrow.parquet as pq

        table = pq.ParquetFile(path)
        try:
            batch = next(table.iter_batches(batch_size=1), None)
        finally:
            table.close()
        rows = batch.to_pylist() if batch is not None else []
    except Exception:  # pyarrow raises several unrelated types for a file that is not Parquet
        return None
    return rows[0] if rows else None
