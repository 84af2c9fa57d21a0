"""The console renderer of blocks: what ``inspect``, ``audit``, ``score`` and ``reliance`` print, with rich.

Generic: it lays out any :mod:`pfungst.blocks` tree (sections, text, facts, tables, the board), so each result type
has one renderer (to blocks) for the console and the HTML, Markdown and JSON reports alike. Every string from the
results goes through :func:`rich.markup.escape`; tables fold long cells instead of cutting them, so no name or
number is lost in a narrow terminal or a log file; a table too wide even then prints one record per row.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable
from rich.text import Text as RichText

from pfungst.blocks import STATUSES, Block, Board, Facts, Section, Table, Text
from pfungst.report.document import result_sections

__all__ = ["render_blocks", "render_sections", "render_to_console"]

_TONES = {"bad": "bold red", "good": "bold green"}


def render_to_console(result: Any, console: Console) -> None:
    """Print a result object (or a loaded result file) on ``console``: its chapter, then each part.

    Raises:
        ConfigError: ``result`` is not a result.

    Example:
        >>> import io
        >>> from pfungst.data import Benchmark, Item
        >>> from pfungst.data.summary import summarize
        >>> console = Console(file=io.StringIO(), width=100)
        >>> render_to_console(summarize(Benchmark("toy", [Item("a", "q", ("x", "y"), 0)])), console)
        >>> "Histogram of gold positions" in " ".join(console.file.getvalue().split())
        True
    """
    render_sections(result_sections(result), console)


def render_sections(sections: Iterable[Section], console: Console) -> None:
    """Each section's title (a rule for a chapter, bold for a part), then its blocks."""
    for section in sections:
        if section.level <= 2:
            console.rule(escape(section.title))
        else:
            console.print(f"[bold]{escape(section.title)}[/bold]")
        render_blocks(section.blocks, console)


def render_blocks(blocks: Iterable[Block], console: Console) -> None:
    """Text as paragraphs (coloured by tone), facts as label: value lines, tables and the board as tables; figures
    and settings are left to the files (every figure's numbers are in a table)."""
    for block in blocks:
        if isinstance(block, Text):
            style = _TONES.get(block.tone)
            console.print(RichText(block.text, style=style or ""), soft_wrap=False)
        elif isinstance(block, Facts):
            for label, value in block.pairs:
                console.print(RichText.assemble((f"{label}: ", "dim"), value))
        elif isinstance(block, Table):
            if _width(block) <= console.width:
                console.print(_table(block))
            else:
                _records(block, console)
            if block.note:
                console.print(RichText(f"method: {block.note}", style="dim"))
        elif isinstance(block, Board):
            console.print(_board(block))


def _table(block: Table) -> RichTable:
    table = RichTable(title=escape(block.caption), title_justify="left", show_edge=False)
    for number, column in enumerate(block.columns):
        text = number < block.text_columns
        table.add_column(escape(column), justify="left" if text else "right", overflow="fold")
    for row in block.rows:
        table.add_row(*(escape(cell) for cell in row))
    return table


def _width(block: Table) -> int:
    """The width the table needs with every cell whole (headers may wrap between words)."""
    widths = [max((len(word) for word in column.split()), default=0) for column in block.columns]
    for row in block.rows:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=False)]
    return sum(widths) + 3 * len(widths)


def _records(block: Table, console: Console) -> None:
    """A table too wide for the console, one record per row: its first cell, then ``column: value`` lines."""
    console.print(RichText(block.caption, style="italic"))
    for row in block.rows:
        console.print(RichText(row[0] if row else "", style="bold"))
        for column, cell in zip(block.columns[1:], row[1:], strict=False):
            console.print(RichText.assemble(("  " + column + ": ", "dim"), cell))


def _board(block: Board) -> RichTable:
    table = RichTable(title=escape(block.caption), title_justify="left", show_edge=False)
    for column in block.columns:
        table.add_column(escape(column), overflow="fold")
    for status, cells in block.cells():
        colour = STATUSES[status][2]
        table.add_row(f"[{colour}]{escape(cells[0])}[/{colour}]", *(escape(cell) for cell in cells[1:]))
    return table
