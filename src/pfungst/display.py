"""How a result shows itself in a notebook: ``_repr_html_`` (the report's own blocks, as ``pfungst report`` draws
them) and ``to_frame()`` (every figure it holds, one row each, with its interval, p-value, baseline and n).

Shared by every result class (a mixin over ``to_dict()`` and ``sections()``): the view is the result's own sections,
drawn by :mod:`pfungst.html_view` (shared too), so a result never reaches into the report stage.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from pfungst.blocks import Section

__all__ = ["FIGURE_COLUMNS", "NotebookDisplay", "figures_frame"]

FIGURE_COLUMNS = ("name", "value", "low", "high", "level", "pvalue", "baseline", "n", "method")
"""The columns of ``to_frame()``: a figure's name (its path in the result's JSON), its value, interval, p-value,
the baseline it must beat, the count behind it and how it was estimated; missing parts are NaN or empty."""

_PER_ITEM = frozenset(
    {"outcomes", "items", "predictions", "item_predictions", "benchmark", "environment", "settings", "provenance"}
)
"""Keys that hold per-item records or run metadata, not figures: left out of ``to_frame()``."""
_NAMING_KEYS = ("name", "perturbation", "feature_set", "heuristic", "model", "family", "variant", "rule", "format")
"""Keys that name an element of a list of figures (``accuracies[perturbation=cyclic, variant=shift 1]``)."""


class NotebookDisplay:
    """Mixin for result classes with ``to_dict()``: rich display in Jupyter and a tidy frame of every figure."""

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - provided by the result class
        raise NotImplementedError

    def sections(self) -> tuple[Section, ...]:  # pragma: no cover - provided by the result class
        raise NotImplementedError

    def _repr_html_(self) -> str:
        """The result's sections as the HTML report shows them (Jupyter calls this to display the object)."""
        from pfungst.html_view import render_fragment  # Jinja2, imported when a notebook asks

        return render_fragment(self.sections())

    def to_frame(self) -> pd.DataFrame:
        """Every figure of the result, one row each: :data:`FIGURE_COLUMNS` (``name`` is the figure's path in the
        JSON, e.g. ``probes[feature_set=options].kappa``)."""
        return figures_frame(self.to_dict())


def figures_frame(data: Mapping[str, Any]) -> pd.DataFrame:
    """One row per estimate found in a result's JSON dict (a mapping with a ``value`` and an interval, p-value,
    baseline or method), in the order of the JSON.

    Example:
        >>> frame = figures_frame({"accuracy": {"value": 0.5, "ci": {"low": 0.4, "high": 0.6, "level": 0.95},
        ...                                     "baseline": 0.25, "n": 100, "method": "wilson"}})
        >>> frame.loc[0, ["name", "value", "low", "high", "baseline", "n"]].astype(str).tolist()
        ['accuracy', '0.5', '0.4', '0.6', '0.25', '100']
    """
    import pandas as pd

    rows = [_row(name, estimate) for name, estimate in _estimates(data, "")]
    return pd.DataFrame(rows, columns=list(FIGURE_COLUMNS))


def _estimates(value: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    if isinstance(value, Mapping):
        if _is_estimate(value):
            yield path, value
            return
        for key, inner in value.items():
            if key in _PER_ITEM or key == "schema_version":
                continue
            yield from _estimates(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _estimates(inner, f"{path}[{_element_name(inner, index)}]")


def _is_estimate(value: Mapping[str, Any]) -> bool:
    if "value" not in value:
        return False
    number = value["value"]
    if number is None:  # NaN is written as null: still a figure, when it says how it was made
        return "method" in value
    if isinstance(number, bool) or not isinstance(number, int | float):
        return False
    return any(key in value for key in ("ci", "pvalue", "baseline", "method"))


def _element_name(element: Any, index: int) -> str:
    if isinstance(element, Mapping):
        parts = [f"{key}={element[key]}" for key in _NAMING_KEYS if isinstance(element.get(key), str | int)]
        if parts:
            return ", ".join(parts)
    return str(index)


def _row(name: str, estimate: Mapping[str, Any]) -> dict[str, Any]:
    found = estimate.get("ci")
    ci: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    return {
        "name": name,
        "value": _number(estimate.get("value")),
        "low": _number(ci.get("low")),
        "high": _number(ci.get("high")),
        "level": _number(ci.get("level")),
        "pvalue": _number(estimate.get("pvalue")),
        "baseline": _number(estimate.get("baseline")),
        "n": estimate.get("n") if isinstance(estimate.get("n"), int) else None,
        "method": str(estimate.get("method") or ""),
    }


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value)
