"""The answer first: a result's findings in a few sentences that fit one screen, what a command prints by default.

Every command that computes a result (``audit``, ``stress``, ``reliance``, ``validity``, ``suite``, ``score``)
prints it through :func:`render_summary`: the result's own ``summary_lines()`` (its findings in sentences, each
result type gives its own; computed by the result, read here), or, for a result without them, its overview (headline
and board rows). The tables, probes and per-item figures behind them print with ``--verbose``
(:func:`~pfungst.report.console_blocks.render_to_console`) and are in the result file that the command saves.

The summary is wrapped at the console's width, and cut (saying how many sentences are left out, and where they are)
so that it never takes more than :data:`SUMMARY_LINES` lines: with the notices on stderr ("wrote ..."), a default
run fits :data:`SCREEN_LINES`.
"""

from __future__ import annotations

import textwrap
from typing import Any

from rich.console import Console
from rich.markup import escape

from pfungst.results import overview_lines

__all__ = ["SCREEN_LINES", "SUMMARY_LINES", "render_summary", "summary_lines"]

SCREEN_LINES = 25
"""The most lines a command prints by default (stdout and stderr together): one screen."""
SUMMARY_LINES = 20
"""The most lines the summary itself takes, leaving room for the notices on stderr (where the result was written,
a release gate's outcome)."""
_MIN_WIDTH = 40
"""Sentences wrap at the console's width, never narrower than this."""


def summary_lines(result: Any) -> tuple[str, ...]:
    """The sentences that sum ``result`` up: its ``summary_lines()``, else its overview's headline and rows.

    Example:
        >>> from pfungst.results import Overview
        >>> class Plain:
        ...     def overview(self):
        ...         return Overview({}, "", "3 keys suspected wrong", ())
        >>> summary_lines(Plain())
        ('3 keys suspected wrong',)
    """
    own = getattr(result, "summary_lines", None)
    return tuple(own()) if callable(own) else overview_lines(result.overview())


def render_summary(result: Any, console: Console, most: int = SUMMARY_LINES) -> int:
    """Print ``result``'s summary on ``console``: its first sentence in bold (what it is about), then its findings,
    each wrapped at the console's width; at most ``most`` lines. Returns the number of lines printed.

    Example:
        >>> import io
        >>> from pfungst.results import Overview
        >>> class Plain:
        ...     def summary_lines(self):
        ...         return ("Audit of toy (8 items)", "No evidence of a surface cue.")
        >>> console = Console(file=io.StringIO(), width=80)
        >>> render_summary(Plain(), console)
        2
        >>> print(console.file.getvalue(), end="")
        Audit of toy (8 items)
          No evidence of a surface cue.
    """
    sentences = summary_lines(result)
    width = max(console.width, _MIN_WIDTH)
    printed = 0
    for number, sentence in enumerate(sentences):
        indent = "" if number == 0 else "  "
        wrapped = textwrap.wrap(
            sentence, width, initial_indent=indent, subsequent_indent=indent + "  ", break_on_hyphens=False
        ) or [""]
        left = len(sentences) - number
        if printed + len(wrapped) > most - (1 if left > 1 else 0):
            console.print(f"  ... {left} more: --verbose, or the result file", style="dim", highlight=False)
            return printed + 1
        for line in wrapped:
            console.print(escape(line), style="bold" if number == 0 else None, highlight=False, soft_wrap=True)
        printed += len(wrapped)
    return printed
