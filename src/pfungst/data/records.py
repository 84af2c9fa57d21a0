"""Line-numbered records from JSON lines, JSON arrays, CSV / TSV and Parquet files.

Every record carries the line where it starts, so a reader can name ``file:line`` and the field in an error. A
record that cannot be parsed (malformed JSON, wrong field count, bytes that are not UTF-8) carries its error
instead of data: the reader raises it inside ``builder.row(...)``, which applies the error policy.

Bytes that are not UTF-8 are decoded with ``surrogateescape`` and then reported with the field that holds them,
which is more useful than a byte offset.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pfungst.errors import ReaderError

__all__ = [
    "MAX_CSV_FIELD",
    "MAX_INFLATED_TEXT",
    "MAX_JSON_DEPTH",
    "Record",
    "gunzip",
    "iter_csv",
    "iter_json_array",
    "iter_jsonl",
    "iter_parquet",
    "json_value",
    "parse_json",
    "read_text",
]

_SURROGATE = re.compile("[\udc80-\udcff]")
MAX_CSV_FIELD = 64 * 1024 * 1024
"""The longest CSV / TSV field read, in characters (64 MiB of text): far above Python's default of 128 KiB, which
long passages exceed, and low enough that a file with a runaway quote is refused instead of read as one field."""
_PARSER_FIELD_LIMIT = 2**31 - 1  # what the csv parser is allowed while we read, so an over-long field can be named
MAX_JSON_DEPTH = 200
"""JSON nested deeper than this is refused: no benchmark or result needs it, and Python's parser (and every
recursive walk after it) would otherwise fail with a RecursionError."""

MAX_INFLATED_TEXT = 512 * 1024 * 1024
"""The most bytes a gzip-compressed benchmark or outcome file (``.jsonl.gz``, ``.csv.gz``) may inflate to: 512 MiB,
as one member of an inspect archive. The largest real benchmark files are tens of MB; past this a small file that
inflates to gigabytes (a decompression bomb) would exhaust memory before its first line is read."""


def parse_json(text: str) -> Any:
    """``json.loads(text)``, refusing documents nested deeper than :data:`MAX_JSON_DEPTH`.

    Raises:
        json.JSONDecodeError: malformed JSON, or too deeply nested (the position is where the limit is passed), so
            every caller's handling of malformed JSON names the file and line.
    """
    depth, position = _depth(text)
    if depth > MAX_JSON_DEPTH:
        raise json.JSONDecodeError(f"nested deeper than {MAX_JSON_DEPTH} levels", text, position)
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(f"nested deeper than {MAX_JSON_DEPTH} levels", text, 0) from None


def json_value(text: str | bytes, path: str | Path, *, line: int = 0, field: str = "(json)", hint: str = "") -> Any:
    """:func:`parse_json` for untrusted JSON from a file (another tool's log, a result file, a zip member), with
    every failure a :class:`ReaderError`.

    Args:
        text: The JSON text (bytes are decoded as UTF-8).
        path: The file, for the message (``log.eval`` or ``log.eval: samples/1_epoch_1.json``).
        line: The line the text starts on in a JSON Lines file; 0 for a whole document (the error's own line is
            named then).
        field: The field or member named in the message.
        hint: What to do, for the message.

    Raises:
        ReaderError: not UTF-8, malformed, or nested deeper than :data:`MAX_JSON_DEPTH` (the message says so).

    Example:
        >>> json_value("[" * 500 + "]" * 500, "deep.json")
        Traceback (most recent call last):
        ...
        pfungst.errors.ReaderError: deep.json:1: field '(json)': malformed JSON (nested deeper than 200 levels at \
column 201)
    """
    try:
        return parse_json(text.decode("utf-8") if isinstance(text, bytes) else text)
    except UnicodeDecodeError as exc:
        raise ReaderError(path, line, field, f"not UTF-8 text ({exc.reason} at byte {exc.start})", hint) from None
    except json.JSONDecodeError as exc:
        where = line or exc.lineno
        raise ReaderError(path, where, field, f"malformed JSON ({exc.msg} at column {exc.colno})", hint) from None


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth(text: str) -> tuple[int, int]:
    """How deep the brackets of a JSON text nest (strings skipped), and where the limit is first passed."""
    depth = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if depth > MAX_JSON_DEPTH:
                    return depth, match.start()
        elif token in "]}":
            depth -= 1
    return deepest, 0


@dataclass(frozen=True)
class Record:
    """One source record: its starting line (or record number) and its data, or the error that spoiled it."""

    line: int
    raw: Any = None
    error: ReaderError | None = None

    def data(self) -> Any:
        """The parsed data; raises the parse error when there is one."""
        if self.error is not None:
            raise self.error
        return self.raw


def read_text(path: Path) -> str:
    """The file's text, gunzipped when it ends in ``.gz``, with bad bytes kept as surrogates for later reporting.

    Raises:
        ReaderError: the file cannot be read, or a ``.gz`` file is truncated, not gzip data, or inflates past
            :data:`MAX_INFLATED_TEXT` bytes.
    """
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ReaderError(path, 0, "", f"cannot read the file ({error.strerror or error})") from error
    if path.suffix == ".gz":
        raw = gunzip(path, raw, max_bytes=MAX_INFLATED_TEXT)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    return raw.decode("utf-8", errors="surrogateescape")


def gunzip(
    path: Path,
    raw: bytes,
    *,
    max_bytes: int | None = None,
    hint: str = "Copy or download the file again, or pass it uncompressed",
) -> bytes:
    """``raw`` (the bytes of ``path``) decompressed, refused past ``max_bytes`` inflated bytes when given.

    Raises:
        ReaderError: naming the file: the stream is truncated or corrupt, or inflates past ``max_bytes`` (a
            decompression bomb).
    """
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
            data = stream.read() if max_bytes is None else stream.read(max_bytes + 1)
    except EOFError:
        raise ReaderError(path, 0, "", "the gzip stream ends early: the file is truncated", hint) from None
    except (OSError, zlib.error) as error:  # gzip.BadGzipFile is an OSError; corrupt deflate data a zlib.error
        raise ReaderError(path, 0, "", f"the gzip data is corrupt ({error})", hint) from None
    if max_bytes is not None and len(data) > max_bytes:
        raise ReaderError(
            path,
            0,
            "",
            f"inflates past {max_bytes:,} bytes from {len(raw):,} compressed: refusing (a decompression bomb?)",
            "Check where the file came from",
        )
    return data


def _bad_bytes(path: Path, line: int, value: Any, field: str = "") -> ReaderError | None:
    """An error naming the first field (keys included) whose text holds bytes that are not UTF-8, if any."""
    stack: list[tuple[Any, str]] = [(value, field)]
    while stack:
        node, name = stack.pop()
        if isinstance(node, str):
            match = _SURROGATE.search(node)
            if match:
                byte = ord(match.group()) - 0xDC00
                return ReaderError(
                    path, line, name or "(text)", f"invalid UTF-8 byte 0x{byte:02X}", "Re-save the file as UTF-8"
                )
            continue
        if isinstance(node, dict):
            children = list(node.items())
        elif isinstance(node, list):
            children = [(str(i), child) for i, child in enumerate(node)]
        else:
            continue
        for key, child in reversed(children):  # reversed: the stack then visits them in document order
            path_name = f"{name}.{key}" if name else str(key)
            stack.append((child, path_name))
            stack.append((str(key), path_name))  # the key itself, checked before its value
    return None


def iter_jsonl(path: Path) -> Iterator[Record]:
    """One record per non-blank line; each must be a JSON object."""
    # Split on newlines only: str.splitlines() would also break at U+0085 and U+2028 inside JSON strings.
    for number, text in enumerate(read_text(path).split("\n"), start=1):
        if not text.strip():
            continue
        try:
            data = parse_json(text)
        except json.JSONDecodeError as exc:
            reason = f"malformed JSON ({exc.msg} at column {exc.colno})"
            yield Record(number, error=ReaderError(path, number, "(json)", reason, "Each line must be one JSON object"))
            continue
        if not isinstance(data, dict):
            kind = type(data).__name__
            yield Record(number, error=ReaderError(path, number, "(json)", f"expected a JSON object, found a {kind}"))
            continue
        error = _bad_bytes(path, number, data)
        yield Record(number, error=error) if error else Record(number, data)


def iter_json_array(path: Path, key: str = "") -> Iterator[Record]:
    """One record per element of a top-level JSON array (or of the array under ``key``), with its line."""
    text = read_text(path)
    try:
        document = parse_json(text)
    except json.JSONDecodeError as exc:
        raise ReaderError(path, exc.lineno, "(json)", f"malformed JSON ({exc.msg} at column {exc.colno})") from None
    array = document.get(key) if key and isinstance(document, dict) else document
    if not isinstance(array, list):
        where = f"under '{key}'" if key else "at the top level"
        raise ReaderError(path, 1, key or "(json)", f"expected a JSON array {where}, found {type(array).__name__}")
    lines = _element_lines(text, key, len(array))
    for index, element in enumerate(array):
        line = lines[index] if index < len(lines) else index + 1
        error = _bad_bytes(path, line, element)
        yield Record(line, error=error) if error else Record(line, element)


def _element_lines(text: str, key: str, count: int) -> list[int]:
    """The line on which each element of the array starts (best effort; empty when not found)."""
    decoder = json.JSONDecoder()
    start = text.find("[", text.find(f'"{key}"') if key else 0)
    if start < 0:
        return []
    position, lines = start + 1, []
    whitespace = re.compile(r"[\s,]*")
    line, counted = 1, 0  # newlines are counted once, from where the last count stopped: linear in the text
    for _ in range(count):
        match = whitespace.match(text, position)
        position = match.end() if match else position
        line, counted = line + text.count("\n", counted, position), position
        lines.append(line)
        try:
            _, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            return lines
    return lines


def iter_csv(
    path: Path, delimiter: str = ",", header: bool = True, quoting: Literal[0, 1, 2, 3] = csv.QUOTE_MINIMAL
) -> Iterator[Record]:
    """One record per CSV / TSV row: a dict keyed by the header, or a list when ``header`` is false.

    Quoted fields may span lines; a record's line is where it starts. A row with a different number of fields than
    the header is an error naming the missing or extra columns. Pass ``quoting=csv.QUOTE_NONE`` for files whose
    quotes are plain text (MNLI / SNLI TSVs hold unbalanced double quotes).
    """
    # newline="" keeps U+0085 and friends inside fields (MMLU has them); csv counts \n and \r\n only.
    reader = csv.reader(io.StringIO(read_text(path), newline=""), delimiter=delimiter, quoting=quoting)
    columns: list[str] | None = None
    previous_end = 0
    for row in _parse(path, reader):
        line, previous_end = previous_end + 1, reader.line_num
        if not row or all(not cell.strip() for cell in row):
            continue
        if header and columns is None:
            columns = [name.strip() for name in row]
            _check_header(path, line, columns)
            continue
        if columns is None:
            data: Any = row
        else:
            if len(row) != len(columns):
                yield Record(line, error=_field_count_error(path, line, row, columns))
                continue
            data = dict(zip(columns, row, strict=True))
        names = columns or [str(i) for i in range(len(row))]
        error = next(
            filter(None, (_cell_error(path, line, cell, name) for name, cell in zip(names, row, strict=False))), None
        )
        yield Record(line, error=error) if error else Record(line, data)


def _parse(path: Path, reader: Any) -> Iterator[list[str]]:
    """The rows of a ``csv.reader``, parsed with a field limit above :data:`MAX_CSV_FIELD`.

    The limit is process-wide in Python's csv module: it is raised around each row only and restored before the row
    is handed on, so other code's CSV parsing keeps its own limit.
    """
    while True:
        previous = csv.field_size_limit(_PARSER_FIELD_LIMIT)
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise ReaderError(path, reader.line_num, "(row)", f"malformed CSV ({error})") from None
        finally:
            csv.field_size_limit(previous)
        yield row


def _cell_error(path: Path, line: int, cell: str, name: str) -> ReaderError | None:
    """An error for a field over :data:`MAX_CSV_FIELD` or holding bytes that are not UTF-8, if either."""
    if len(cell) > MAX_CSV_FIELD:
        size = f"{len(cell) / 2**20:.1f} MiB"
        return ReaderError(
            path,
            line,
            name,
            f"the field holds {size} of text, more than the {MAX_CSV_FIELD // 2**20} MiB a CSV field may hold",
            "Look for an unbalanced quote before it, or store the benchmark as JSON lines",
        )
    return _bad_bytes(path, line, cell, name)


def _check_header(path: Path, line: int, columns: list[str]) -> None:
    """Refuse a header with bytes that are not UTF-8 (a column name would carry them into every message and result
    file) or naming a column twice."""
    error = next(filter(None, (_bad_bytes(path, line, name, "(header)") for name in columns)), None)
    if error is not None:
        raise error
    _check_repeated_columns(path, line, columns)


def _check_repeated_columns(path: Path, line: int, columns: list[str]) -> None:
    """Refuse a header that names a column twice: the last one would silently win in every row."""
    seen: set[str] = set()
    for name in columns:
        if name in seen:
            raise ReaderError(path, line, name, "the header repeats this column", "Rename or remove one of them")
        seen.add(name)


def _field_count_error(path: Path, line: int, row: list[str], columns: list[str]) -> ReaderError:
    if len(row) < len(columns):
        missing = ", ".join(columns[len(row) :])
        return ReaderError(
            path,
            line,
            columns[len(row)],
            f"line has {len(row)} fields, the header has {len(columns)}. No value for: {missing}",
        )
    return ReaderError(
        path,
        line,
        "(row)",
        f"line has {len(row)} fields, the header has {len(columns)}",
        "Quote fields that contain the delimiter",
    )


def iter_parquet(path: Path) -> Iterator[Record]:
    """One record per Parquet row (record numbers start at 1)."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as error:  # pyarrow raises several unrelated types for a bad file
        raise ReaderError(path, 0, "", f"not a readable Parquet file ({error})") from error
    for number, row in enumerate(table.to_pylist(), start=1):
        yield Record(number, row)
