"""BIG-bench JSON tasks (Srivastava et al. 2022): ``task.json`` with ``examples[].input`` and ``target_scores``.

Reads a ``task.json``, a task folder holding one, or a folder of subtask folders (``logical_deduction/`` with
``three_objects/`` and ``five_objects/``), whose examples are concatenated in folder-name order with the subtask
in ``metadata["subtask"]``.

Each example's options are the keys of ``target_scores`` in file order; the gold option is the one with the highest
score, which must be unique. When every example offers the same set of options (Yes / No, True / False, (a) / (b))
the task is a shared-label task whose labels are the first example's options in order; otherwise each item keeps its
own choices. ``text`` is ``example_input_prefix`` (when the task sets one) followed by ``input``; the task's
``task_prefix``, shown once before all examples, goes into ``metadata["task_prefix"]`` and its ``keywords`` (joined
by ", ") into ``metadata["keywords"]``, where the audit reads whether the task declares it is answered from its words
(:mod:`pfungst.audit.task_declaration`); other scalar keys of an
example (``comment``, ``target``, ...) go into metadata. The benchmark takes the task's ``name``. Examples have no
ids; an item's id is ``<task name>:<0-based example index>`` (``three_objects:0``).

Some tasks repeat inputs, and they are kept and counted: causal_judgment has 2 repeated inputs with a different
answer; logical_deduction asks about the same paragraph 3 or 5 times with different options.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import json_document
from pfungst.data.records import Record, iter_json_array
from pfungst.errors import ReaderError

__all__ = ["BigBenchReader"]

_TASK_FILE = "task.json"


@dataclass(frozen=True)
class _Task:
    """One ``task.json``: its settings and its examples as line-numbered records."""

    file: Path
    subtask: str
    settings: dict[str, Any]
    records: list[Record]


class BigBenchReader:
    """BIG-bench JSON tasks: ``task.json``, a task folder, or a folder of subtask folders."""

    name = "bigbench"
    description = "BIG-bench task.json (examples with input and target_scores); a file, task folder or subtasks"

    def sniff(self, path: Path) -> bool:
        files = _task_files(path)
        return bool(files) and all(_looks_like_task(file) for file in files)

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        files = _task_files(path)
        if not files:
            raise ReaderError(path, 0, "", f"no {_TASK_FILE} here", "Point at a BIG-bench task.json or task folder")
        subtasks = len(files) > 1 or (path.is_dir() and files[0].parent != path)
        tasks = [_load_task(file, file.parent.name if subtasks else "") for file in files]
        labels = _shared_labels(tasks)
        # A single task is read from its file, so messages and the hash name task.json, not the folder.
        builder = BenchmarkBuilder(path if subtasks else files[0], self.name, options, labels=labels)
        for task in tasks:
            meta = {"task_prefix": task.settings.get("task_prefix", ""), "keywords": _keywords(task.settings)}
            if task.subtask:
                meta["subtask"] = task.subtask
            input_prefix = str(task.settings.get("example_input_prefix") or "")
            name = str(task.settings.get("name") or task.subtask or _task_name(task.file))
            for index, record in enumerate(task.records):
                with builder.row(record.line, task.file if subtasks else None):
                    _add(builder, record, f"{name}:{index}", input_prefix, meta)
        name = path.name if subtasks else str(tasks[0].settings.get("name") or _task_name(path))
        return builder.build(name)


def _keywords(settings: dict[str, Any]) -> str:
    """The task's ``keywords`` joined by ", " (what the task says it tests; the audit reads them, see
    :mod:`pfungst.audit.task_declaration`); empty where the task lists none."""
    found = settings.get("keywords")
    return ", ".join(str(word) for word in found) if isinstance(found, list) else ""


def _task_files(path: Path) -> list[Path]:
    """The task files a path stands for: itself, its ``task.json``, or those of its subfolders (each must hold one)."""
    if path.is_file():
        return [path] if path.suffix == ".json" else []
    if not path.is_dir():
        return []
    if (path / _TASK_FILE).is_file():
        return [path / _TASK_FILE]
    folders = sorted(p for p in path.iterdir() if p.is_dir())
    if folders and all((folder / _TASK_FILE).is_file() for folder in folders):
        return [folder / _TASK_FILE for folder in folders]
    return []


def _looks_like_task(file: Path) -> bool:
    document = json_document(file)
    if not isinstance(document, dict) or not isinstance(document.get("examples"), list):
        return False
    examples = document["examples"]
    return bool(examples) and isinstance(examples[0], dict) and isinstance(examples[0].get("target_scores"), dict)


def _task_name(path: Path) -> str:
    return path.parent.name if path.name == _TASK_FILE else path.stem


def _load_task(file: Path, subtask: str) -> _Task:
    """The task's settings and examples; a file that is not a task object is an error naming it."""
    document = json_document(file, max_bytes=1 << 62)
    if document is not None and not isinstance(document, dict):
        raise ReaderError(
            file,
            1,
            "(json)",
            f"expected a task object, found a {type(document).__name__}",
            "A BIG-bench task.json is an object with an 'examples' list",
        )
    if isinstance(document, dict) and "examples" not in document:
        raise ReaderError(
            file, 1, "examples", "the task has no 'examples'", "Programmatic BIG-bench tasks (task.py) cannot be read"
        )
    records = list(iter_json_array(file, key="examples"))  # raises, with the line, on malformed JSON
    if not records:
        raise ReaderError(file, 1, "examples", "the task has no examples")
    settings = {k: v for k, v in (document or {}).items() if k != "examples"}
    return _Task(file=file, subtask=subtask, settings=settings, records=records)


