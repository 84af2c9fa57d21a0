"""Where a command's result goes: the short answer on the console, every detail in a file that is always written.

Every command that computes a result (``audit``, ``stress``, ``score``, ``reliance``, ``validity``; ``suite`` writes
``suite.json`` in its ``--out`` folder) saves it as JSON, so that ``pfungst report`` never needs a rerun:

- ``--json PATH`` writes it to ``PATH``; ``--json -`` writes it to standard output (and nothing else goes there);
- without ``--json`` it goes beside the command's first input, named ``<input stem>.<command>.json``: ``pfungst
  audit data/mmlu.csv`` writes ``data/mmlu.audit.json``, ``pfungst reliance mmlu.audit.json ...`` writes
  ``mmlu.reliance.json`` (the input's own ``.audit`` is dropped), a folder ``tasks/navigate/`` gives
  ``tasks/navigate.audit.json``. A rerun replaces it.

Either path goes through :func:`~pfungst.path_checks.check_outputs` with the other outputs before any work (never
onto an input; a default path in a read-only folder is refused naming the path and ``--json PATH``), and is written
atomically; the path is said on stderr. On the console the command prints its short
answer (:func:`~pfungst.report.summary_console.render_summary`); ``--verbose`` prints every table first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from pfungst.cli.common import console, write_json

__all__ = [
    "RESULT_KINDS",
    "VerboseOption",
    "default_result_path",
    "result_option",
    "result_path",
    "save_result",
    "show_result",
]

VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose", "-v", help="Print every table (probes, heuristics, cues, per-variant figures), then the answer."
    ),
]
RESULT_KINDS = ("audit", "stress", "score", "reliance", "validity", "suite")
"""The commands whose default result file is ``<input stem>.<command>.json``."""
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")
"""Suffixes of a compressed input, dropped with the one before them (``mmlu.jsonl.gz`` -> ``mmlu``)."""


def default_result_path(source: Path, command: str) -> Path:
    """Where ``command`` saves its result without ``--json``: beside ``source`` (its first input), as
    ``<stem>.<command>.json``; the stem drops the input's suffixes and a result kind it ends in.

    Example:
        >>> default_result_path(Path("data/mmlu.jsonl.gz"), "audit").as_posix()
        'data/mmlu.audit.json'
        >>> default_result_path(Path("runs/mmlu.audit.json"), "reliance").as_posix()
        'runs/mmlu.reliance.json'
        >>> default_result_path(Path("tasks/navigate"), "audit").as_posix()
        'tasks/navigate.audit.json'
    """
    path = Path(source)
    name = path.name or path.resolve().name or "result"
    if not path.is_dir():
        stem = Path(name)
        if stem.suffix.lower() in _COMPRESSED:
            stem = Path(stem.stem)
        name = stem.stem or name
        for kind in RESULT_KINDS:
            if name.endswith(f".{kind}"):
                name = name.removesuffix(f".{kind}")
                break
    return path.parent / f"{name}.{command}.json"


def result_path(json_path: Path | None, source: Path, command: str) -> Path:
    """The file a result goes to: ``--json`` as given (``-``: standard output), else the default beside ``source``."""
    return json_path if json_path is not None else default_result_path(source, command)


def result_option(json_path: Path | None) -> str:
    """How an output check names the result file: ``--json`` when given; else the default beside the input, with how
    to choose another (a read-only data folder then says what to do, not an option the user never typed).

    Example:
        >>> result_option(None)
        'the default result file (--json PATH writes it elsewhere)'
    """
    return "--json" if json_path is not None else "the default result file (--json PATH writes it elsewhere)"


def show_result(result: Any, out: Console, verbose: bool) -> None:
    """Print ``result`` on ``out``: its short answer; with ``verbose``, every section first, then the answer."""
    from pfungst.report.console_blocks import render_to_console
    from pfungst.report.summary_console import render_summary

    if verbose:
        render_to_console(result, out)
        out.rule("In short")
    render_summary(result, out)


def save_result(path: Path, save: Callable[[Path], object]) -> None:
    """Write the result with ``save(path)`` (its own atomic writer) and say where on stderr, with how to see it all
    (``-``: the JSON goes to standard output)."""
    write_json(path, save, notice=False)
    if str(path) != "-":
        shown = escape(str(path))
        console.print(
            f"wrote {shown} (every table: --verbose; a page: pfungst report {shown})", highlight=False, soft_wrap=True
        )
