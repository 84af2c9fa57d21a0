"""Read the ``--log_samples`` files lm-eval wrote for an exported plan: one :class:`LoggedDoc` per sample line.

lm-eval writes ``<output>/<model>/samples_<task>_<date>.jsonl``; each line has the document as exported (``doc``),
the requests it sent (``arguments``: ``gen_args_<i>`` with the context ``arg_0`` and continuation ``arg_1``) and
what came back (``resps``: per choice ``[[log-likelihood, is_greedy]]``, as strings). A rerun adds a file with a
later date; the latest file of each task is read.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.data.records import json_value
from pfungst.errors import ConfigError, ReaderError
from pfungst.folder_walk import walk_files

__all__ = ["LoggedDoc", "find_sample_files", "read_samples"]

_FILE = re.compile(r"\Asamples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.:\-]+)\.jsonl\Z")
_HINT = "Expected a samples file that lm_eval --log_samples wrote for tasks from pfungst export lm-eval"
_DOC_FIELDS: dict[str, tuple[type, str]] = {
    "doc_key": (str, "a string"),
    "settings": (str, "a string"),
    "item_id": (str, "a string"),
    "item_index": (int, "a whole number"),
    "text": (str, "a string"),
    "gold": (int, "a whole number"),
    "perturbation": (str, "a string"),
    "format": (str, "a string"),
    "options": (list, "a list of strings"),
    "choices": (list, "a list of strings"),
    "variants": (list, "a list of strings"),
    "rules": (list, "a list of strings"),
}
"""The fields of an exported document that reading it back relies on, with their type."""


@dataclass(frozen=True)
class LoggedDoc:
    """One answered document: what was sent and the log-likelihood of each choice."""

    path: Path
    """The samples file."""
    line: int
    """Its line (1-based)."""
    doc: Mapping[str, Any]
    """The document as exported (``doc_key``, ``item_id``, ``order``, ``labels``, ``settings``, ...)."""
    contexts: tuple[str, ...]
    """The context sent with each choice."""
    continuations: tuple[str, ...]
    """Each choice as sent, target delimiter included."""
    loglikelihoods: tuple[float, ...]
    """The log-likelihood of each choice."""
    greedy: tuple[bool, ...]
    """Whether each choice was the greedy continuation."""

    @property
    def keys(self) -> tuple[str, ...]:
        """The key of every question this document answers (as :func:`~pfungst.stress.lm_eval.plan.cell_key`)."""
        doc = self.doc
        return tuple(
            "|".join((doc["perturbation"], variant, doc["format"], rule, doc["item_id"]))
            for variant, rule in zip(doc["variants"], doc["rules"], strict=True)
        )


def find_sample_files(out: str | Path) -> tuple[Path, ...]:
    """The latest samples file of each task under ``out`` (a folder searched recursively, or one file).

    Raises:
        ConfigError: nothing found, or files of several models (folders) for one task.
    """
    root = Path(out).expanduser()
    if root.is_file():
        return (root,)
    if not root.is_dir():
        raise ConfigError(f"{root}: no such folder; give the --output_path of lm_eval --log_samples")
    latest: dict[str, Path] = {}
    for path in sorted(p for p in walk_files(root).files if fnmatch.fnmatchcase(p.name, "samples_*.jsonl")):
        match = _FILE.match(path.name)
        task = match["task"] if match else path.stem
        if task in latest and latest[task].parent != path.parent:
            raise ConfigError(
                f"{root} holds samples of task {task} from several models ({latest[task].parent.name}, "
                f"{path.parent.name}); give one model's folder"
            )
        if task not in latest or path.name > latest[task].name:
            latest[task] = path
    if not latest:
        raise ConfigError(f"{root} holds no samples_*.jsonl; run lm_eval with --log_samples --output_path {root}")
    return tuple(latest[task] for task in sorted(latest))


def read_samples(path: Path) -> list[LoggedDoc]:
    """Every sample line of one file.

    Raises:
        ReaderError: a line that is not JSON, not from an exported plan, or has no log-likelihood per choice.
    """
    docs = []
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReaderError(path, 0, "", f"cannot read it as UTF-8 text ({exc})", _HINT) from None
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            docs.append(_logged(path, number, json_value(line, path, line=number, field="", hint=_HINT)))
    return docs


def _logged(path: Path, line: int, data: Any) -> LoggedDoc:
    doc = data.get("doc") if isinstance(data, dict) else None
    if not isinstance(doc, dict) or "doc_key" not in doc or "settings" not in doc:
        raise ReaderError(path, line, "doc", "missing, or without doc_key and settings", _HINT)
    _check_doc(path, line, doc)
    arguments = data.get("arguments")
    resps = data.get("resps")
    n = len(doc["choices"])
    if not isinstance(arguments, dict) or len(arguments) != n:
        raise ReaderError(path, line, "arguments", f"expected {n} requests (one per choice)", _HINT)
    if not isinstance(resps, list) or len(resps) != n:
        raise ReaderError(path, line, "resps", f"expected {n} responses (one per choice)", _HINT)
    pairs = [arguments.get(f"gen_args_{index}") or {} for index in range(n)]
    if not all(isinstance(pair, dict) for pair in pairs):
        raise ReaderError(path, line, "arguments", "expected an object (arg_0, arg_1) per choice", _HINT)
    try:
        answers = [(float(resp[0][0]), str(resp[0][1]) == "True") for resp in resps]
    except (TypeError, ValueError, IndexError, KeyError) as exc:
        reason = f"not [[log-likelihood, is_greedy]] per choice ({exc!r})"
        raise ReaderError(path, line, "resps", reason, _HINT) from None
    odd = [index for index, (value, _) in enumerate(answers) if not math.isfinite(value)]
    if odd:
        raise ReaderError(path, line, "resps", f"choice {odd[0]} has log-likelihood {answers[odd[0]][0]}", _HINT)
    zero = [index for index, (value, _) in enumerate(answers) if value == 0.0]
    if zero:
        raise ReaderError(
            path,
            line,
            "resps",
            f"choice {zero[0]} ({doc['choices'][zero[0]]!r}) has log-likelihood 0, which no model gives a non-empty "
            "continuation: lm-eval scored none of its tokens",
            "lm-eval's count of context tokens disagreed with the server's echo (llama-cpp-python leaves the BOS "
            "token out of it, and generates no token where end-of-sequence is likeliest); see the README",
        )
    return LoggedDoc(
        path,
        line,
        doc,
        tuple(str(pair.get("arg_0", "")) for pair in pairs),
        tuple(str(pair.get("arg_1", "")) for pair in pairs),
        tuple(value for value, _ in answers),
        tuple(greedy for _, greedy in answers),
    )


def _check_doc(path: Path, line: int, doc: Mapping[str, Any]) -> None:
    """Refuse a document without the exported fields, or with one of another type, naming the field."""
    for name, (kind, expected) in _DOC_FIELDS.items():
        value = doc.get(name)
        good = isinstance(value, kind) and not isinstance(value, bool)
        if isinstance(value, list):
            good = all(isinstance(entry, str) for entry in value)
        if not good:
            found = "nothing" if value is None else type(value).__name__
            raise ReaderError(path, line, f"doc.{name}", f"expected {expected}, found {found}", _HINT)
    if len(doc["variants"]) != len(doc["rules"]):
        raise ReaderError(path, line, "doc.rules", "expected one rule per variant", _HINT)
