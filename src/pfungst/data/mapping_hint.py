"""The ``--map`` line most likely to read a table that fits no common layout: a best guess from its columns.

Used by format detection's error, so a user can copy the line. The guess goes by column names first (``question``,
``Answer``, ``A..D``, ``choice1..``), then by parts of names (``prompt_text``, ``gold_idx``, ``option_x``), then by
the values (a list column holds the options; the longest text is the question). Answers are read as
:func:`~pfungst.data.layouts.answer_format_of` reads them, so an index column gets its ``answer_format``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pfungst.data.layout_catalog import map_line
from pfungst.data.layout_columns import answer_column, option_family, question_column
from pfungst.data.layouts import answer_format_of, option_texts
from pfungst.data.mapping import choice_labels, parse_cell

__all__ = ["mapping_hint", "suggest_mapping"]

_QUESTION_PARTS = ("question", "query", "prompt", "stem", "sentence", "text", "input", "context", "ctx", "goal")
_ANSWER_PARTS = ("answer", "gold", "label", "target", "correct", "key", "cop", "truth", "ans")
_OPTION_PARTS = ("option", "choice", "ending", "candidate", "alternative", "distractor", "opt", "sol")


def _containing(columns: Sequence[str], parts: tuple[str, ...], exclude: Sequence[str] = ()) -> list[str]:
    """Columns whose lower-cased name contains one of ``parts``, in the order of ``parts``."""
    found: list[str] = []
    for part in parts:
        found += [c for c in columns if part in c.lower() and c not in exclude and c not in found]
    return found


def _list_column(row: Mapping[str, Any]) -> str:
    """A column holding a list of options (or Hugging Face ``{text, label}`` choices), preferring option-like names."""

    def is_list(value: Any) -> bool:
        value = parse_cell(value) if isinstance(value, str) else value
        value = value.tolist() if hasattr(value, "tolist") else value
        return (isinstance(value, list | tuple) and len(value) >= 2) or bool(choice_labels(value))

    lists = [column for column, value in row.items() if is_list(value)]
    return next(iter(_containing(lists, _OPTION_PARTS)), lists[0] if lists else "")


def _options(row: Mapping[str, Any], taken: Sequence[str]) -> dict[str, str]:
    listed = _list_column(row)
    if listed:
        return {"options": listed}
    family = option_family(row)[0]
    if family:
        return {"option_columns": ",".join(family)}
    named = _containing(list(row), _OPTION_PARTS, exclude=taken)
    return {"option_columns": ",".join(named)} if len(named) >= 2 else {}


def _question(row: Mapping[str, Any], exclude: Sequence[str]) -> str:
    columns = [c for c in row if c not in exclude]
    named = question_column({c: row[c] for c in columns}) or next(iter(_containing(columns, _QUESTION_PARTS)), "")
    if named:
        return named
    texts = [c for c in columns if isinstance(row[c], str)]
    return max(texts, key=lambda c: len(row[c]), default="")


def _short_column(row: Mapping[str, Any], exclude: Sequence[str]) -> str:
    """The last column holding a short value (a letter, a number, a label): the likeliest answer when none is named."""
    short = [
        c
        for c, v in row.items()
        if c not in exclude and isinstance(v, int | str) and not isinstance(v, bool) and 0 < len(str(v)) <= 3
    ]
    return short[-1] if short else ""


def suggest_mapping(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The mapping most likely to read these rows (the first decides the columns, all decide the answer format)."""
    if not rows:
        return {}
    first = rows[0]
    answer = answer_column(first) or next(iter(_containing(list(first), _ANSWER_PARTS)), "")
    options = _options(first, [answer])
    option_columns = [*options.get("option_columns", "").split(","), options.get("options", "")]
    answer = answer or _short_column(first, exclude=option_columns)
    settings = {"question": _question(first, [answer, *option_columns]) or "COLUMN"}
    if not options:
        return {**settings, "label": answer or "COLUMN"}
    settings = {**settings, **options, "answer": answer or "COLUMN"}
    if answer:
        texts = [option_texts(row, settings) for row in rows]
        answer_format, _ = answer_format_of([row.get(answer) for row in rows], texts, answer, 0)
        labelled = bool(choice_labels(first.get(settings.get("options", ""))))
        if answer_format in ("index", "index1") and not labelled:
            settings["answer_format"] = answer_format
    return settings


def _header_like(columns: Sequence[str]) -> bool:
    """Whether the column names look like names, not like a first data row read as a header."""
    return all(len(column) <= 40 and column.count(" ") <= 3 for column in columns)


def mapping_hint(rows: Sequence[Mapping[str, Any]]) -> str:
    """What the detection error says about a table: the columns it saw and the ``--map`` line to try."""
    if not rows:
        return ""
    if not _header_like(list(rows[0])):
        return (
            "its first row does not look like a header (a long or sentence-like column name), and the generic "
            "readers need one. For a headerless file pass --reader NAME (see `pfungst formats`); or add a header row "
            "naming the columns.\n"
        )
    return (
        f"its columns ({', '.join(rows[0])}) fit no common layout. Most likely to work (a guess from the column "
        f"names; check the result with `pfungst inspect`):\n  {map_line(suggest_mapping(rows))}\n"
    )
