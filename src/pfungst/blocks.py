"""Results as documents: sections of text, tables, facts and figures that HTML, Markdown, JSON and the console
render alike.

A shared module, so that every stage can say how its results render (a perturbation's result, an audit) without
importing :mod:`pfungst.report`, which only lays these blocks out. Every cell is a
string made here, so the number formats (value with its interval, p-values, missing values) are the same in every
output. Blocks hold raw text from the results (item ids, cue words, model names): each renderer escapes it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pfungst.schema import SCHEMA_VERSIONS

__all__ = [
    "ESTIMATE_COLUMNS",
    "MISSING",
    "STATUSES",
    "Board",
    "Code",
    "Facts",
    "Figure",
    "Report",
    "Section",
    "Table",
    "Text",
    "estimate_row",
    "format_estimate",
    "format_interval",
    "format_number",
    "format_pvalue",
    "generic_blocks",
    "is_estimate",
    "methods_note",
    "short_model",
]

MISSING = "n/a"
"""What a cell shows where the result has no value (None or NaN)."""
ESTIMATE_COLUMNS = ("figure", "value [CI]", "baseline", "p", "n")
"""The columns of :func:`estimate_row`."""
_COUNTS = re.compile(r"\([^()]*\d[^()]*\)")
"""A parenthesis holding a number: the part of a method's text that varies from row to row."""


@dataclass(frozen=True)
class Text:
    """A paragraph; ``tone`` marks a verdict (``good``: no evidence of a problem, ``bad``: a problem found)."""

    text: str
    tone: str = ""
    kind: ClassVar[str] = "text"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "tone": self.tone}


@dataclass(frozen=True)
class Facts:
    """Label-value pairs (a definition list)."""

    pairs: tuple[tuple[str, str], ...]
    kind: ClassVar[str] = "facts"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "pairs": [list(pair) for pair in self.pairs]}


@dataclass(frozen=True)
class Table:
    """A table of strings; the first ``text_columns`` columns are text, the rest figures (aligned right)."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    text_columns: int = 1
    note: str = ""
    """How the figures were computed (the estimates' method), shown under the table."""
    links: tuple[str, ...] = ()
    """Per row, the title of the section its first cell links to (HTML); empty for no links."""
    kind: ClassVar[str] = "table"

    def to_dict(self) -> dict[str, Any]:
        table = {
            "kind": self.kind,
            "caption": self.caption,
            "columns": list(self.columns),
            "rows": [list(row) for row in self.rows],
            "note": self.note,
        }
        return {**table, "links": list(self.links)} if self.links else table


@dataclass(frozen=True)
class Figure:
    """A plot to draw: ``plot`` names the drawing in :data:`pfungst.drawing.PLOTS`, ``data`` holds its input."""

    plot: str
    """``intervals`` (points with intervals, one row per label) or ``bars`` (bars with optional error bars)."""
    title: str
    data: Mapping[str, Any] = field(default_factory=dict)
    """``labels``, ``estimates`` (Estimate dicts) or ``values``, ``reference``, ``reference_label``, ``axis``."""
    kind: ClassVar[str] = "figure"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "plot": self.plot, "title": self.title}


@dataclass(frozen=True)
class Code:
    """Preformatted text (settings as JSON)."""

    text: str
    caption: str = ""
    kind: ClassVar[str] = "code"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "caption": self.caption, "text": self.text}


STATUSES: dict[str, tuple[str, str, str]] = {
    "bad": ("\u2716", "problem", "#d55e00"),
    "warn": ("\u25b2", "caution", "#e69f00"),
    "good": ("\u2714", "ok", "#009e73"),
    "info": ("\u25cf", "info", "#0072b2"),
}
"""Board status -> (symbol, words, colour): the Okabe-Ito palette, which colour-blind readers tell apart, and a
symbol and words besides, so that the colour is never the only sign."""


