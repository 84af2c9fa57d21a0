"""Where a secret appears in a text, decoded the ways a reader could decode it (not the scrubber's own forms).

Each text is searched as it is; compatibility-normalised (NFKC) with whitespace and format characters removed;
percent-decoded; each of these reversed; and every run of base64 or hex characters decoded at each offset, twice
over (a Basic token echoed in base64 is base64 of base64). A leak is any six characters of a secret in a row, case
ignored, in any of these views.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import re
import unicodedata
import urllib.parse

__all__ = ["leaks"]


def _pieces(secret: str) -> set[str]:
    return {secret[i : i + 6].lower() for i in range(len(secret) - 5)}


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{12,}")


def _decoded(text: str) -> list[str]:
    """What base64 and hex runs in ``text`` decode to (each offset; bytes as latin-1, garbage included)."""
    found = []
    for run in _BASE64_RUN.findall(text):
        for offset in range(4):
            part = run[offset:]
            part = part[: len(part) - len(part) % 4]
            for alphabet in (b"+/", b"-_"):
                with_alphabet = part.replace("-", "+").replace("_", "/") if alphabet == b"-_" else part
                with contextlib.suppress(binascii.Error, ValueError):
                    found.append(base64.b64decode(with_alphabet, validate=False).decode("latin-1"))
    for run in _HEX_RUN.findall(text):
        for offset in range(2):
            part = run[offset:]
            found.append(bytes.fromhex(part[: len(part) - len(part) % 2]).decode("latin-1"))
    return found


def _views(text: str, depth: int = 2) -> list[str]:
    """``text`` as a reader could decode it: itself, compatibility-normalised without whitespace and format
    characters, percent-decoded, each of these reversed, and the base64 and hex runs of each decoded (``depth``
    times over)."""
    folded = "".join(
        c for c in unicodedata.normalize("NFKC", text) if not c.isspace() and unicodedata.category(c) != "Cf"
    )
    views = [text, folded, urllib.parse.unquote(text)]
    views += [view[::-1] for view in views]
    if depth:
        views += [deeper for view in views[:] for decoded in _decoded(view) for deeper in _views(decoded, depth - 1)]
    return views


def leaks(texts: dict[str, str], secrets: tuple[str, ...]) -> dict[str, list[str]]:
    """Where any six-character piece of a secret appears (case-insensitive) in any decoded view of an output."""
    pieces = set().union(*(_pieces(secret) for secret in secrets))
    found = {}
    for where, text in texts.items():
        views = [view.lower() for view in _views(text)]
        found[where] = sorted(piece for piece in pieces if any(piece in view for view in views))
    return {where: hits for where, hits in found.items() if hits}
