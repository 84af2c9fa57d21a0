"""Redacting secrets (an API key, credentials in a server URL) from every text pfungst shows or stores.

A server may echo what it was sent, so its answers can carry the API key: whole, upper-cased, split by spaces or
zero-width characters, cut to a prefix as OpenAI masks it (``sk-CANARY123...``), reversed, or encoded (base64, the
``Authorization: Basic`` token, hex, percent-encoding, full-width characters). A :class:`Scrubber` built from the
secrets is the one scrubber of every text that came from a server, before it reaches stderr, a result file, the
cache or a log: it replaces with ``***`` each secret in each of those forms (:mod:`pfungst.models.secret_forms`),
and every run of six consecutive characters of one (twelve hex digits, eight base64 characters), even with up to
three characters of whitespace or punctuation between any two of them; and the value of every credential header
the text quotes. Secrets shorter than four characters are left alone (they would blank ordinary words); those of
four or five are replaced only whole.

Credentials in a URL are its user name and password (``http://user:KEY@host``) and the values of query fields that
name a secret (``?api_key=``, ``?key=``, ``?token=``...). :func:`without_credentials` gives the URL to show and to
store: the user information dropped and those values ``***``.

Example:
    >>> scrub = Scrubber(["sk-CANARY1234567890abcdef"])
    >>> scrub("key SK-CANARY1234567890ABCDEF, masked sk-CANARY123****, split sk-CANA RY12 3456")
    'key ***, masked *******, split ***'
    >>> scrub("reversed fedcba0987654321YRANAC-ks, full-width ｓｋ－ＣＡＮＡＲＹ１２３, hex 736b2d43414e415259")
    'reversed ***, full-width ***, hex ***'
    >>> without_credentials("http://u:sk-secret@127.0.0.1:8000/v1?api_key=abc&n=1")
    'http://127.0.0.1:8000/v1?api_key=***&n=1'
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from pfungst.errors import PfungstError
from pfungst.models.secret_forms import Folded, Form, encoded_forms, fold

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

_MIN_WHOLE = 4
_MAX_GAP = 3
_MAX_SPACE_GAP = 16  # a line break and its indentation
_CREDENTIAL = re.compile(  # a credential header's name, its separator, an auth scheme, then the value
    r"""(?i)\b((?:proxy-)?authorization|(?:x-)?api[-_]?key)(\\?["']?\s*[:=]\s*\\?["']?)"""
    r"""((?:bearer|basic|token)\s+)?[^\s"'\\,;}]+"""
)
_COOKIE = re.compile(r"""(?i)\b((?:set-)?cookie)(\\?["']?\s*[:=]\s*\\?["']?)[^"'\\\n}]+""")
_SECRET_FIELDS = frozenset({"key", "token", "secret", "password", "passwd", "pwd", "auth", "sig", "signature"})
_SECRET_SUFFIXES = ("key", "token", "secret", "password")


class Scrubber:
    """The one scrubber: a callable that returns its text with every secret given, in every form a server may echo
    it (:mod:`pfungst.models.secret_forms`), and every long piece of one, as ``***``; and the value of every
    credential header the text quotes (``Authorization``, ``api-key``, ``x-api-key``, cookies) as ``***``.

    A piece is :data:`~pfungst.models.secret_forms.PLAIN_RUN` characters of a form in a row (each form says how
    many), found in the folded view of the text (case, Unicode compatibility forms, zero-width characters and
    percent-encoding undone), with at most three characters of punctuation or whitespace, or a line break and its
    indentation, between any two of them.

    Args:
        secrets: The texts to hide (an API key, a URL's password, a Basic token); empty ones and ``None`` are skipped.
    """

    def __init__(self, secrets: Iterable[str | None]) -> None:
        kept = sorted({s for s in secrets if s and len(s) >= _MIN_WHOLE}, key=len, reverse=True)
        forms = list(dict.fromkeys(form for secret in kept for form in encoded_forms(secret)))
        self._count = len(kept)
        self._whole = sorted({form.text for form in forms if len(form.text) >= _MIN_WHOLE}, key=len, reverse=True)
        self._grams = {
            run: (_grams(forms, run, str.isalnum), _grams(forms, run, _visible)) for run in {f.run for f in forms}
        }

    def __bool__(self) -> bool:
        return bool(self._count)

    def __repr__(self) -> str:
        return f"Scrubber({self._count} secret(s))"

    def __call__(self, text: str) -> str:
        if self._count and text:
            view = fold(text)
            marked = bytearray(len(text))
            for form in self._whole:
                start = view.text.find(form)
                while start >= 0:
                    _mark(view, start, start + len(form) - 1, marked)
                    start = view.text.find(form, start + 1)
            for run, (alnum, visible) in self._grams.items():
                _mark_runs(view, run, (str.isalnum, alnum, _MAX_GAP), marked)
                _mark_runs(view, run, (_visible, visible, _MAX_SPACE_GAP), marked)
            text = _replace_marked(text, marked)
        return _scrub_credential_headers(text)


def _visible(char: str) -> bool:
    return not char.isspace()


def _grams(forms: Iterable[Form], run: int, keep: Callable[[str], bool]) -> frozenset[str]:
    """Every ``run`` kept characters in a row of each form whose leak length is ``run``."""
    grams: set[str] = set()
    for form in forms:
        if form.run == run:
            chars = "".join(c for c in form.text if keep(c))
            grams.update(chars[i : i + run] for i in range(len(chars) - run + 1))
    return frozenset(grams)


def _mark(view: Folded, first: int, last: int, marked: bytearray) -> None:
    """Mark the characters of the text that view characters ``first`` to ``last`` came from."""
    start, end = view.starts[first], view.ends[last]
    marked[start:end] = b"\x01" * (end - start)


def _mark_runs(
    view: Folded, run: int, rule: tuple[Callable[[str], bool], frozenset[str], int], marked: bytearray
) -> None:
    """Mark each ``run`` kept characters spelling a gram, at most ``gap`` others between two (``rule``: keep,
    grams, gap)."""
    keep, grams, gap = rule
    if not grams:
        return
    positions = [i for i, char in enumerate(view.text) if keep(char)]
    chars = "".join(view.text[i] for i in positions)
    for i in range(len(positions) - run + 1):
        if chars[i : i + run] not in grams:
            continue
        window = positions[i : i + run]
        if all(b - a - 1 <= gap for a, b in zip(window, window[1:], strict=False)):
            _mark(view, window[0], window[-1], marked)


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


def _scrub_credential_headers(text: str) -> str:
    """``text`` with the values of credential headers (``Authorization``, ``api-key``, cookies...) as ``***``.

    Example:
        >>> _scrub_credential_headers('{"authorization": "Bearer abc", "x-api-key": "k1", "cookie": "s=1; t=2"}')
        '{"authorization": "Bearer ***", "x-api-key": "***", "cookie": "***"}'
    """
    text = _CREDENTIAL.sub(lambda m: f"{m[1]}{m[2]}{m[3] or ''}***", text)
    return _COOKIE.sub(lambda m: f"{m[1]}{m[2]}***", text)


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
