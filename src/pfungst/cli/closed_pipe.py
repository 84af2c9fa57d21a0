"""A closed pipe ends quietly: ``pfungst audit data.jsonl | head -1`` exits 0, with no traceback and no message.

Python ignores SIGPIPE, so a write to a pipe whose reader has gone raises :class:`BrokenPipeError`. The standard
remedy (Python docs, "Note on SIGPIPE") points standard output at ``os.devnull``, so that nothing more is written
there and the interpreter's last flush cannot fail again. Here the command also goes on: what it saves to files
(the result, ``--items``, a card) is still written, and a release gate still sets the exit code; only what it would
have printed to the closed pipe is dropped.
"""

from __future__ import annotations

import os
import sys
from typing import IO

from rich.console import Console

__all__ = ["PipeConsole", "flush_quietly", "silence"]


def silence(stream: IO[str] | None = None) -> None:
    """Point ``stream`` (standard output by default) at ``os.devnull``: every later write succeeds and is dropped."""
    stream = stream or sys.stdout
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # a stream without a descriptor (a test runner's buffer)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)


def flush_quietly() -> None:
    """Flush standard output and error; a closed pipe is silenced instead of failing at the interpreter's exit
    (which would print "Exception ignored ... BrokenPipeError" and exit 120)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            silence(stream)
        except (OSError, ValueError):  # closed or detached by the command itself
            continue


class PipeConsole(Console):
    """A rich console that, when its reader has gone, drops the rest of its output and lets the command finish
    (rich's own console exits 1 there)."""

    def on_broken_pipe(self) -> None:
        """Drop this console's output from now on, and silence the stream it wrote to."""
        self.quiet = True
        silence(self.file)
