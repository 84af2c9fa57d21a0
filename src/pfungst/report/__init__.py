"""Reports: render result objects for people (console, HTML, Markdown) and machines (JSON). Reports compute nothing.

HTML, Markdown and JSON reports render the result files that ``--json`` writes (``load_results``), so a report can be
made later, elsewhere, from files alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.lazy import lazy_exports

if TYPE_CHECKING:
    from pfungst.report.console import render_readers
    from pfungst.report.console_blocks import render_to_console
    from pfungst.report.document import build_report
    from pfungst.report.findings import findings_frame, render_findings, write_findings
    from pfungst.report.html import render_html, write_html
    from pfungst.report.loading import load_result, load_results, read_result
    from pfungst.report.markdown import render_markdown
    from pfungst.report.output import write_report
    from pfungst.report.plots import write_plots

__all__ = [
    "build_report",
    "findings_frame",
    "load_result",
    "load_results",
    "read_result",
    "render_findings",
    "render_html",
    "render_markdown",
    "render_readers",
    "render_to_console",
    "write_findings",
    "write_html",
    "write_plots",
    "write_report",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "render_readers": "pfungst.report.console",
        "render_to_console": "pfungst.report.console_blocks",
        "build_report": "pfungst.report.document",
        "findings_frame": "pfungst.report.findings",
        "render_findings": "pfungst.report.findings",
        "write_findings": "pfungst.report.findings",
        "render_html": "pfungst.report.html",
        "write_html": "pfungst.report.html",
        "load_result": "pfungst.report.loading",
        "load_results": "pfungst.report.loading",
        "read_result": "pfungst.report.loading",
        "render_markdown": "pfungst.report.markdown",
        "write_report": "pfungst.report.output",
        "write_plots": "pfungst.report.plots",
    },
    globals(),
)
