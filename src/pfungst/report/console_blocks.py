"""Blocks (:mod:`pfungst.blocks`) on a rich console: the same tables, facts and texts that HTML and Markdown show.

Any result that renders as blocks prints through :func:`render_blocks`, so it needs no console code of its own;
:func:`render_to_console` prints a whole result object (what ``inspect``, ``audit``, ``score`` and ``reliance``
show). Plots become text: a ``bars`` figure draws one bar per label (shares against 1, other values against the
largest), an ``intervals`` figure is left out (its estimates are in the tables beside it). Every string is printed
literally (markup escaped). No cell is ever cut: a table too wide for the console (a narrow terminal, a log file)
prints one record per row instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text as RichText

from pfungst.blocks import (
    STATUSES,
    Block,
    Board,
    Code,
    Facts,
    Figure,
    Section,
    Table,
    Text,
    format_estimate,
    format_number,
)
from pfungst.results import Result

__all__ = ["render_blocks", "render_sections", "render_to_console"]

_BAR_WIDTH = 20
"""Characters of the longest bar."""


def render_to_console(result: Result, console: Console) -> None:
    """Print a result object on ``console``: its chapter, then each part, straight from its ``sections()`` (an
    object in memory is never written and read back to be printed).

    Example:
        >>> import io
        >>> from pfungst.data import Benchmark, Item
        >>> from pfungst.data.summary import summarize
        >>> console = Console(file=io.StringIO(), width=100)
        >>> render_to_console(summarize(Benchmark("toy", [Item("a", "q", ("x", "y"), 0)])), console)
        >>> "Histogram of gold positions" in " ".join(console.file.getvalue().split())
        True
    """
    render_sections(result.sections(), console)


def render_sections(sections: Iterable[Section], console: Console) -> None:
    """Each section's title (a rule for a chapter, bold for a part), then its blocks."""
    for section in sections:
        if section.level <= 2:
            console.rule(escape(section.title))
        else:
            console.print(f"[bold]{escape(section.title)}[/bold]")
        render_blocks(section.blocks, console)


def render_blocks(blocks: Iterable[Block], console: Console, indent: int = 2) -> None:
    """Print ``blocks`` in order, ``indent`` spaces in.

    Example:
        >>> import io
        >>> console = Console(file=io.StringIO(), width=80)
        >>> render_blocks([Facts((("items", "8"),)), Text("no bias found", tone="good")], console)
        >>> print(console.file.getvalue(), end="")
          items: 8
          no bias found
    """
    pad = " " * indent
    for block in blocks:
        if isinstance(block, Text):
            console.print(pad + escape(block.text), style="yellow" if block.tone == "bad" else None, highlight=False)
        elif isinstance(block, Facts):
            for label, value in block.pairs:
                console.print(f"{pad}{escape(label)}: {escape(value)}", highlight=False)
        elif isinstance(block, Table):
            _render_table(block, console, indent)
        elif isinstance(block, Board):
            _render_board(block, console, indent)
        elif isinstance(block, Figure):
            _render_figure(block, console, pad)
        elif isinstance(block, Code):
            if block.caption:
                console.print(pad + escape(block.caption), highlight=False)
            console.print(escape(block.text), highlight=False)


def _render_table(table: Table, console: Console, indent: int) -> None:
    """A table under its caption, text columns left and figure columns right, its methods note below (captions and
    notes wrap within the indent)."""
    if table.caption:
        console.print(Padding(RichText(table.caption + ":"), (0, 0, 0, indent)))
    if _width(table, indent) > console.width:
        _render_records(table, console, " " * indent)
    else:
        _render_rows(table, console, indent)
    if table.note:
        console.print(Padding(RichText(f"({table.note})", style="dim"), (0, 0, 0, indent)))


def _render_rows(table: Table, console: Console, indent: int) -> None:
    shown = RichTable(show_edge=False, box=None, padding=(0, 1, 0, indent))
    for number, column in enumerate(table.columns):
        shown.add_column(escape(column), justify="left" if number < table.text_columns else "right")
    for row in table.rows:
        shown.add_row(*(escape(cell) for cell in row))
    console.print(shown)


def _width(table: Table, indent: int) -> int:
    """The width the table needs with every cell whole (headers may wrap between words)."""
    widths = [max((len(word) for word in column.split()), default=0) for column in table.columns]
    for row in table.rows:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=False)]
    return indent + sum(widths) + 2 * len(widths)


def _render_records(table: Table, console: Console, pad: str) -> None:
    """A table too wide for the console, one record per row: its first cell, then ``column: value`` lines."""
    for row in table.rows:
        console.print(RichText(pad + (row[0] if row else ""), style="bold"))
        for column, cell in zip(table.columns[1:], row[1:], strict=False):
            console.print(RichText.assemble((f"{pad}  {column}: ", "dim"), cell))


def _render_board(board: Board, console: Console, indent: int) -> None:
    """The board as a table whose status cell carries its symbol, word and colour (records when too wide)."""
    rows = tuple(cells for _, cells in board.cells())
    table = Table(board.caption, board.columns, rows, text_columns=len(board.columns))
    console.print(Padding(RichText(board.caption + ":"), (0, 0, 0, indent)))
    if _width(table, indent) > console.width:
        _render_records(table, console, " " * indent)
        return
    shown = RichTable(show_edge=False, box=None, padding=(0, 1, 0, indent))
    for column in board.columns:
        shown.add_column(escape(column))
    for status, cells in board.cells():
        colour = STATUSES[status][2]
        shown.add_row(RichText(cells[0], style=f"bold {colour}"), *(RichText(cell) for cell in cells[1:]))
    console.print(shown)


def _render_figure(figure: Figure, console: Console, pad: str) -> None:
    """A ``bars`` figure as one text bar per label (a share against 1, other values against the largest); other
    plots are left out."""
    if figure.plot != "bars":
        return
    labels = [str(label) for label in figure.data.get("labels") or []]
    estimates: list[Mapping[str, Any] | None] = list(figure.data.get("estimates") or [])
    if not estimates:  # counts (a histogram) rather than estimates
        estimates = [{"value": value} for value in figure.data.get("values") or []]
    values = [_value(estimate) for estimate in estimates]
    defined = [value for value in values if not math.isnan(value)]
    top = 1.0 if all(0.0 <= value <= 1.0 for value in defined) else max(defined, default=0.0)
    width = max((len(label) for label in labels), default=1)
    console.print(f"{pad}{escape(figure.title)}:", highlight=False)
    for label, estimate, value in zip(labels, estimates, values, strict=False):
        bar = "" if math.isnan(value) or top <= 0 else "█" * round(max(value, 0.0) / top * _BAR_WIDTH)
        figure_text = format_estimate(estimate) if estimate else format_number(value)
        console.print(f"{pad}  {escape(f'{label:>{width}}')} {bar:<{_BAR_WIDTH}} {figure_text}", highlight=False)


def _value(estimate: Mapping[str, Any] | None) -> float:
    value = (estimate or {}).get("value")
    return math.nan if value is None else float(value)
