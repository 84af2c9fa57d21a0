"""Find a table's question, option and answer columns by their names, for layout detection and mapping hints.

Names are compared without regard to letter case. Option columns form a family: a common prefix (none, ``option``,
``choice``, ``opt``, ``op``, ``ending``, ``sol``, ``answer``, ...) and a contiguous series of keys, letters from
``a`` or numbers from 0 or 1: ``A,B,C,D``, ``option_a..option_d``, ``choice1..choice4``, ``opa..opd``,
``ending0..ending3``.
"""

from __future__ import annotations

import numbers
import re
import string
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["ANSWER_NAMES", "QUESTION_NAMES", "answer_column", "option_family", "question_column", "whole_number"]

QUESTION_NAMES: tuple[str, ...] = (
    "question",
    "query",
    "question_stem",
    "text",
    "input",
    "prompt",
    "stem",
    "sentence",
)
"""Names of a question column, in order of preference."""
ANSWER_NAMES: tuple[str, ...] = (
    "answer",
    "gold",
    "answerkey",
    "answer_key",
    "correct_answer",
    "answer_index",
    "answer_idx",
    "target",
    "correct",
    "label",
)
"""Names of an answer column, in order of preference."""
_OPTION_COLUMN = re.compile(
    r"^(?P<prefix>(?:options?|choices?|opt|op|endings?|sol|answer|ans|alternative|candidate)?[ _-]?)"
    r"(?P<key>[a-j]|\d{1,2})$",
    re.IGNORECASE,
)


def _named(columns: Iterable[str], names: tuple[str, ...], exclude: Iterable[str] = ()) -> str:
    """The first column (in ``names``' order) whose lower-cased name is one of ``names``; '' when none."""
    skip = set(exclude)
    lowered = {column.lower(): column for column in reversed(list(columns)) if column not in skip}
    return next((lowered[name] for name in names if name in lowered), "")


def question_column(row: Mapping[str, Any]) -> str:
    """The column named like a question (``question``, ``Question``, ``query``, ...), or ''."""
    return _named(row, QUESTION_NAMES)


def answer_column(row: Mapping[str, Any], exclude: Iterable[str] = ()) -> str:
    """The column named like an answer (``answer``, ``Answer``, ``answerKey``, ``label``, ...), or ''."""
    return _named(row, ANSWER_NAMES, exclude)


def option_family(row: Mapping[str, Any]) -> tuple[tuple[str, ...], int]:
    """The largest family of option columns (at least two) in series order, and whether its keys count from 0 or 1
    (letters count from 0); ``((), 0)`` when there is none."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for column in row:
        match = _OPTION_COLUMN.match(column)
        if match:
            groups.setdefault(match["prefix"].lower(), []).append((match["key"].lower(), column))
    best: tuple[tuple[str, ...], int] = ((), 0)
    for members in groups.values():
        family = _series(members)
        if len(family[0]) > len(best[0]):
            best = family
    return best if len(best[0]) >= 2 else ((), 0)


def _series(members: list[tuple[str, str]]) -> tuple[tuple[str, ...], int]:
    """The members in key order when their keys are ``a, b, c, ...`` or ``0|1, 2, 3, ...``; else ``((), 0)``."""
    keys = {key: column for key, column in members}
    if len(keys) != len(members):
        return (), 0
    if all(key.isalpha() for key in keys):
        expected = list(string.ascii_lowercase[: len(keys)])
        return (tuple(keys[key] for key in expected), 0) if set(keys) == set(expected) else ((), 0)
    if all(key.isdigit() for key in keys):
        by_number = {int(key): column for key, column in keys.items()}
        start = min(by_number)
        if start in (0, 1) and set(by_number) == set(range(start, start + len(by_number))):
            return tuple(by_number[n] for n in sorted(by_number)), start
    return (), 0


def whole_number(value: Any) -> int | None:
    """``value`` as a whole number when it is one (``2``, ``"2"``), else None (booleans and floats are not)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None
