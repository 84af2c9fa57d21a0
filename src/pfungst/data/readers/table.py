"""Generic JSON lines, CSV, TSV and Parquet tables, read through a :class:`~pfungst.data.mapping.ColumnMapping`.

They are chosen by name, by a mapping, or (by the loader, when no specific reader claims a file) when the table's
first row fits one of the common :data:`~pfungst.data.layout_catalog.LAYOUTS`, which then maps it. Example::

    pfungst inspect items.csv --reader csv --map question=stem --map option_columns=A,B,C,D --map answer=key
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.layout_catalog import choose_layout, detect_layout
from pfungst.data.layouts import Layout, LayoutRowError, LayoutWarning
from pfungst.data.mapping import ColumnMapping
from pfungst.data.readers.sniffing import first_csv_row, first_json_record, first_parquet_row
from pfungst.data.records import Record, iter_csv, iter_jsonl, iter_parquet
from pfungst.errors import ReaderError

__all__ = ["CsvTableReader", "JsonlTableReader", "ParquetTableReader", "TsvTableReader", "read_mapped"]


def read_mapped(
    path: Path,
    records: Iterable[Record],
    options: ReadOptions,
    format: str,
    name: str = "",
) -> Benchmark:
    """Build a benchmark from ``records`` (dicts) with the column mapping in ``options.mapping``.

    Columns are resolved against the first well-formed row; a mapping that names a missing column is fatal
    whatever the error policy, since every row would fail the same way. Without a mapping (or with ``layout=NAME``)
    the common layout the rows fit (:func:`~pfungst.data.layout_catalog.choose_layout`) gives the mapping; keys
    given beside ``layout`` override its own. A choice among several fitting layouts, or an answer column that
    could count from 0 or 1, is said in a :class:`~pfungst.data.layouts.LayoutWarning` and kept in provenance.
    """
    settings = dict(options.mapping)
    layout_name = str(settings.pop("layout", "") or "")
    ColumnMapping.from_settings(settings)  # a bad key or template is refused before the file is read
    rows = list(records)
    good = [record.raw for record in rows if record.error is None and isinstance(record.raw, Mapping)]
    choice = choose_layout(good, layout_name) if layout_name or not settings else None
    if choice is not None:
        for note in choice.notes:
            warnings.warn(f"{path}: {note}", LayoutWarning, stacklevel=2)
        settings = {**choice.reading.settings, **settings}
    mapping = ColumnMapping.from_settings(settings)
    if good:
        derived = list(choice.layout.derived) if choice is not None else []
        first_line = next(record.line for record in rows if record.error is None and isinstance(record.raw, Mapping))
        mapping = mapping.resolve([*good[0], *derived], (str(path), first_line))
    builder = BenchmarkBuilder(path, format, options, labels=mapping.labels if mapping.shared_labels else None)
    for record in rows:
        with builder.row(record.line):
            row = record.data()
            if choice is not None and isinstance(row, Mapping):
                row = _prepare(builder, record.line, choice.layout, row)
            _check_columns(path, record.line, row, mapping)
            mapping.add_row(builder, record.line, row)
    benchmark = builder.build(name)
    if choice is None:
        return benchmark
    return replace(benchmark, provenance=replace(benchmark.provenance, layout=choice.provenance))


def _prepare(builder: BenchmarkBuilder, line: int, layout: Layout, row: Mapping[str, Any]) -> dict[str, Any]:
    """The row with the layout's derived columns (COPA's question text, BoolQ's yes / no)."""
    try:
        return layout.prepare(row)
    except LayoutRowError as error:
        raise builder.error(line, error.field, error.reason) from None


def _check_columns(path: Path, line: int, row: dict, mapping: ColumnMapping) -> None:
    """Rows of a JSON-lines file need not share keys: check this row has every mapped column."""
    needed = [mapping.question, mapping.options, *mapping.option_columns, mapping.answer, mapping.label]
    for column in filter(None, needed):
        if column not in row:
            raise ReaderError(path, line, column, f"missing field '{column}'")


class _TableReader:
    name = ""
    description = ""
    suffixes: tuple[str, ...] = ()
    _iterate: Callable[[Path], Iterator[Record]]
    _first_row: Callable[[Path], dict[str, Any] | None]

    def sniff(self, path: Path) -> bool:
        """Whether ``path`` has this reader's suffix and a first row in a common layout. The loader asks only when
        no specific reader claims the file."""
        suffixes = [suffix.lower() for suffix in path.suffixes if suffix.lower() != ".gz"]
        if not suffixes or suffixes[-1] not in self.suffixes:
            return False
        row = type(self)._first_row(path)
        return row is not None and detect_layout(row) is not None

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        return read_mapped(path, type(self)._iterate(path), options, self.name)

    def first_rows(self, path: Path, count: int = 1000) -> list[dict[str, Any]]:
        """Up to ``count`` well-formed rows from the start (for a mapping hint); [] when the file cannot be read."""
        rows: list[dict[str, Any]] = []
        try:
            for record in type(self)._iterate(path):
                if record.error is None and isinstance(record.raw, dict) and record.raw:
                    rows.append(record.raw)
                if len(rows) >= count:
                    break
        except ReaderError:
            return rows
        return rows


class JsonlTableReader(_TableReader):
    """Any JSON-lines file, with a column mapping."""

    name = "jsonl"
    description = (
        "generic JSON lines with a column mapping (question, options or option_columns, answer | label) "
        "or a common layout"
    )
    suffixes = (".jsonl", ".json")
    _iterate = staticmethod(iter_jsonl)
    _first_row = staticmethod(first_json_record)


class CsvTableReader(_TableReader):
    """Any CSV file with a header row, with a column mapping."""

    name = "csv"
    description = "generic CSV with a header and a column mapping or a common layout"
    suffixes = (".csv",)
    _iterate = staticmethod(iter_csv)
    _first_row = staticmethod(first_csv_row)


class TsvTableReader(_TableReader):
    """Any TSV file with a header row, with a column mapping."""

    name = "tsv"
    description = "generic TSV with a header and a column mapping or a common layout"
    suffixes = (".tsv",)
    _iterate = staticmethod(lambda path: iter_csv(path, delimiter="\t"))
    _first_row = staticmethod(lambda path: first_csv_row(path, delimiter="\t"))


class ParquetTableReader(_TableReader):
    """Any Parquet file, with a column mapping (list columns hold options)."""

    name = "parquet"
    description = "generic Parquet with a column mapping or a common layout"
    suffixes = (".parquet", ".pq")
    _iterate = staticmethod(iter_parquet)
    _first_row = staticmethod(first_parquet_row)
