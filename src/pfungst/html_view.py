"""Sections as HTML: the templates every HTML view shares, and one result's view for a notebook cell.

A shared module: a result's ``_repr_html_`` (:mod:`pfungst.display`) renders its own ``sections()`` here, and the
report stage renders whole pages with the same templates (:mod:`pfungst.report.html`). Values from the data are
untrusted: the templates escape every value, plots are embedded as ``data:`` SVG images (where no script can run),
and nothing is loaded from the network.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata

import jinja2

from pfungst.blocks import Figure, Section

__all__ = ["environment", "figure_images", "render_fragment", "version"]

_FRAGMENT = "fragment.html.j2"
_fragments = itertools.count(1)
"""Numbers each fragment, so that anchors stay unique among many results shown in one notebook."""


def environment() -> jinja2.Environment:
    """The Jinja2 environment over pfungst's templates: every value escaped, an undefined name an error."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pfungst"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
    )


def version() -> str:
    """pfungst's installed version, for a page's footer (``unknown`` when run from a source tree)."""
    try:
        return metadata.version("pfungst")
    except metadata.PackageNotFoundError:
        return "unknown"


def render_fragment(sections: Sequence[Section], *, plots: bool = True) -> str:
    """Sections as an HTML fragment for a notebook cell: styles scoped to the fragment, plots as embedded images,
    no scripts; anchors unique per fragment.

    Example:
        >>> from pfungst.blocks import Text
        >>> html = render_fragment([Section("<b>toy</b>", (Text("a finding"),))], plots=False)
        >>> html.startswith('<div class="pfungst-view">'), "<script" in html, "&lt;b&gt;toy" in html
        (True, False, True)
    """
    anchor = f"pfungst-{next(_fragments)}-"
    figures = tuple(block for section in sections for block in section.blocks if isinstance(block, Figure))
    image = figure_images(figures, plots)
    template = environment().get_template(_FRAGMENT)
    return template.render(sections=sections, anchor=anchor, image=image, version=version()).strip()


def figure_images(figures: Iterable[Figure], plots: bool) -> Callable[[Figure], str]:
    """``image(figure)``: the figure as a ``data:`` SVG address (empty when ``plots`` is False)."""
    images: dict[int, str] = {}
    if plots:
        from pfungst.drawing import figure_svg  # matplotlib, imported only when a plot is drawn

        for figure in figures:
            encoded = base64.b64encode(figure_svg(figure, title=False).encode("utf-8")).decode("ascii")
            images[id(figure)] = f"data:image/svg+xml;base64,{encoded}"

    def image(figure: Figure) -> str:
        return images.get(id(figure), "")

    return image
