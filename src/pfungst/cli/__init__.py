"""The ``pfungst`` command line: parse options, call the Python API, print. Nothing here is CLI-only logic.

One module per group of commands, all registered on one typer app (:mod:`pfungst.cli.common`). Exit codes: 0 ok;
2 user error (one message, no traceback); 3 a release gate (``--fail-on``) breached, with the reasons on stderr;
130 interrupted; 1 with a traceback for bugs. The commands (and what they
import) load inside :func:`main`, so a Ctrl-C while they load exits 130 with one line too. A closed pipe
(``pfungst audit data.jsonl | head -1``) is no error: the rest of the output is dropped, the result files are still
written, and the exit code is the command's own (0, or 3 for a breached gate); see :mod:`pfungst.cli.closed_pipe`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from pfungst.cli.closed_pipe import flush_quietly

if TYPE_CHECKING:
    from typer import Typer

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point."""
    try:
        command_line = _app()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    try:
        command_line()
    except SystemExit as end:
        flush_quietly()
        if end.code == 1 and _pipe_closed():
            raise SystemExit(0) from None
        raise


def _pipe_closed() -> bool:
    """True when the command line (click) ended with exit 1 on a closed pipe: it then wraps standard output."""
    return type(sys.stdout).__name__.endswith("PacifyFlushWrapper")


def _app() -> Typer:
    from pfungst.cli import (  # noqa: F401 (registers)
        audit_commands,
        data_commands,
        harness_commands,
        integration_commands,
        model_commands,
        report_commands,
        suite_commands,
    )
    from pfungst.cli.common import app

    return app


def __getattr__(name: str) -> object:
    """``app``, the typer application with every command registered, loaded on first use."""
    if name == "app":
        return _app()
    raise AttributeError(f"module 'pfungst.cli' has no attribute {name!r}")
