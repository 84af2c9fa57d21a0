"""Console lines that are no result: the list of readers.

Results print through the generic block renderer (:func:`pfungst.report.console_blocks.render_to_console`).
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

__all__ = ["render_readers"]


def render_readers(rows: list[tuple[str, str]], console: Console) -> None:
    """One line per reader: name and description."""
    width = max((len(name) for name, _ in rows), default=0)
    for name, description in rows:
        console.print(f"{name:<{width}}  {escape(description)}", highlight=False, soft_wrap=True)
