"""Turn an answer as a source writes it (index, 1-based index, letter, text) into a 0-based option index."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Literal

from pfungst.errors import ConfigError

__all__ = ["ANSWER_FORMATS", "AnswerFormat", "AnswerError", "resolve_answer"]

AnswerFormat = Literal["auto", "index", "index1", "letter", "text"]
ANSWER_FORMATS: tuple[str, ...] = ("auto", "index", "index1", "letter", "text")
_HINT = "Use --answer-format index|index1|letter|text"


class AnswerError(ValueError):
    """The answer does not name one of the options; the reader adds file, line and field."""

    def __init__(self, reason: str, hint: str = _HINT) -> None:
        self.reason = reason
        self.hint = hint
        super().__init__(reason)


def resolve_answer(value: object, options: Sequence[str], answer_format: str = "auto") -> int:
    """The 0-based index of ``value`` among ``options``.

    ``auto`` reads an integer as a 0-based index, a single letter within range as a letter, and anything else as
    the option's text (exact, then ignoring case and surrounding space).

    Raises:
        AnswerError: the value names no option, or more than one.
        ConfigError: the answer format is unknown.

    Example:
        >>> options = ["x", "y", "z"]
        >>> resolve_answer("B", options), resolve_answer(2, options), resolve_answer("z", options)
        (1, 2, 2)
    """
    if answer_format not in ANSWER_FORMATS:
        raise ConfigError(f"Unknown answer format {answer_format!r}. Available: {', '.join(ANSWER_FORMATS)}")
    n = len(options)
    if answer_format == "auto":
        answer_format = _guess_format(value, n)
    if answer_format in ("index", "index1"):
        return _as_index(value, n, one_based=answer_format == "index1")
    if answer_format == "letter":
        return _as_letter(value, n)
    return _as_text(value, options)


def _guess_format(value: object, n: int) -> str:
    if isinstance(value, bool):
        return "text"
    if isinstance(value, int):
        return "index"
    text = str(value).strip()
    if len(text) == 1 and text.upper() in string.ascii_uppercase[:n]:
        return "letter"
    return "text"


def _as_index(value: object, n: int, one_based: bool) -> int:
    try:
        index = int(str(value).strip()) if not isinstance(value, int) or isinstance(value, bool) else value
    except ValueError:
        raise AnswerError(f"{value!r} is not an integer index") from None
    index -= 1 if one_based else 0
    if not 0 <= index < n:
        shown = "1-" + str(n) if one_based else f"0-{n - 1}"
        raise AnswerError(f"answer index {value!r} is out of range ({shown} for {n} options)")
    return index


def _as_letter(value: object, n: int) -> int:
    letter = str(value).strip().upper()
    letters = string.ascii_uppercase[:n]
    if len(letter) != 1 or letter not in letters:
        raise AnswerError(f"{value!r} is not an option letter ({letters[0]}-{letters[-1]})")
    return letters.index(letter)


def _as_text(value: object, options: Sequence[str]) -> int:
    text = str(value)
    exact = [i for i, option in enumerate(options) if option == text]
    if len(exact) == 1:
        return exact[0]
    loose = [i for i, option in enumerate(options) if option.strip().casefold() == text.strip().casefold()]
    if len(loose) == 1:
        return loose[0]
    if len(exact) > 1 or len(loose) > 1:
        raise AnswerError(f"answer {text!r} matches several options", "Remove the duplicate options")
    raise AnswerError(f"answer {text!r} is not the text of any option")
