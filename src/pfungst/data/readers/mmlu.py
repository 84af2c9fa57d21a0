"""MMLU (Hendrycks et al. 2021): headerless CSV ``question,A,B,C,D,answer``, one file per subject.

Reads one ``<subject>_<split>.csv`` file, a directory of them (``data/test/``), or a directory of such split
directories (``data/`` holding ``dev/`` and ``test/``: every split in one benchmark, so duplicates across splits can
be found); the subject and split, taken from the file name, go into each item's metadata. Item ids are
``<subject>/<split>/<row>``.
"""

from __future__ import annotations

import re
from pathlib import Path

from pfungst.data.answers import AnswerError, resolve_answer
from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import head_text
from pfungst.data.records import iter_csv
from pfungst.errors import ReaderError

__all__ = ["MmluReader"]

_FILE = re.compile(r"^(?P<subject>.+)_(?P<split>test|dev|val|train|auxiliary_train)\.csv$")
_COLUMNS = ("question", "A", "B", "C", "D", "answer")


class MmluReader:
    """MMLU subject CSV files (or a directory of them)."""

    name = "mmlu"
    description = "MMLU headerless CSV (question,A,B,C,D,answer); a <subject>_<split>.csv file or a directory"

    def sniff(self, path: Path) -> bool:
        files = _files(path)
        return bool(files) and all(_FILE.match(f.name) for f in files) and _looks_like_mmlu(files[0])

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        files = _files(path)
        if not files:
            raise ReaderError(path, 0, "", "the directory holds no .csv files", "Point at an MMLU data/<split>/ folder")
        builder = BenchmarkBuilder(path, self.name, options)
        for file in files:
            match = _FILE.match(file.name)
            subject, split = (match["subject"], match["split"]) if match else (file.stem, "")
            for record in iter_csv(file, header=False):
                with builder.row(record.line, file):
                    _add_row(builder, record.line, record.data(), subject, split)
        default_name = f"mmlu-{path.name}" if path.is_dir() else path.stem
        return builder.build(default_name)


def _files(path: Path) -> list[Path]:
    """The CSV files of a file, a split directory, or (when it holds no CSV itself) a directory of split folders."""
    if not path.is_dir():
        return [path]
    return sorted(path.glob("*.csv")) or sorted(path.glob("*/*.csv"))


def _add_row(builder: BenchmarkBuilder, line: int, row: list[str], subject: str, split: str) -> None:
    if len(row) != len(_COLUMNS):
        field = _COLUMNS[len(row)] if len(row) < len(_COLUMNS) else "(row)"
        raise builder.error(line, field, f"expected 6 fields (question,A,B,C,D,answer), found {len(row)}")
    question, *options, answer = row
    try:
        gold = resolve_answer(answer, options, "letter")
    except AnswerError as error:
        raise builder.error(line, "answer", error.reason, "MMLU answers are letters A-D") from None
    builder.add(
        line=line,
        id=f"{subject}/{split}/{line}" if split else f"{subject}/{line}",
        text=question,
        options=options,
        gold=gold,
        metadata={"subject": subject, "split": split},
        text_field="question",
        options_field="A-D",
    )


def _looks_like_mmlu(file: Path) -> bool:
    """Whether the first row has six fields ending in a letter A-D (a quoted question may span several lines)."""
    import csv
    import io

    try:
        row = next(csv.reader(io.StringIO(head_text(file), newline="")))
    except (csv.Error, StopIteration):
        return False
    return len(row) == 6 and row[5].strip() in ("A", "B", "C", "D")