@dataclass(frozen=True)
class Board:
    """The one-glance board a report opens with: one row per benchmark and model, with its verdict, its headline
    figure with interval, and a status (a key of :data:`STATUSES`)."""

    rows: tuple[tuple[str, str, str, str, str], ...]
    """``(benchmark, model, verdict, headline, status)`` per row."""
    caption: str = "At a glance"
    columns: ClassVar[tuple[str, ...]] = ("status", "benchmark", "model", "verdict", "figures [CI]")
    kind: ClassVar[str] = "board"

    def cells(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Per row: its status key, and its cells as printed (the status as symbol and words first)."""
        return tuple(
            (status, (f"{STATUSES[status][0]} {STATUSES[status][1]}", benchmark, model, verdict, headline))
            for benchmark, model, verdict, headline, status in self.rows
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "caption": self.caption,
            "columns": list(self.columns),
            "rows": [[status, *cells] for status, cells in self.cells()],
        }


Block = Text | Facts | Table | Figure | Code | Board


@dataclass(frozen=True)
class Section:
    """A titled part of the report; ``level`` 2 is a chapter (listed in the contents), 3 a part of one."""

    title: str
    blocks: tuple[Block, ...]
    level: int = 2

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "level": self.level, "blocks": [block.to_dict() for block in self.blocks]}


@dataclass(frozen=True)
class Report:
    """A whole report: title, sections in reading order, and the inputs it was rendered from."""

    title: str
    sections: tuple[Section, ...]
    sources: tuple[dict[str, Any], ...]
    """One ``{"source", "kind", "schema_version", "sha256"}`` per input."""
    schema_version: ClassVar[str] = SCHEMA_VERSIONS["report"]

    @property
    def figures(self) -> tuple[Figure, ...]:
        """Every figure in reading order (the order :func:`~pfungst.report.plots.write_plots` numbers them)."""
        return tuple(block for section in self.sections for block in section.blocks if isinstance(block, Figure))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: the report's tables and texts, as printed."""
        return {
            "schema_version": self.schema_version,
            "title": self.title,
            "sources": list(self.sources),
            "sections": [section.to_dict() for section in self.sections],
        }

    def __repr__(self) -> str:
        return f"Report({self.title!r}, {len(self.sections)} sections, {len(self.sources)} inputs)"


def format_number(value: Any, digits: int = 3) -> str:
    """A figure as printed: ``n/a`` for None or NaN, integers whole, floats to ``digits`` decimals.

    Example:
        >>> format_number(0.39904), format_number(12), format_number(None), format_number(float("nan"))
        ('0.399', '12', 'n/a', 'n/a')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.{digits}f}" if abs(value) < 1e5 else f"{value:.4g}"
    return str(value)


def format_pvalue(value: Any) -> str:
    """A p- or q-value: four decimals, or scientific notation below 0.0001.

    Example:
        >>> format_pvalue(0.012987), format_pvalue(1.1e-36), format_pvalue(None)
        ('0.0130', '1.1e-36', 'n/a')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:.1e}" if 0 < value < 1e-4 else f"{value:.4f}"


