"""TruthfulQA (Lin et al. 2022) multiple choice: ``mc_task.json``, or the same built from ``TruthfulQA.csv``.

``mc_task.json`` is a JSON list of ``{question, mc0_targets, mc1_targets, mc2_targets}``, each target a dict
``option -> 1 (true) | 0 (false)`` in the published order. The ``subset`` setting picks the targets:

* ``mc1`` (default): one true answer among several false ones.
* ``mc0``: binary, the best answer against the best false one.
* ``mc2`` is refused: it has several true answers per question, and an item has exactly one gold option.

``TruthfulQA.csv`` (``Type, Category, Question, Best Answer, Best Incorrect Answer, Correct Answers,
Incorrect Answers, Source``) gives the same items: ``mc1`` options are ``Best Answer`` then the ``;``-separated
``Incorrect Answers``; ``mc0`` options are ``Best Answer`` and ``Best Incorrect Answer``. Type, category and
source become metadata. In both files the true answer comes first: the gold position is always 0 until options
are rearranged.

Empty options (17 ``mc1`` questions end their false answers with a stray ``;``) are dropped, each with a
warning in provenance (an error with ``strict``). Items have no ids in the source: the id is the question's
1-based position, the same in both files. The published JSON is a single line, so in a file holding several
questions on one line, the positions in messages are record (question) numbers rather than lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import head_lines, head_text
from pfungst.data.records import iter_csv, iter_json_array
from pfungst.errors import ConfigError

__all__ = ["TruthfulQaReader"]

_SUBSETS = ("mc1", "mc0")
_CSV_COLUMNS = {"Question", "Best Answer", "Incorrect Answers"}


class TruthfulQaReader:
    """TruthfulQA ``mc_task.json`` or ``TruthfulQA.csv``, as one single-answer subset (``mc1`` or ``mc0``)."""

    name = "truthfulqa"
    description = "TruthfulQA mc_task.json or TruthfulQA.csv; setting subset=mc1 (default) or mc0"

    def sniff(self, path: Path) -> bool:
        if path.suffix == ".json":
            head = head_text(path).lstrip()
            return head.startswith("[") and '"mc1_targets"' in head and '"question"' in head
        if path.suffix == ".csv":
            lines = head_lines(path, 1)
            return bool(lines) and {column.strip() for column in lines[0].split(",")} >= _CSV_COLUMNS
        return False

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, ["subset"])
        subset = _subset(options.setting("subset", "mc1"))
        builder = BenchmarkBuilder(path, self.name, options)
        if path.suffix == ".csv":
            for number, record in enumerate(iter_csv(path), start=1):
                with builder.row(record.line):
                    _add_csv_row(builder, record.line, record.data(), subset, str(number))
        else:
            records = list(iter_json_array(path))
            compact = len({record.line for record in records}) < len(records)
            for number, record in enumerate(records, start=1):
                line = number if compact else record.line
                with builder.row(line):
                    _add_json_record(builder, line, record.data(), subset, str(number))
        return builder.build(f"truthfulqa-{subset}")


def _subset(value: Any) -> str:
    if value == "mc2":
        raise ConfigError(
            "TruthfulQA's mc2 subset has several true answers per question, and a pfungst item has exactly "
            "one gold option, so mc2 cannot be read as single-answer multiple choice. Use subset='mc1' (the "
            "best true answer among false ones) or subset='mc0' (best true answer against best false one)"
        )
    if value not in _SUBSETS:
        raise ConfigError(f"Unknown TruthfulQA subset {value!r}. Available: mc1, mc0")
    return str(value)


def _add_json_record(builder: BenchmarkBuilder, line: int, data: Any, subset: str, item_id: str) -> None:
    field = f"{subset}_targets"
    if not isinstance(data, dict):
        found = type(data).__name__
        raise builder.error(line, "(json)", f"expected an object {{question, {field}}}, found {found}")
    question, targets = data.get("question"), data.get(field)
    if not isinstance(question, str):
        raise builder.error(
            line,
            "question",
            "missing field 'question'" if question is None else f"expected a string, found {type(question).__name__}",
        )
    if not isinstance(targets, dict):
        raise builder.error(
            line,
            field,
            f"missing field '{field}'"
            if targets is None
            else f"expected an object {{option: 0 or 1}}, found {type(targets).__name__}",
        )
    for option, value in targets.items():
        if value not in (0, 1):
            raise builder.error(line, field, f"option {option!r} is marked {value!r}, not 0 or 1")
    options = _without_empty(builder, line, field, list(targets))
    true = [i for i, option in enumerate(options) if targets[option] == 1]
    if len(true) != 1:
        raise builder.error(line, field, f"{len(true)} options are marked true, expected exactly one")
    builder.add(
        line=line,
        id=item_id,
        text=question,
        options=options,
        gold=true[0],
        fields={"question": question},
        metadata={"subset": subset},
        text_field="question",
        options_field=field,
    )


def _add_csv_row(builder: BenchmarkBuilder, line: int, row: dict[str, str], subset: str, item_id: str) -> None:
    wrong_field = "Incorrect Answers" if subset == "mc1" else "Best Incorrect Answer"
    for column in ("Question", "Best Answer", wrong_field):
        if column not in row:
            raise builder.error(line, column, f"no column '{column}' in the file")
    if subset == "mc1":
        parts = [part.strip() for part in row[wrong_field].split(";")]
        wrong = _without_empty(builder, line, wrong_field, parts)
    else:
        wrong = [row[wrong_field].strip()]
    metadata = {"subset": subset}
    metadata.update({key.lower(): row[key] for key in ("Type", "Category", "Source") if key in row})
    options = [row["Best Answer"].strip(), *wrong]
    builder.add(
        line=line,
        id=item_id,
        text=row["Question"],
        options=options,
        gold=0,
        fields={"question": row["Question"]},
        metadata=metadata,
        text_field="Question",
        options_field=wrong_field,
    )


def _without_empty(builder: BenchmarkBuilder, line: int, field: str, options: list[str]) -> list[str]:
    """The options without empty ones, each dropped one recorded as a warning (an error when strict)."""
    kept = []
    for position, option in enumerate(options):
        if option.strip():
            kept.append(option)
        else:
            builder.warn(line, field, f"option {position} is empty; dropped", "Remove the stray separator")
    return kept
