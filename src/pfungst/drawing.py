"""Draw figures (:class:`~pfungst.blocks.Figure`) with matplotlib (no pyplot, no display): SVG text for inlining, PNG
or SVG bytes for files. A shared module: reports and a result's notebook view draw with it.

Each :class:`~pfungst.blocks.Figure` names its drawing in :data:`PLOTS` and carries the figures to draw
(labels, Estimate dicts with their intervals, reference lines); nothing is computed here. Labels come from the data
(feature sets, model names, prompt texts), so math text is off and matplotlib escapes them in SVG; reports embed
the SVG as an image, where no script can run.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pfungst.blocks import Figure
from pfungst.errors import ConfigError
from pfungst.registry import Registry

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FORMATS", "PLOTS", "figure_bytes", "figure_svg"]

FORMATS = ("png", "svg")
"""File formats :func:`figure_bytes` draws."""

_RC: dict[str, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "pfungst",
    "text.parse_math": False,
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
"""Text stays text in SVG (small, searchable); ids are reproducible; ``$`` in a label is a dollar sign."""
_LABEL_CHARS = 60
"""Longer labels (prompt texts) are cut to this many characters in a plot; tables keep them whole."""
_COLOURS = ("#444444", "#b03a2e", "#1f618d", "#7d6608")


def _label(text: Any) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 3] + "..."


def _errors(estimates: list[Mapping[str, Any] | None]) -> tuple[list[float], list[list[float]]]:
    """Values (NaN where missing) and the lower/upper error lengths from each interval (0 where none)."""
    values, low, high = [], [], []
    for estimate in estimates:
        value = (estimate or {}).get("value")
        ci = (estimate or {}).get("ci") or {}
        values.append(float("nan") if value is None else float(value))
        lo, hi = ci.get("low"), ci.get("high")
        low.append(max(0.0, value - lo) if value is not None and lo is not None else 0.0)
        high.append(max(0.0, hi - value) if value is not None and hi is not None else 0.0)
    return values, [low, high]


def _references(axes: Axes, data: Mapping[str, Any], vertical: bool) -> None:
    for number, (value, name) in enumerate(data.get("references") or []):
        if value is None:
            continue
        line = axes.axvline if vertical else axes.axhline
        line(float(value), linestyle="--", linewidth=1, color=_COLOURS[1 + number % 3], label=_label(name))
    if data.get("references"):
        axes.legend(loc="best", fontsize=8, frameon=False)


def _intervals(axes: Axes, data: Mapping[str, Any]) -> None:
    """One row per label: the value as a point, its interval as a horizontal bar (first label on top)."""
    labels = [_label(label) for label in data.get("labels") or []]
    values, errors = _errors(list(data.get("estimates") or []))
    rows = list(range(len(labels)))[::-1]
    axes.errorbar(values, rows, xerr=errors, fmt="o", color=_COLOURS[0], ecolor=_COLOURS[0], capsize=3, markersize=4)
    axes.set_yticks(rows, labels)
    axes.set_xlabel(_label(data.get("axis", "")))
    axes.grid(axis="x", linewidth=0.4, alpha=0.5)
    _references(axes, data, vertical=True)


def _bars(axes: Axes, data: Mapping[str, Any]) -> None:
    """One bar per label with its interval as an error bar (or plain counts from ``values``)."""
    labels = [_label(label) for label in data.get("labels") or []]
    if data.get("estimates") is not None:
        values, errors = _errors(list(data["estimates"]))
        axes.bar(
            range(len(labels)),
            [0.0 if v != v else v for v in values],
            yerr=errors,
            capsize=3,
            color="#9db4c8",
            edgecolor=_COLOURS[0],
            linewidth=0.6,
        )
    else:
        axes.bar(
            range(len(labels)),
            [float(v) for v in data.get("values") or []],
            color="#9db4c8",
            edgecolor=_COLOURS[0],
            linewidth=0.6,
        )
    axes.set_xticks(range(len(labels)), labels, rotation=0 if len(labels) <= 8 else 60)
    axes.set_ylabel(_label(data.get("axis", "")))
    axes.grid(axis="y", linewidth=0.4, alpha=0.5)
    _references(axes, data, vertical=False)


PLOTS: Registry[Callable[[Axes, Mapping[str, Any]], None]] = Registry(
    "plot", {"intervals": _intervals, "bars": _bars}, group=None
)
"""Drawing name -> the function that draws a figure's data on matplotlib axes."""


def _draw(figure: Figure, fmt: str, title: bool = True) -> bytes:
    if figure.plot not in PLOTS:
        raise ConfigError(f"unknown plot {figure.plot!r}; known: {', '.join(PLOTS)}")
    import matplotlib
    from matplotlib.figure import Figure as MatplotlibFigure

    with matplotlib.rc_context(_RC):  # type: ignore[arg-type]
        n = len(figure.data.get("labels") or [])
        height = 0.9 + 0.24 * n if figure.plot == "intervals" else 3.2
        drawing = MatplotlibFigure(figsize=(7.0, min(max(height, 2.2), 20.0)), layout="constrained")
        axes = drawing.add_subplot()
        PLOTS.resolve(figure.plot)(axes, figure.data)
        if title:
            axes.set_title(_label(figure.title), loc="left", fontsize=10)
        buffer = io.BytesIO()
        metadata: dict[str, Any] = {"Date": None} if fmt == "svg" else {}
        drawing.savefig(buffer, format=fmt, metadata=metadata, dpi=110)
    return buffer.getvalue()


def figure_svg(figure: Figure, *, title: bool = True) -> str:
    """The figure as SVG text without the XML prologue, ready to inline or to embed as an image.

    Args:
        figure: What to draw.
        title: Draw the title above the plot (False where the page shows it as a caption).

    Example:
        >>> svg = figure_svg(Figure("bars", "gold answers", {"labels": ["A", "B"], "values": [3, 1]}))
        >>> svg.startswith("<svg")
        True
    """
    text = _draw(figure, "svg", title).decode("utf-8")
    return text[text.index("<svg") :]


def figure_bytes(figure: Figure, fmt: str = "png") -> bytes:
    """The figure as a PNG or SVG file's bytes.

    Raises:
        ConfigError: ``fmt`` not in :data:`FORMATS`.
    """
    if fmt not in FORMATS:
        raise ConfigError(f"cannot draw plots as {fmt!r}; choose one of {', '.join(FORMATS)}")
    return _draw(figure, fmt)