def _plain(value: Any) -> Any:
    """An object with ``to_dict()`` (an Estimate, an interval) as its dict; anything else as it is."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value


def short_model(fingerprint: str) -> str:
    """The model file's name for a llama.cpp fingerprint (``llamacpp:<name>:<size>:<sha256>``; a file written before
    fingerprints dropped the path gives its last part), else all of it.

    Example:
        >>> short_model("llamacpp:smol.gguf:93:ab12"), short_model("openai:gpt-4o")
        ('smol.gguf', 'openai:gpt-4o')
    """
    parts = fingerprint.split(":")
    if fingerprint.startswith("llamacpp:") and len(parts) >= 4:
        return Path(":".join(parts[1:-2])).name
    return fingerprint


def format_interval(ci: Any, digits: int = 3) -> str:
    """``[low, high]``, with the level where it is not 95%; empty when there is no interval or neither bound is a
    number.

    Example:
        >>> format_interval({"low": 0.2335, "high": 0.484, "level": 0.99615})
        '[0.234, 0.484] (99.6%)'
    """
    ci = _plain(ci)
    if not ci:
        return ""
    low, high = format_number(ci.get("low"), digits), format_number(ci.get("high"), digits)
    if low == high == MISSING:  # an interval without data (NaN bounds): the value stands alone
        return ""
    text = f"[{low}, {high}]"
    level = ci.get("level")
    if isinstance(level, int | float) and not math.isclose(level, 0.95):
        text += f" ({level:.1%})"
    return text


def format_estimate(estimate: Any, digits: int = 3) -> str:
    """An Estimate dict as ``value [low, high]``; a test statistic without an interval shows its value alone.

    Example:
        >>> format_estimate({"value": 0.575, "ci": {"low": 0.5175, "high": 0.63, "level": 0.95}})
        '0.575 [0.517, 0.630]'
    """
    estimate = _plain(estimate)
    if not estimate:
        return MISSING
    interval = format_interval(estimate.get("ci"), digits)
    value = format_number(estimate.get("value"), digits)
    return f"{value} {interval}" if interval else value


def is_estimate(value: Any) -> bool:
    """Whether ``value`` looks like an :class:`~pfungst.stats.Estimate` dict."""
    return isinstance(value, Mapping) and "value" in value and "method" in value and "n" in value


def estimate_row(label: str, estimate: Any) -> tuple[str, ...]:
    """A table row ``label | value [interval] | baseline | p | n`` (see :data:`ESTIMATE_COLUMNS`)."""
    estimate = _plain(estimate) or {}
    return (
        label,
        format_estimate(estimate),
        format_number(estimate.get("baseline")),
        format_pvalue(estimate.get("pvalue")),
        format_number(estimate.get("n")),
    )


def methods_note(estimates: Sequence[Any]) -> str:
    """The distinct methods of ``estimates``, in first-seen order, as one note.

    Methods that differ only in counts within parentheses (``McNemar test (2 vs 0 discordant items)``) are
    written once, with ``(...)`` for the counts, which the table's rows carry.

    Example:
        >>> methods_note([{"method": "McNemar (2 vs 0)"}, {"method": "McNemar (1 vs 1)"}, {"method": "wilson"}])
        'McNemar (...); wilson'
    """
    groups: dict[str, list[str]] = {}
    for estimate in map(_plain, estimates):
        if estimate and estimate.get("method"):
            method = str(estimate["method"])
            members = groups.setdefault(_COUNTS.sub("(...)", method), [])
            if method not in members:
                members.append(method)
    return "; ".join(members[0] if len(members) == 1 else key for key, members in groups.items())


def generic_blocks(data: Mapping[str, Any], caption: str = "") -> tuple[Block, ...]:
    """Any result dict, field by field: estimates and scalars in one table, each list of records as a table.

    This renders result kinds (and analyses) that have no dedicated section yet, so nothing is left out.

    Example:
        >>> blocks = generic_blocks({"n": 3, "acc": {"value": 0.5, "ci": None, "method": "m", "n": 3}})
        >>> blocks[0].rows
        (('n', '3', '', 'n/a', ''), ('acc', '0.500', 'n/a', 'n/a', '3'))
    """
    rows: list[tuple[str, ...]] = []
    estimates: list[Mapping[str, Any]] = []
    tables: list[Block] = []
    for key, value in data.items():
        if is_estimate(value):
            rows.append(estimate_row(str(key), value))
            estimates.append(value)
        elif isinstance(value, Mapping):
            tables.extend(generic_blocks(value, caption=f"{caption}.{key}" if caption else str(key)))
        elif _records(value):
            tables.append(_records_table(str(key), value))
        else:
            text = value if isinstance(value, str) else _compact(value)
            rows.append((str(key), text, "", MISSING, ""))
    head: list[Block] = []
    if rows:
        head.append(Table(caption, ESTIMATE_COLUMNS, tuple(rows), note=methods_note(estimates)))
    return (*head, *tables)


def _records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(entry, Mapping) for entry in value)


def _records_table(caption: str, records: Sequence[Mapping[str, Any]]) -> Table:
    columns = list(dict.fromkeys(key for record in records for key in record))
    rows = tuple(tuple(_cell(record.get(column)) for column in columns) for record in records)
    notes = methods_note([v for record in records for v in record.values() if is_estimate(v)])
    return Table(caption, tuple(columns), rows, note=notes)


def _cell(value: Any) -> str:
    if is_estimate(value):
        return format_estimate(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int | float | bool) or value is None:
        return format_number(value)
    return _compact(value)


def _compact(value: Any) -> str:
    """A non-scalar value as short JSON (lists of numbers, small dicts)."""
    if isinstance(value, int | float | bool) or value is None:
        return format_number(value)
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 200 else text[:197] + "..."