def _shared_labels(tasks: list[_Task]) -> tuple[str, ...] | None:
    """The first example's options when every well-formed example offers the same set, else None (per item)."""
    option_sets = [
        list(record.raw["target_scores"])
        for task in tasks
        for record in task.records
        if record.error is None and isinstance(record.raw, dict) and isinstance(record.raw.get("target_scores"), dict)
    ]
    if not option_sets or any(set(options) != set(option_sets[0]) for options in option_sets):
        return None
    return tuple(option_sets[0])


def _add(builder: BenchmarkBuilder, record: Record, item_id: str, input_prefix: str, meta: dict[str, Any]) -> None:
    line, example = record.line, record.data()
    if not isinstance(example, dict):
        raise builder.error(line, "examples", f"expected an example object, found a {type(example).__name__}")
    text = example.get("input")
    if not isinstance(text, str):
        found = "nothing" if text is None else f"a {type(text).__name__}"
        raise builder.error(line, "input", f"expected the example's input text, found {found}")
    options, gold = _options_and_gold(builder, line, example.get("target_scores"))
    extra = {k: v for k, v in example.items() if k not in ("input", "target_scores") and _scalar(v)}
    builder.add(
        line=line,
        id=item_id,
        text=input_prefix + text,
        options=() if builder.shared_labels else options,
        gold=options[gold] if builder.shared_labels else gold,
        fields={"input": text},
        metadata={**meta, **extra},
        text_field="input",
        options_field="target_scores",
    )


def _options_and_gold(builder: BenchmarkBuilder, line: int, scores: Any) -> tuple[list[str], int]:
    """The options in file order and the index of the one highest score (several maxima are an error)."""
    if scores is None:
        raise builder.error(
            line,
            "target_scores",
            "missing",
            "Only multiple-choice examples (with target_scores) "
            "can be read; generative examples with only 'target' cannot",
        )
    if not isinstance(scores, dict) or not scores:
        raise builder.error(line, "target_scores", f"expected an object of option -> score, found {scores!r}")
    for option, score in scores.items():
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise builder.error(line, f"target_scores.{option}", f"the score {score!r} is not a number")
    best = max(scores.values())
    winners = [option for option, score in scores.items() if score == best]
    if len(winners) > 1:
        raise builder.error(
            line,
            "target_scores",
            f"{len(winners)} options share the highest score {best}: {', '.join(repr(w) for w in winners)}",
            "Exactly one option must score highest",
        )
    options = list(scores)
    return options, options.index(winners[0])


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
