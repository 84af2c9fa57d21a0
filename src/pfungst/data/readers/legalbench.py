"""LegalBench (Guha et al. 2023) task files: ``<task>.test.tsv`` / ``<task>.train.tsv`` with a ``label`` column.

Every other column except ``index`` is an input. Labels are shared by the task's items: the sorted distinct labels
found in the file (abercrombie has five, proa and corporate_lobbying have ``No`` / ``Yes``). The text a model sees
is the single input column's value as it is or, with several input columns, one ``Column name: value`` line per
column in file order, the name with underscores as spaces and its first letter capitalised::

    Bill title: ...
    Bill summary: ...
    Company name: ...
    Company description: ...

``fields`` hold every input column under its own name. Item ids are ``<task>/<index>`` with the source's ``index``
where the file has one, else the 0-based row number. Files are read with the csv module: corporate_lobbying has
quoted fields that span lines.
"""

from __future__ import annotations

import re
from pathlib import Path

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import head_lines
from pfungst.data.records import iter_csv

__all__ = ["LegalBenchReader"]

_FILE = re.compile(r"^(?P<task>[A-Za-z0-9_]+)\.(?P<split>test|train)\.tsv$")
_LABEL = "label"
_INDEX = "index"


class LegalBenchReader:
    """One LegalBench task split as published on the Hugging Face hub (``<task>.test.tsv``)."""

    name = "legalbench"
    description = "LegalBench task TSV (<task>.test.tsv / <task>.train.tsv with a label column); labels shared"

    def sniff(self, path: Path) -> bool:
        if not _FILE.match(path.name):
            return False
        lines = head_lines(path, 1)
        columns = [column.strip() for column in lines[0].split("\t")] if lines else []
        return _LABEL in columns and len(set(columns) - {_LABEL, _INDEX}) >= 1

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        """Read one task file; raises :class:`~pfungst.errors.ReaderError` naming file, line and column."""
        options.check_keys(self.name, [])
        match = _FILE.match(path.name)
        task = match["task"] if match else path.name.split(".")[0]
        builder = BenchmarkBuilder(path, self.name, options, labels=())
        for number, record in enumerate(iter_csv(path, delimiter="\t")):
            with builder.row(record.line):
                _add_row(builder, record.line, record.data(), f"{task}/{number}")
        return builder.build(f"legalbench-{task}")


def _add_row(builder: BenchmarkBuilder, line: int, row: dict[str, str], default_id: str) -> None:
    if _LABEL not in row:
        raise builder.error(
            line,
            _LABEL,
            f"no column '{_LABEL}' in the file (columns: {', '.join(row)})",
            "LegalBench files have a label column",
        )
    inputs = [column for column in row if column not in (_LABEL, _INDEX)]
    if not inputs:
        raise builder.error(line, "(row)", "the file has no input column besides label and index")
    for column in inputs:
        if not row[column].strip():
            raise builder.error(line, column, "the value is empty")
    lines = (f"{_heading(column)}: {row[column]}" for column in inputs)
    text = row[inputs[0]] if len(inputs) == 1 else "\n".join(lines)
    task = default_id.rpartition("/")[0]
    index = row.get(_INDEX, "").strip()
    builder.add(
        line=line,
        id=f"{task}/{index}" if index else default_id,
        text=text,
        gold=row[_LABEL].strip(),
        fields={column: row[column] for column in inputs},
        text_field=inputs[0],
        options_field=_LABEL,
    )


def _heading(column: str) -> str:
    """``bill_title`` -> ``Bill title``."""
    words = column.replace("_", " ").strip()
    return words[:1].upper() + words[1:]
