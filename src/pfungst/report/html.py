"""``render_html``: one self-contained HTML page from result files or objects, viewable with no network.

Item texts, ids, cue words, feature and model names come from benchmarks and users, so they are untrusted: the
template escapes every value (Jinja2 autoescape), the page links nothing from the data, plots are embedded as
``data:`` SVG images (where no script can run), and a Content-Security-Policy forbids scripts, frames and any
network access, so even a value that escaped escaping could not run.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pfungst import html_view
from pfungst.report.document import build_report, result_sections
from pfungst.serialization import atomic_write

__all__ = ["render_fragment", "render_html", "write_html"]

_TEMPLATE = "report.html.j2"


def render_html(results: Iterable[Any], *, title: str | None = None, plots: bool = True) -> str:
    """The report on ``results`` as one HTML page: inline CSS, plots as embedded images, no scripts.

    Args:
        results: Loaded result files (:func:`~pfungst.report.loading.load_results`), result dicts, or result
            objects (``AuditResult``, ``StressResult``, ``BenchmarkSummary``, ...).
        title: The page title; by default one naming the benchmarks.
        plots: Draw the figures (matplotlib); False leaves them out (tables carry every figure anyway).

    Raises:
        ConfigError: an input of an unknown kind or schema.

    Example:
        >>> summary = {"schema_version": "pfungst.summary/2", "benchmark": {"name": "<b>toy</b>", "n_items": 4},
        ...            "gold_counts": {"A": 3, "B": 1},
        ...            "gold_uniformity": {"value": 1.0, "pvalue": 0.32, "method": "chi-squared", "n": 4},
        ...            "majority": {"value": 0.75, "ci": None, "method": "share", "n": 4}}
        >>> page = render_html([summary], plots=False)
        >>> "<b>toy</b>" in page, "&lt;b&gt;toy&lt;/b&gt;" in page
        (False, True)
    """
    report = build_report(results, title=title)
    template = html_view.environment().get_template(_TEMPLATE)
    image = html_view.figure_images(report.figures, plots)
    return template.render(report=report, image=image, version=html_view.version())


def render_fragment(result: Any, *, plots: bool = True) -> str:
    """One result as an HTML fragment for a notebook cell (what ``_repr_html_`` shows): its sections as in the
    report, styles scoped to the fragment, plots as embedded images, no scripts; anchors unique per fragment.

    Raises:
        ConfigError: not a result.

    Example:
        >>> summary = {"schema_version": "pfungst.summary/2", "benchmark": {"name": "toy", "n_items": 4},
        ...            "gold_counts": {"A": 3, "B": 1},
        ...            "gold_uniformity": {"value": 1.0, "pvalue": 0.32, "method": "chi-squared", "n": 4},
        ...            "majority": {"value": 0.75, "ci": None, "method": "share", "n": 4}}
        >>> html = render_fragment(summary, plots=False)
        >>> html.startswith('<div class="pfungst-view">'), "<script" in html
        (True, False)
    """
    return html_view.render_fragment(result_sections(result), plots=plots)


def write_html(results: Iterable[Any], path: str | Path, *, title: str | None = None, plots: bool = True) -> Path:
    """Write :func:`render_html` to ``path`` (UTF-8, atomically; parent folders created) and return the path.

    Raises:
        ConfigError: as :func:`render_html`.
    """
    path = Path(path)
    page = render_html(results, title=title, plots=plots)
    with atomic_write(path) as handle:
        handle.write(page)
    return path
