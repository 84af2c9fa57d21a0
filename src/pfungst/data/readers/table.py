"""Generic JSON lines, CSV, TSV and Parquet tables, read through a :class:`~pfungst.data.mapping.ColumnMapping`.

They are chosen by name, by a mapping, or (by the loader, when no specific reader claims a file) when the table's
first row fits one of the common :data:`~pfungst.data.mapping.LAYOUTS`, which then maps it. Example::

    pfungst inspect items.csv --reader csv --map question=stem --map option_columns=A,B,C,D --map answer=key
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.mapping import ColumnMapping, detect_layout
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
    whatever the error policy, since every row would fail the same way. Without a mapping, a first row in one of
    the common :data:`~pfungst.data.mapping.LAYOUTS` chooses that layout's mapping.
    """
    ColumnMapping.from_settings(options.mapping)  # a bad key or template is refused before the file is read
    rows = list(records)
    first = next((record for record in rows if record.error is None), None)
    layout = detect_layout(first.raw) if first is not None and not options.mapping else None
    mapping = ColumnMapping.from_settings(layout.settings_for(first.raw) if layout and first else options.mapping)
    if first is not None:
        mapping = mapping.resolve(list(first.raw), (str(path), first.line))
    builder = BenchmarkBuilder(path, format, options, labels=mapping.labels if mapping.shared_labels else None)
    for record in rows:
        with builder.row(record.line):
            row = record.data()
            _check_columns(path, record.line, row, mapping)
            mapping.add_row(builder, record.line, row)
    return builder.build(name)


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
