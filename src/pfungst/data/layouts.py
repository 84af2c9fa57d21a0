"""Table layouts: a set of columns and the column mapping that reads them (the catalog is in
:mod:`pfungst.data.layout_catalog`).

How an answer column is read is decided from every row, not from the first: all option texts -> text; all whole
numbers -> an index, counting from 0 when one of them is 0, from 1 when one equals its item's option count, and
otherwise as the layout's columns count (``choice1..`` from 1, else from 0), which a :class:`LayoutWarning` says;
all single letters within range -> letters.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pfungst.data.layout_columns import (
    answer_column,
    option_family,
    question_column,
    whole_number,
)
from pfungst.data.mapping import choice_labels, parse_cell

__all__ = [
    "Layout",
    "LayoutRowError",
    "LayoutWarning",
    "OptionColumnsLayout",
    "Reading",
    "answer_format_of",
    "option_texts",
]


class LayoutRowError(ValueError):
    """A derived column cannot be computed from a row; the reader adds file and line."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(reason)


class LayoutWarning(UserWarning):
    """Which layout was chosen where the columns fit several, or how an ambiguous answer column was read."""


@dataclass(frozen=True)
class Reading:
    """A layout's mapping for one table, with a note on any choice made from the data (empty when none)."""

    settings: dict[str, Any]
    note: str = ""


@dataclass(frozen=True)
class Layout:
    """A common column layout: the columns that identify it and the mapping that reads it."""

    name: str
    """Its name in provenance, in messages and for ``--map layout=NAME``."""
    columns: tuple[str, ...]
    """Columns a table must have (others are kept as metadata)."""
    settings: Mapping[str, Any]
    """The :class:`~pfungst.data.mapping.ColumnMapping` settings that read it."""
    choices: str = "list"
    """Where the options are: ``list`` (a list column), ``labelled`` (``{text, label}``), ``columns`` (one column
    each, ``settings["option_columns"]``), or ``""`` (shared labels)."""
    derived: Mapping[str, Callable[[Mapping[str, Any]], Any]] = field(default_factory=dict)
    """Columns computed from each row before mapping (COPA's question text, BoolQ's yes / no)."""
    generic: bool = False
    """A catch-all shape, used only when no published layout fits."""
    description: str = ""
    """One line for ``pfungst formats --what layouts``: what each column becomes."""

    def fits(self, row: Mapping[str, Any]) -> bool:
        """Whether a table's first row has this layout's columns and options of its kind."""
        if not set(self.columns) <= set(row):
            return False
        if self.choices in ("", "columns"):
            return True
        value = _cell(row[self.settings["options"]])
        if self.choices == "labelled":
            return bool(choice_labels(value))
        return isinstance(value, list | tuple)

    def read(self, rows: Sequence[Mapping[str, Any]]) -> Reading:
        """The mapping for a table with these (well-formed) rows; an unset answer format is decided from them."""
        return self._answer_reading(dict(self.settings), rows, count_from=0)

    def prepare(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """The row with this layout's derived columns added (raises :class:`LayoutRowError`)."""
        return {**row, **{name: derive(row) for name, derive in self.derived.items()}} if self.derived else dict(row)

    def _answer_reading(self, settings: dict[str, Any], rows: Sequence[Mapping[str, Any]], count_from: int) -> Reading:
        if self.choices in ("", "labelled") or "answer_format" in settings or not rows:
            return Reading(settings)
        answer_format, note = answer_format_of(
            [row.get(settings["answer"]) for row in rows],
            [option_texts(row, settings) for row in rows],
            settings["answer"],
            count_from,
        )
        if answer_format != "auto":
            settings["answer_format"] = answer_format
        return Reading(settings, note)


@dataclass(frozen=True)
class OptionColumnsLayout(Layout):
    """The generic table: a question column, one column per option (``A..D``, ``option_a..``, ``choice1..``,
    ``opa..``; found by name, in any letter case) and an answer column."""

    name: str = "question-option-columns"
    columns: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    choices: str = "columns"
    generic: bool = True
    description: str = (
        "generic: a question column (question, Question, query, stem, ...), one column per option (A..D, "
        "option_a.., choice1.., opa.., ending0..) and an answer column (answer, label, gold, ...): "
        "an index (from 0 or 1, told by the data), a letter or an option's text"
    )

    def fits(self, row: Mapping[str, Any]) -> bool:
        return self._parts(row) is not None

    def read(self, rows: Sequence[Mapping[str, Any]]) -> Reading:
        parts = self._parts(rows[0])
        if parts is None:
            return Reading({})
        question, options, answer = parts
        settings = {"question": question, "option_columns": ",".join(options), "answer": answer}
        return self._answer_reading(settings, rows, count_from=option_family(rows[0])[1])

    @staticmethod
    def _parts(row: Mapping[str, Any]) -> tuple[str, tuple[str, ...], str] | None:
        options = option_family(row)[0]
        question = question_column(row)
        answer = answer_column(row, exclude=options)
        return (question, options, answer) if options and question and answer else None


def answer_format_of(
    answers: Sequence[Any], options: Sequence[Sequence[str]], column: str, count_from: int
) -> tuple[str, str]:
    """How to read an answer column, from all its values: text, index, index1, letter or auto
    (mixed: each value on its own), and a note when whole numbers could count from 0 or from 1."""
    if not answers:
        return "auto", ""
    if all(isinstance(a, str) and a in opts for a, opts in zip(answers, options, strict=True)):
        return "text", ""
    numbers = [whole_number(a) for a in answers]
    if all(n is not None for n in numbers):
        if any(n == 0 for n in numbers):
            return "index", ""
        if any(n == len(opts) for n, opts in zip(numbers, options, strict=True)):
            return "index1", ""
        note = (
            f"the answers in '{column}' are whole numbers, never 0 and never the option count, so they may count "
            f"from 0 or from 1; read as counting from {count_from}. If that is wrong, pass "
            f"--map answer_format={'index' if count_from else 'index1'}"
        )
        return ("index1" if count_from else "index"), note
    letters = string.ascii_uppercase
    if all(_is_letter(a, letters[: len(opts)]) for a, opts in zip(answers, options, strict=True)):
        return "letter", ""
    return "auto", ""


def _cell(value: Any) -> Any:
    value = parse_cell(value) if isinstance(value, str) else value
    return value.tolist() if hasattr(value, "tolist") else value


def option_texts(row: Mapping[str, Any], settings: Mapping[str, Any]) -> list[str]:
    """The option texts of a row as mapping ``settings`` read them (to decide how its answer column counts)."""
    if settings.get("option_columns"):
        columns = str(settings["option_columns"]).split(",")
        return [str(row[c]) for c in columns if row.get(c) not in (None, "")]
    value = _cell(row.get(settings.get("options", "")))
    if isinstance(value, dict):
        value = _cell(value.get("text"))
    return [str(option) for option in value] if isinstance(value, list | tuple) else []


def _is_letter(value: Any, letters: str) -> bool:
    return isinstance(value, str) and len(value.strip()) == 1 and value.strip().upper() in letters
