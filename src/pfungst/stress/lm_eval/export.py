"""Write a stress plan as an lm-evaluation-harness task folder (``pfungst export lm-eval``).

The folder holds one JSON Lines file and one task YAML per perturbation (``pfungst_<name>_<perturbation>``, a
``multiple_choice`` task whose documents are the plan's questions in run order) and one group YAML
(``pfungst_<name>``) listing them, so that::

    lm_eval --include_path DIR --tasks pfungst_<name> --log_samples --output_path OUT --model ...

asks the whole plan. Each document keeps its arrangement (``order``: the original option shown at each position),
its ``labels``, the item, and the settings that rebuild the plan; ``pfungst stress --from-logs OUT`` reads the
samples back (:mod:`pfungst.stress.lm_eval.logs`). The task YAMLs name their data files by absolute path (lm-eval
resolves relative ones against its working directory): export again after moving the folder.

lm-eval's own ``acc`` on a cloze task is pfungst's ``cloze-raw``, its ``acc_bytes`` ``cloze-byte`` (and its
``acc_norm`` too, wherever options are ASCII); on a letter task ``acc`` counts the gold label's likelier spelling
winning, a close stand-in for pfungst's ``letter``, which adds both spellings up when it reads the logs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.errors import ConfigError
from pfungst.path_checks import check_outputs
from pfungst.serialization import atomic_write, to_jsonable
from pfungst.stress.lm_eval.plan import HarnessDoc, HarnessPlan, settings_text

__all__ = ["ExportResult", "task_name", "write_tasks"]

_METRICS = {"letter": ("acc",), "cloze": ("acc", "acc_norm", "acc_bytes")}


@dataclass(frozen=True)
class ExportResult:
    """What ``pfungst export lm-eval`` wrote."""

    folder: Path
    """The task folder (``--include_path``)."""
    group: str
    """The group task that runs everything (``--tasks``)."""
    tasks: Mapping[str, int]
    """Each task's name and how many documents it has."""
    questions: int
    """Questions planned (a document answers every question that shares its requests)."""
    not_exported: tuple[str, ...]
    """What was asked for but cannot be exported, and why."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return to_jsonable(
            {
                "folder": str(self.folder),
                "group": self.group,
                "tasks": dict(self.tasks),
                "questions": self.questions,
                "not_exported": list(self.not_exported),
            }
        )

    def __repr__(self) -> str:
        return f"ExportResult(group={self.group!r}, tasks={len(self.tasks)}, questions={self.questions})"


def task_name(name: str, suffix: str = "") -> str:
    """The lm-eval task name ``pfungst_<name>[_<suffix>]`` (lower case, ``-`` and other symbols as ``_``).

    Example:
        >>> task_name("ARC-Easy", "answer-moved")
        'pfungst_arc_easy_answer_moved'
    """
    parts = [re.sub(r"[^0-9a-z]+", "_", part.lower()).strip("_") for part in ("pfungst", name, suffix) if part]
    return "_".join(part for part in parts if part)


def write_tasks(plan: HarnessPlan, folder: str | Path, name: str | None = None) -> ExportResult:
    """Write ``plan`` into ``folder`` as lm-eval tasks and a group named after ``name`` (default: the benchmark).

    Raises:
        ConfigError: ``folder`` exists and is a file, holds files other than those this export writes, cannot
            be written, or a file written there is the benchmark itself.
    """
    root = Path(folder).expanduser().resolve()
    group = task_name(name or plan.run.benchmark.name)
    _prepare_folder(plan, root, group, name)
    settings = settings_text(plan.settings)
    bos_text = str(plan.settings.get("bos_text", ""))
    position = {item.id: index for index, item in enumerate(plan.run.benchmark)}
    counts: dict[str, int] = {}
    for suffix in plan.tasks:
        docs = [doc for doc in plan.docs if doc.task == suffix]
        task = task_name(name or plan.run.benchmark.name, suffix)
        delimiter = _delimiter(docs)
        data = root / f"{task}.jsonl"
        with atomic_write(data) as handle:
            for doc in docs:
                handle.write(
                    json.dumps(
                        doc.record(
                            settings, delimiter, bos_text, position[doc.plans[0].cell.presentation.arranged.item.id]
                        ),
                        ensure_ascii=False,
                    )
                    + "\n"
                )
        _write_text(root / f"{task}.yaml", _task_yaml(task, group, data, delimiter, docs[0].kind))
        counts[task] = len(docs)
    _write_text(root / f"{group}.yaml", _group_yaml(group, list(counts)))
    questions = sum(len(doc.plans) for doc in plan.docs)
    return ExportResult(root, group, counts, questions, plan.not_exported)


def _write_text(path: Path, text: str) -> None:
    with atomic_write(path) as handle:
        handle.write(text)


def _prepare_folder(plan: HarnessPlan, root: Path, group: str, name: str | None) -> None:
    """Check ``root`` takes the export: new, empty, or holding only the files this export writes (a rerun of the
    same export, replaced file by file); no file it writes is the benchmark. Nothing is ever removed."""
    tasks = [task_name(name or plan.run.benchmark.name, suffix) for suffix in plan.tasks]
    written = [root / f"{group}.yaml", *(root / f"{task}{ext}" for task in tasks for ext in (".jsonl", ".yaml"))]
    _check_folder(root, written)
    check_outputs(
        [plan.run.benchmark.provenance.source],
        {f"folder ({path.name})": path for path in written},
        folders={"folder": root},
    )


def _check_folder(root: Path, written: Sequence[Path]) -> None:
    if root.exists() and not root.is_dir():
        raise ConfigError(f"{root} is a file; give a folder for the lm-eval tasks")
    if root.is_dir():
        names = {path.name for path in written}
        foreign = sorted(p.name for p in root.iterdir() if p.name not in names)
        if foreign:
            shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
            raise ConfigError(
                f"{root} holds {len(foreign)} file(s) this export would not write ({shown}): lm-eval reads every YAML "
                "under --include_path, and pfungst never deletes them. Give an empty or new folder, or remove them"
            )


def _delimiter(docs: Sequence[HarnessDoc]) -> str:
    """``" "`` (lm-eval's usual ``target_delimiter``) when every choice of the task starts with one space and has
    text after it, so that ``acc_norm`` divides by the option's length as lm-eval's own tasks do; else ``""``."""
    continuations = [c for doc in docs for c in doc.continuations]
    spaced = all(c.startswith(" ") and len(c) > 1 and not c[1].isspace() for c in continuations)
    return " " if spaced and docs[0].kind == "cloze" else ""


def _task_yaml(task: str, group: str, data: Path, delimiter: str, kind: str) -> str:
    config: dict[str, Any] = {
        "task": task,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data)}},
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": "query",
        "doc_to_choice": "choices",
        "doc_to_target": "target",
        "target_delimiter": delimiter,
        "num_fewshot": 0,
        "metric_list": [
            {"metric": metric, "aggregation": "mean", "higher_is_better": True} for metric in _METRICS[kind]
        ],
        "metadata": {"version": 1.0, "pfungst": f"{kind} questions written by pfungst export lm-eval"},
    }
    header = f"# Written by pfungst export lm-eval; the questions are in {data.name}, one per line.\n"
    return header + _yaml(config)


def _group_yaml(group: str, tasks: list[str]) -> str:
    config = {"group": group, "task": tasks, "metadata": {"version": 1.0}}
    return "# Written by pfungst export lm-eval: every task of the plan.\n" + _yaml(config)


def _yaml(value: Any, indent: int = 0) -> str:
    """Block YAML of dicts, lists and JSON scalars (a JSON string is a valid YAML double-quoted scalar)."""
    pad = " " * indent
    lines = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, Mapping | list) and item:
                lines.append(f"{pad}{key}:\n{_yaml(item, indent + 2)}")
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}")
    else:
        for item in value:
            if isinstance(item, Mapping) and item:
                inner = _yaml(item, indent + 2)
                lines.append(f"{pad}- {inner.lstrip()}")
            else:
                lines.append(f"{pad}- {_scalar(item)}")
    return "\n".join(lines) + ("\n" if indent == 0 else "")


def _scalar(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return json.dumps(value, ensure_ascii=True)
