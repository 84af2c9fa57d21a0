"""Generic JSON lines, CSV, TSV and Parquet tables, read through a :class:`~pfungst.data.mapping.ColumnMapping`.

These readers never claim a file by sniffing; they are chosen by name or when a mapping is given. Example::

    pfungst inspect items.csv --format csv --map question=stem --map option_columns=A,B,C,D --map answer=key
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.mapping import ColumnMapping
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
    whatever the error policy, since every row would fail the same way.
    """
    rows = list(records)
    mapping = ColumnMapping.from_settings(options.mapping)
    first = next((record for record in rows if record.error is None), None)
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
    _iterate: Callable[[Path], Iterator[Record]]

    def sniff(self, path: Path) -> bool:
        return False

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        return read_mapped(path, type(self)._iterate(path), options, self.name)


class JsonlTableReader(_TableReader):
    """Any JSON-lines file, with a column mapping."""

    name = "jsonl"
    description = "generic JSON lines with a column mapping (question, options or option_columns, answer | label)"
    _iterate = staticmethod(iter_jsonl)


class CsvTableReader(_TableReader):
    """Any CSV file with a header row, with a column mapping."""

    name = "csv"
    description = "generic CSV with a header and a column mapping"
    _iterate = staticmethod(iter_csv)


class TsvTableReader(_TableReader):
    """Any TSV file with a header row, with a column mapping."""

    name = "tsv"
    description = "generic TSV with a header and a column mapping"
    _iterate = staticmethod(lambda path: iter_csv(path, delimiter="\t"))


class ParquetTableReader(_TableReader):
    """Any Parquet file, with a column mapping (list columns hold options)."""

    name = "parquet"
    description = "generic Parquet with a column mapping"
    _iterate = staticmethod(iter_parquet)
