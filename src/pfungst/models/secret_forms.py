"""The forms a secret takes when a server echoes it, and the folded view of a text they are looked for in.

A server echoing its request may send the API key back as it was sent, or transformed: case changed, reversed,
base64 (an ``Authorization: Basic`` header is ``base64(user:password)``), hex, percent-encoded, in full-width or
other Unicode compatibility characters, or cut up by whitespace and zero-width characters. Two halves meet here:

- :func:`fold` gives the *view* of a text in which most transformations disappear: each character in its NFKC
  compatibility form (full-width ``ｓｋ`` is ``sk``) and case-folded, zero-width and other format characters
  (Unicode category Cf, e.g. U+200B) dropped, and every ``%XX`` of a printable ASCII character decoded; each view
  character remembers the characters of the text it came from.
- :func:`encoded_forms` gives what is left to look for in that view: the secret itself, reversed, in hex, and in
  base64 and base64url at each of the three byte alignments it can have inside a longer encoded text (the
  characters that depend on the secret's bytes alone), each with the length of the shortest piece of it that counts
  as a leak (six characters of the secret: six characters, or their twelve hex digits, or eight base64 characters).

Example:
    >>> fold("ＳＫ-Ab\\u200bc%2D1").text
    'sk-abc-1'
    >>> [form.text for form in encoded_forms("pw-Hb4N")][:3]
    ['pw-hb4n', 'n4bh-wp', '70772d4862344e']
"""

from __future__ import annotations

import base64
import re
import unicodedata
from typing import NamedTuple

__all__ = ["Folded", "Form", "encoded_forms", "fold"]

PLAIN_RUN = 6
"""Characters of a secret, in a row, that count as a leak of it."""
_HEX_RUN = 2 * PLAIN_RUN
_BASE64_RUN = 8  # six bytes in base64
_PERCENT = re.compile(r"%([2-7][0-9a-fA-F])")


class Folded(NamedTuple):
    """A text's view: its characters folded, and for each the span ``[start, end)`` of the text it came from."""

    text: str
    starts: list[int]
    ends: list[int]


class Form(NamedTuple):
    """One form of a secret, folded as :func:`fold` folds a text."""

    text: str
    """The form (lower-case, as every view is)."""
    run: int
    """Characters of the form in a row that count as a leak (a shorter form is looked for whole only)."""


def fold(text: str) -> Folded:
    """``text`` NFKC-normalised and case-folded character by character, format characters dropped, ``%XX`` of
    printable ASCII decoded; with the span of ``text`` each view character came from."""
    if text.isascii() and "%" not in text:  # the common case: a plain answer
        return Folded(text.lower(), list(range(len(text))), list(range(1, len(text) + 1)))
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    index = 0
    while index < len(text):
        char = text[index]
        width = 1
        if char == "%" and (match := _PERCENT.match(text, index)) and match[1].lower() != "7f":
            char, width = chr(int(match[1], 16)), 3
        for piece in _fold_char(char):
            chars.append(piece)
            starts.append(index)
            ends.append(index + width)
        index += width
    return Folded("".join(chars), starts, ends)


def _fold_char(char: str) -> str:
    if char.isascii():
        return char.lower()
    if unicodedata.category(char) == "Cf":  # zero-width space, joiners, soft hyphen, byte-order mark...
        return ""
    return unicodedata.normalize("NFKC", char).casefold()


def encoded_forms(secret: str) -> list[Form]:
    """Every form of ``secret`` to look for in a folded text: itself, reversed, hex, and base64 and base64url at
    each byte alignment (only the characters that the secret's bytes alone decide)."""
    plain = fold(secret).text
    raw = secret.encode("utf-8")
    forms = [Form(plain, PLAIN_RUN), Form(plain[::-1], PLAIN_RUN), Form(raw.hex(), _HEX_RUN)]
    for alignment in range(3):
        padded = b"\0" * alignment + raw + b"\0\0"
        start, end = (8 * alignment + 5) // 6, 8 * (alignment + len(raw)) // 6
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            core = encode(padded).decode("ascii")[start:end].lower()
            if len(core) >= _BASE64_RUN:
                forms.append(Form(core, _BASE64_RUN))
    return list(dict.fromkeys(forms))
