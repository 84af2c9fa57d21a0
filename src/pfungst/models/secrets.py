"""Redacting secrets (an API key, credentials in a server URL) from every text pfungst shows or stores.

A server may echo what it was sent, so its answers can carry the API key: whole, upper-cased, split by spaces,
or cut to a prefix as OpenAI masks it (``sk-CANARY123...``). A :class:`Scrubber` built from the secrets replaces
with ``***`` each secret (case-insensitive) and every run of at least six consecutive characters of one, even with
up to three characters of whitespace or punctuation between any two of them. Secrets shorter than four characters
are left alone (they would blank ordinary words); those of four or five are replaced only whole.

Credentials in a URL are its user name and password (``http://user:KEY@host``) and the values of query fields that
name a secret (``?api_key=``, ``?key=``, ``?token=``...). :func:`without_credentials` gives the URL to show and to
store: the user information dropped and those values ``***``.

Example:
    >>> scrub = Scrubber(["sk-CANARY1234567890abcdef"])
    >>> scrub("key SK-CANARY1234567890ABCDEF, masked sk-CANARY123****, split sk-CANA RY12 3456")
    'key ***, masked *******, split ***'
    >>> without_credentials("http://u:sk-secret@127.0.0.1:8000/v1?api_key=abc&n=1")
    'http://127.0.0.1:8000/v1?api_key=***&n=1'
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from pfungst.errors import PfungstError

__all__ = [
    "REDACTED",
    "Scrubber",
    "scrubbed_errors",
    "spec_without_credentials",
    "url_credentials",
    "without_credentials",
]

REDACTED = "***"
"""What a secret is replaced with."""

_MIN_RUN = 6
_MIN_WHOLE = 4
_MAX_GAP = 3
_SECRET_FIELDS = frozenset({"key", "token", "secret", "password", "passwd", "pwd", "auth", "sig", "signature"})
_SECRET_SUFFIXES = ("key", "token", "secret", "password")


class Scrubber:
    """A callable that returns its text with every given secret, and every long piece of one, as ``***``.

    Args:
        secrets: The texts to hide (an API key, a URL's password); empty ones and ``None`` are skipped.
    """

    def __init__(self, secrets: Iterable[str | None]) -> None:
        kept = sorted({s for s in secrets if s and len(s) >= _MIN_WHOLE}, key=len, reverse=True)
        self._whole = [s.lower() for s in kept]
        self._alnum_grams = _grams(kept, str.isalnum)
        self._visible_grams = _grams(kept, _visible)

    def __bool__(self) -> bool:
        return bool(self._whole)

    def __repr__(self) -> str:
        return f"Scrubber({len(self._whole)} secret(s))"

    def __call__(self, text: str) -> str:
        if not self._whole or not text:
            return text
        lowered = text.lower()
        marked = bytearray(len(text))
        for secret in self._whole:
            start = lowered.find(secret)
            while start >= 0:
                marked[start : start + len(secret)] = b"\x01" * len(secret)
                start = lowered.find(secret, start + 1)
        _mark_runs(lowered, str.isalnum, self._alnum_grams, marked)
        _mark_runs(lowered, _visible, self._visible_grams, marked)
        return _replace_marked(text, marked)


def _visible(char: str) -> bool:
    return not char.isspace()


def _grams(secrets: Iterable[str], keep: Callable[[str], bool]) -> frozenset[str]:
    """Every run of ``_MIN_RUN`` kept characters of each secret, lower-cased."""
    grams: set[str] = set()
    for secret in secrets:
        chars = "".join(c for c in secret.lower() if keep(c))
        grams.update(chars[i : i + _MIN_RUN] for i in range(len(chars) - _MIN_RUN + 1))
    return frozenset(grams)


def _mark_runs(lowered: str, keep: Callable[[str], bool], grams: frozenset[str], marked: bytearray) -> None:
    """Mark each run of ``_MIN_RUN`` kept characters spelling a gram, at most ``_MAX_GAP`` others between two."""
    if not grams:
        return
    positions = [i for i, char in enumerate(lowered) if keep(char)]
    chars = "".join(lowered[i] for i in positions)
    for i in range(len(positions) - _MIN_RUN + 1):
        if chars[i : i + _MIN_RUN] not in grams:
            continue
        window = positions[i : i + _MIN_RUN]
        if all(b - a - 1 <= _MAX_GAP for a, b in zip(window, window[1:], strict=False)):
            marked[window[0] : window[-1] + 1] = b"\x01" * (window[-1] + 1 - window[0])


def _replace_marked(text: str, marked: bytearray) -> str:
    """``text`` with each stretch of marked characters replaced by one ``***``."""
    if not any(marked):
        return text
    parts: list[str] = []
    inside = False
    for char, flag in zip(text, marked, strict=True):
        if flag and not inside:
            parts.append(REDACTED)
        elif not flag:
            parts.append(char)
        inside = bool(flag)
    return "".join(parts)


def _is_secret_field(name: str) -> bool:
    name = name.lower().replace("-", "_")
    return name in _SECRET_FIELDS or name.endswith(_SECRET_SUFFIXES)


def url_credentials(url: str) -> tuple[str, ...]:
    """The user name, password and secret query values in ``url``, as written and percent-decoded.

    Example:
        >>> url_credentials("http://me:p%40ss@host/?token=t0k3n&n=2")
        ('me', 'p%40ss', 'p@ss', 't0k3n')
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return ()
    netloc = parts.netloc
    userinfo = netloc.rpartition("@")[0]
    found = [piece for piece in userinfo.split(":", 1) if piece] if userinfo else []
    found += [urllib.parse.unquote(piece) for piece in found]
    found += [v for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True) if _is_secret_field(k)]
    return tuple(dict.fromkeys(found))


def without_credentials(url: str) -> str:
    """``url`` to show or store: no user name or password, and the values of secret query fields as ``***``."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return Scrubber(url_credentials(url))(url)
    netloc = parts.netloc.rpartition("@")[2]
    fields = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    if any(_is_secret_field(name) for name, _ in fields):
        query = "&".join(f"{k}={REDACTED if _is_secret_field(k) else urllib.parse.quote(v)}" for k, v in fields)
    else:
        query = parts.query
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def spec_without_credentials(spec: str) -> str:
    """A model spec to show or store: the URL of ``openai:<url>#<model>`` without credentials; others unchanged.

    Example:
        >>> spec_without_credentials("openai:http://u:sk-secret@127.0.0.1:8000/v1#smollm2")
        'openai:http://127.0.0.1:8000/v1#smollm2'
    """
    backend, separator, rest = spec.partition(":")
    if not separator or "://" not in rest:
        return spec
    url, hash_mark, model = rest.rpartition("#") if "#" in rest else (rest, "", "")
    return f"{backend}:{without_credentials(url)}{hash_mark}{model}"


@contextmanager
def scrubbed_errors(scrub: Callable[[str], str]) -> Iterator[None]:
    """Re-raise any :class:`~pfungst.errors.PfungstError` (and those it was raised from) with scrubbed messages."""
    try:
        yield
    except PfungstError as exc:
        seen: set[int] = set()
        error: BaseException | None = exc
        while error is not None and id(error) not in seen:
            seen.add(id(error))
            if isinstance(error, PfungstError):
                error.args = tuple(scrub(arg) if isinstance(arg, str) else arg for arg in error.args)
            error = error.__cause__ or error.__context__
        raise
