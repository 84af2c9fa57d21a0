"""``render_html``: one self-contained HTML page from result files or objects, viewable with no network.

Item texts, ids, cue words, feature and model names come from benchmarks and users, so they are untrusted: the
template escapes every value (Jinja2 autoescape), the page links nothing from the data, plots are embedded as
``data:`` SVG images (where no script can run), and a Content-Security-Policy forbids scripts, frames and any
network access, so even a value that escaped escaping could not run.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2

from pfungst.blocks import Figure, Section
from pfungst.report.document import build_report, result_sections
from pfungst.serialization import atomic_write

__all__ = ["render_fragment", "render_html", "write_html"]

_TEMPLATE = "report.html.j2"
_FRAGMENT = "fragment.html.j2"
_fragments = itertools.count(1)
"""Numbers each fragment, so that anchors stay unique among many results shown in one notebook."""


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pfungst.report"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
    )


def _version() -> str:
    try:
        return metadata.version("pfungst")
    except metadata.PackageNotFoundError:
        return "unknown"


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
        >>> summary = {"benchmark": {"name": "<b>toy</b>", "n_items": 4}, "gold_counts": {"A": 3, "B": 1},
        ...            "gold_uniformity": {"value": 1.0, "pvalue": 0.32, "method": "chi-squared", "n": 4},
        ...            "majority": {"value": 0.75, "ci": None, "method": "share", "n": 4}}
        >>> page = render_html([summary], plots=False)
        >>> "<b>toy</b>" in page, "&lt;b&gt;toy&lt;/b&gt;" in page
        (False, True)
    """
    report = build_report(results, title=title)
    template = _environment().get_template(_TEMPLATE)
    return template.render(report=report, image=_images(report.figures, plots), version=_version())


def render_fragment(result: Any, *, plots: bool = True) -> str:
    """One result as an HTML fragment for a notebook cell (what ``_repr_html_`` shows): its sections as in the
    report, styles scoped to the fragment, plots as embedded images, no scripts; anchors unique per fragment.

    Raises:
        ConfigError: not a result.

    Example:
        >>> summary = {"benchmark": {"name": "toy", "n_items": 4}, "gold_counts": {"A": 3, "B": 1},
        ...            "gold_uniformity": {"value": 1.0, "pvalue": 0.32, "method": "chi-squared", "n": 4},
        ...            "majority": {"value": 0.75, "ci": None, "method": "share", "n": 4}}
        >>> html = render_fragment(summary, plots=False)
        >>> html.startswith('<div class="pfungst-view">'), "<script" in html
        (True, False)
    """
    sections = result_sections(result)
    anchor = f"pfungst-{next(_fragments)}-"
    template = _environment().get_template(_FRAGMENT)
    image = _images(_figures(sections), plots)
    return template.render(sections=sections, anchor=anchor, image=image, version=_version()).strip()


def _figures(sections: Sequence[Section]) -> tuple[Figure, ...]:
    return tuple(block for section in sections for block in section.blocks if isinstance(block, Figure))


def _images(figures: Iterable[Figure], plots: bool) -> Any:
    """``image(figure)``: the figure as a ``data:`` SVG address (empty when ``plots`` is False)."""
    images: dict[int, str] = {}
    if plots:
        from pfungst.report.plots import figure_svg

        for figure in figures:
            encoded = base64.b64encode(figure_svg(figure, title=False).encode("utf-8")).decode("ascii")
            images[id(figure)] = f"data:image/svg+xml;base64,{encoded}"

    def image(figure: Figure) -> str:
        return images.get(id(figure), "")

    return image


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
