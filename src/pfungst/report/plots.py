"""``write_plots``: every figure of a report as a PNG or SVG file, named by its chapter and title."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pfungst.blocks import Figure, Report
from pfungst.drawing import FORMATS, figure_bytes
from pfungst.errors import ConfigError
from pfungst.report.document import build_report
from pfungst.serialization import atomic_write

__all__ = ["FORMATS", "write_plots"]


def write_plots(
    results: Iterable[Any], folder: str | Path, fmt: str = "png", *, title: str | None = None
) -> tuple[Path, ...]:
    """Write every figure of the report on ``results`` to ``folder`` as ``NN-title.png`` (or ``.svg``).

    Args:
        results: What :func:`~pfungst.report.document.build_report` takes: loaded files, dicts or result objects.
        folder: Created if missing.
        fmt: ``png`` or ``svg``.
        title: Passed to the report (does not change the plots).

    Returns:
        The paths written, in the report's order of figures.

    Raises:
        ConfigError: ``fmt`` not in :data:`FORMATS`, or an input a report cannot read.
    """
    if fmt not in FORMATS:
        raise ConfigError(f"cannot write plots as {fmt!r}; choose one of {', '.join(FORMATS)}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, (chapter, figure) in enumerate(_figures(build_report(results, title=title)), start=1):
        path = folder / f"{number:02d}-{_slug(chapter, 30)}-{_slug(figure.title, 40)}.{fmt}"
        with atomic_write(path, binary=True) as handle:
            handle.write(figure_bytes(figure, fmt))
        paths.append(path)
    return tuple(paths)


def _figures(report: Report) -> list[tuple[str, Figure]]:
    """Each figure with the title of its chapter (the level-2 section it sits under), in reading order."""
    found, chapter = [], ""
    for section in report.sections:
        chapter = section.title if section.level == 2 else chapter
        found += [(chapter, block) for block in section.blocks if isinstance(block, Figure)]
    return found


def _slug(text: str, length: int) -> str:
    """A file-name-safe part: lowercase ASCII letters, digits and dashes (data-derived titles can hold anything)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:length].strip("-") or "figure"
