"""``write_report``: the report in the format its file name asks for (``.html``, ``.md``, ``.json``), plots on request.

What ``pfungst report RESULTS... -o report.html`` calls; the Python API does the same in one line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pfungst.errors import ConfigError
from pfungst.report.document import build_report
from pfungst.report.html import write_html
from pfungst.report.loading import as_result
from pfungst.report.markdown import render_markdown
from pfungst.report.plots import FORMATS, write_plots
from pfungst.serialization import atomic_write, write_json

__all__ = ["REPORT_SUFFIXES", "write_report"]

REPORT_SUFFIXES = (".html", ".md", ".json")
"""Report file types: a self-contained page, Markdown (CI logs, papers), the report's tables as JSON."""


def write_report(
    results: Iterable[Any],
    path: str | Path,
    *,
    title: str | None = None,
    plots: str | Path | None = None,
    plot_format: str = "png",
) -> tuple[Path, ...]:
    """Write the report on ``results`` to ``path`` (its suffix picks the format) and, if asked, every plot.

    Args:
        results: Loaded result files, result dicts or result objects.
        path: ``.html`` (plots embedded), ``.md`` (links to the plot files when ``plots`` is given) or ``.json``.
        title: The report's title; by default one naming the benchmarks.
        plots: A folder for the plots as separate files; None writes none.
        plot_format: ``png`` or ``svg``.

    Returns:
        The report's path, then the plot files in the report's order.

    Raises:
        ConfigError: another suffix or plot format, or an input a report cannot read.

    Example:
        >>> import tempfile, pathlib
        >>> summary = {"schema_version": "pfungst.summary/2", "benchmark": {"name": "toy", "n_items": 4},
        ...            "gold_counts": {"A": 3, "B": 1},
        ...            "gold_uniformity": {"value": 1.0, "pvalue": 0.32, "method": "chi-squared", "n": 4},
        ...            "majority": {"value": 0.75, "ci": None, "method": "share", "n": 4}}
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     written = write_report([summary], pathlib.Path(folder) / "report.md")
        ...     print(written[0].read_text().splitlines()[0])
        # pfungst report: toy
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in REPORT_SUFFIXES:
        raise ConfigError(
            f"cannot write a report to {path}: the suffix {path.suffix!r} is not one of "
            f"{', '.join(REPORT_SUFFIXES)}. Name it report.html, report.md or report.json."
        )
    if plot_format not in FORMATS:
        raise ConfigError(f"cannot write plots as {plot_format!r}; choose one of {', '.join(FORMATS)}")
    loaded = [as_result(result) for result in results]
    figures = write_plots(loaded, plots, plot_format, title=title) if plots is not None else ()
    if suffix == ".html":
        return (write_html(loaded, path, title=title), *figures)
    if suffix == ".md":
        relative = [os.path.relpath(figure, path.parent) for figure in figures]
        text = render_markdown(loaded, title=title, figure_paths=relative)
    else:
        return (write_json(path, build_report(loaded, title=title).to_dict()), *figures)
    with atomic_write(path) as handle:
        handle.write(text)
    return (path, *figures)
