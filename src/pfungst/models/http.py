"""JSON over HTTP for server backends: one ``httpx.Client``, retries with seeded, jittered exponential backoff.

Every foreign exception is translated here, at the backend boundary (STYLE rule 21):

=============================================  ==========================================================
what happened                                  what the caller sees
=============================================  ==========================================================
429, 5xx, timeout, connection error or a       retried up to ``max_retries`` times within ``retry_budget``
connection closed mid-body, a 200 whose body   seconds (``Retry-After``, in seconds or as an HTTP date,
is not a JSON object (truncated, HTML)         honoured up to the backoff ceiling), then:
... 429 or 5xx every time                      :class:`~pfungst.errors.RequestFailed` (status and message)
... timeout or no connection every time        :class:`~pfungst.errors.BackendUnavailable`
... a body that is not a JSON object           :class:`~pfungst.errors.ResponseInvalid`
any other 4xx                                  :class:`~pfungst.errors.RequestFailed` at once
=============================================  ==========================================================

Timeouts: connecting may take ``connect_timeout`` seconds; reading an answer ``timeout`` seconds between two pieces
of it, or what the caller says one request needs (a long generation); and the whole answer, from sending the request
to its last byte, must arrive within ``deadline`` seconds (default: twice the read timeout), so a server that sends
its headers and then a byte a second is cut off: :class:`~pfungst.errors.BackendUnavailable` naming the deadline,
retried like a timeout. A body is read as it streams and the deadline checked after each piece, so a cut comes at
most one read timeout late (the read timeout is never longer than the deadline).

Server text is never shown raw: an error names the status, a short class of it (``401``: authentication failed)
and the body's length and SHA-256 prefix; the body itself (OpenAI's ``error.message``, FastAPI's ``detail``, or its
start) only with ``HttpOptions(debug=True)`` (the CLI's ``--debug``), and then scrubbed.

Secrets: the API key is held only by the client's default headers, and credentials in ``base_url`` (user name,
password, secret query values, the Basic token they make) only by the URL the client sends to;
:attr:`JsonClient.base_url` is the URL without them. Every message we raise goes through the client's one
:class:`~pfungst.models.secrets.Scrubber` (:attr:`JsonClient.scrub`): the key and those credentials in every form a
server may echo them, any long piece of them, and the value of any credential header a server echoes
(``Authorization``, ``api-key``, ``x-api-key``, cookies), before the message is cut to length.
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import random
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from pfungst.data.records import parse_json
from pfungst.errors import BackendUnavailable, MissingDependency, RequestFailed, ResponseInvalid
from pfungst.models.secrets import Scrubber, url_credentials, without_credentials

if TYPE_CHECKING:
    import httpx

__all__ = ["HttpOptions", "JsonClient"]

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504}) | frozenset(range(505, 600))
_MESSAGE_LIMIT = 300
_REASONS = {
    400: "the server refused the request as malformed",
    401: "authentication failed: check the API key",
    403: "access forbidden: check the API key's rights",
    404: "not found: check base_url and the model name",
    408: "the server timed out waiting for the request",
    413: "the request is too large for the server",
    422: "the server refused the request as invalid",
    429: "rate limited",
}


@dataclass(frozen=True)
class HttpOptions:
    """How a server backend talks HTTP beyond timeouts and retry counts; none of it changes an answer.

    Example:
        >>> HttpOptions(backoff_initial=0.1).backoff_max
        8.0
    """

    backoff_initial: float = 0.5
    """Seconds before the first retry; each further retry doubles it."""
    backoff_max: float = 8.0
    """Ceiling of one wait, in seconds (also caps a server's ``Retry-After``)."""
    seed: int = 0
    """Seed of the jitter (each wait is drawn uniformly from half to all of its exponential value)."""
    sleep: Callable[[float], None] = time.sleep
    """How to wait; tests pass a function that records the delay and returns at once."""
    clock: Callable[[], float] = time.monotonic
    """Seconds on a monotonic clock, to spend the retry budget; tests pass a fake one."""
    transport: httpx.BaseTransport | None = None
    """An httpx transport to use instead of the network (``httpx.MockTransport`` in tests)."""
    debug: bool = False
    """Show a server's own text (an error's body, a body that is not JSON) in messages, scrubbed of every secret;
    without it a message gives the body's length and SHA-256 prefix only."""


class _Answer(NamedTuple):
    """A whole HTTP answer, read within the deadline."""

    status_code: int
    reason_phrase: str
    headers: httpx.Headers
    content: bytes
    encoding: str

    @property
    def text(self) -> str:
        return self.content.decode(self.encoding or "utf-8", errors="replace")

    def json(self) -> Any:
        """The body as JSON (nested at most :data:`~pfungst.data.records.MAX_JSON_DEPTH` levels)."""
        return parse_json(self.text)


class _DeadlinePassed(Exception):
    """The answer was still arriving when the request's deadline passed."""


class _Outcome(NamedTuple):
    """One attempt: the JSON object answered, or the error to raise and whether to retry it."""

    body: dict[str, Any]
    failure: Exception | None = None
    cause: BaseException | None = None
    retry: bool = False
    retry_after: float | None = None


class JsonClient:
    """POST and GET JSON objects against one base URL, with retries; thread-safe, so a pool may share it.

    Args:
        base_url: Server root, e.g. ``http://127.0.0.1:8000`` (paths such as ``/v1/completions`` are appended).
        api_key: Sent as ``Authorization: Bearer``; ``None`` sends no header. Never stored anywhere else.
        timeout: Seconds allowed to read an answer (and to write a request), unless a call gives its own.
        max_retries: Retries after the first attempt for 429, 5xx, timeouts, connection errors and broken bodies.
        max_connections: Connections kept open at once (the caller's concurrency).
        options: Backoff, jitter seed, sleep function, clock and transport.
        retry_budget: Seconds one request may spend in all, waits included, before a retry is given up.
        connect_timeout: Seconds allowed to connect; default ``min(timeout, 5)``.
        deadline: Seconds one attempt may take from sending the request to the answer's last byte; default twice
            the read timeout of the call.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout: float,
        max_retries: int,
        max_connections: int,
        options: HttpOptions,
        retry_budget: float = 120.0,
        connect_timeout: float | None = None,
        deadline: float | None = None,
    ) -> None:
        url = base_url.rstrip("/")
        self.base_url = without_credentials(url)
        self.scrub = Scrubber([api_key, *url_credentials(url), _basic_token(url)])
        """Remove the key and the URL's credentials (and long pieces of them) from a text (a :class:`Scrubber`)."""
        self._deadline = deadline
        self._max_retries = max_retries
        self._retry_budget = retry_budget
        self._options = options
        self._rng = random.Random(options.seed)
        self._rng_lock = threading.Lock()
        httpx = _import_httpx()
        self._httpx = httpx
        self._connect_timeout = min(timeout, 5.0) if connect_timeout is None else connect_timeout
        self._timeout = timeout
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=url,
            headers=headers,
            timeout=self._timeouts(timeout),
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
            transport=options.transport,
        )

    def __repr__(self) -> str:
        return f"JsonClient(base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the connections."""
        self._client.close()

    def get(self, path: str, *, max_retries: int | None = None) -> dict[str, Any]:
        """GET ``path`` and return its JSON object (see the module docstring for the errors raised).

        Args:
            path: Path under the base URL.
            max_retries: Retries for this call instead of the client's (0: one attempt, e.g. an optional check).
        """
        return self._request("GET", path, None, self._timeout, max_retries)

    def post(self, path: str, payload: dict[str, Any], *, read_timeout: float | None = None) -> dict[str, Any]:
        """POST ``payload`` as JSON to ``path`` and return the JSON object answered.

        Args:
            path: Path under the base URL.
            payload: The JSON object to send.
            read_timeout: Seconds to wait for this answer (a long generation needs more); default ``timeout``.
        """
        return self._request("POST", path, payload, read_timeout or self._timeout, None)

    def _timeouts(self, read: float) -> httpx.Timeout:
        return self._httpx.Timeout(read, connect=self._connect_timeout)

    def _request(
        self, method: str, path: str, payload: dict[str, Any] | None, read: float, max_retries: int | None
    ) -> dict[str, Any]:
        retries = self._max_retries if max_retries is None else max_retries
        started = self._options.clock()
        attempt = 0
        while True:
            outcome = self._attempt(method, path, payload, read, attempt + 1)
            if outcome.failure is None:
                return outcome.body
            if not outcome.retry or attempt >= retries:
                raise outcome.failure from outcome.cause
            delay = self._delay(attempt, outcome.retry_after)
            if self._options.clock() - started + delay > self._retry_budget:
                raise RequestFailed(
                    self.scrub(
                        f"{outcome.failure} The retry budget of {self._retry_budget:g} s is spent (the next wait "
                        f"would be {delay:.1f} s); raise retry_budget or check the server."
                    )
                ) from outcome.cause
            self._options.sleep(delay)
            attempt += 1

    def _attempt(self, method: str, path: str, payload: dict[str, Any] | None, read: float, attempts: int) -> _Outcome:
        where = f"{method} {self.base_url}{path}"
        deadline = self._deadline or 2 * read
        read = min(read, deadline)
        try:
            response = self._exchange(method, path, payload, read, deadline)
        except _DeadlinePassed as exc:
            message = (
                f"{where}: the answer was still arriving when the deadline of {deadline:g} s for the whole request "
                f"passed, after {attempts} attempt(s) (the server sends it too slowly). Check the server, or raise "
                "the deadline (--deadline, or the model option deadline=)."
            )
            return _Outcome({}, BackendUnavailable(self.scrub(message)), exc, retry=True)
        except self._httpx.TimeoutException as exc:
            message = (
                f"{where}: no answer within the timeout after {attempts} attempt(s) ({self._connect_timeout:g} s to "
                f"connect, {read:g} s to read). Check that the server is running and not overloaded, or raise timeout."
            )
            return _Outcome({}, BackendUnavailable(self.scrub(message)), exc, retry=True)
        except self._httpx.ConnectError as exc:
            message = (
                f"{where}: cannot reach the server after {attempts} attempt(s) ({type(exc).__name__}: {exc}). "
                "Check base_url and that the server is running."
            )
            return _Outcome({}, BackendUnavailable(self.scrub(message)), exc, retry=True)
        except self._httpx.TransportError as exc:  # e.g. the connection closed in the middle of the body
            message = f"{where}: the connection failed after {attempts} attempt(s) ({type(exc).__name__}: {exc})."
            return _Outcome({}, BackendUnavailable(self.scrub(message)), exc, retry=True)
        if response.status_code >= 400:
            failure = self._status_error(where, response, attempts)
            return _Outcome({}, failure, failure, response.status_code in _RETRY_STATUSES, _retry_after(response))
        try:
            return _Outcome(self._decode(where, response))
        except ResponseInvalid as exc:
            annotated = ResponseInvalid(f"{exc} (HTTP {response.status_code}, after {attempts} attempt(s))")
            return _Outcome({}, annotated, exc.__cause__ or exc, retry=True)

    def _exchange(
        self, method: str, path: str, payload: dict[str, Any] | None, read: float, deadline: float
    ) -> _Answer:
        """Send one request and read its whole answer, piece by piece, until ``deadline`` seconds have passed."""
        started = time.monotonic()
        request = self._client.build_request(method, path, json=payload, timeout=self._timeouts(read))
        response = self._client.send(request, stream=True)
        try:
            pieces = []
            for piece in response.iter_bytes():
                pieces.append(piece)
                if time.monotonic() - started > deadline:
                    raise _DeadlinePassed(f"{deadline:g} s")
            if time.monotonic() - started > deadline:
                raise _DeadlinePassed(f"{deadline:g} s")
        finally:
            response.close()
        content = b"".join(pieces)
        return _Answer(response.status_code, response.reason_phrase, response.headers, content, response.encoding)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        ceiling = self._options.backoff_max
        if retry_after is not None:
            return min(retry_after, ceiling)
        with self._rng_lock:
            jitter = 0.5 + 0.5 * self._rng.random()
        return min(ceiling, self._options.backoff_initial * 2**attempt) * jitter

    def _status_error(self, where: str, response: _Answer, attempts: int) -> RequestFailed:
        tried = f" after {attempts} attempt(s)" if response.status_code in _RETRY_STATUSES else ""
        shown = self._server_text(response, _server_message(response, self.scrub))
        failure = RequestFailed(
            self.scrub(f"{where}: HTTP {response.status_code}{tried} ({_reason(response.status_code)}): {shown}")
        )
        failure.status = response.status_code
        return failure

    def _decode(self, where: str, response: _Answer) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError as exc:
            shown = self._server_text(response, repr(_excerpt(self.scrub(response.text))))
            raise ResponseInvalid(self.scrub(f"{where}: expected a JSON object, got {shown}")) from exc
        if not isinstance(body, dict):
            raise ResponseInvalid(self.scrub(f"{where}: expected a JSON object, got {type(body).__name__}"))
        return body

    def _server_text(self, response: _Answer, scrubbed: str) -> str:
        """What a message says of a server's body: its length and hash, and with ``debug`` its scrubbed text."""
        digest = hashlib.sha256(response.content).hexdigest()[:12]
        summary = f"a body of {len(response.content)} bytes (sha256 {digest})"
        if self._options.debug:
            return f"{scrubbed} [{summary}]"
        return f"{summary}; run with --debug to see it, scrubbed of secrets"


def _basic_token(url: str) -> str | None:
    """The ``Authorization: Basic`` value the URL's user name and password make (an echo of it leaks both)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return None
    if parts.username is None:
        return None
    pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
    return base64.b64encode(pair.encode("utf-8")).decode("ascii")


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError as exc:
        raise MissingDependency("The 'openai' backend needs httpx: pip install httpx") from exc
    return httpx


def _retry_after(response: _Answer) -> float | None:
    """Seconds from a ``Retry-After`` header, in seconds or as an HTTP date; ``None`` when absent or unreadable."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _server_message(response: _Answer, scrub: Callable[[str], str]) -> str:
    """The server's own explanation (OpenAI's ``error.message``, FastAPI's ``detail``, or the body's start), scrubbed
    before it is cut to length."""
    try:
        body = response.json()
    except ValueError:
        return _excerpt(scrub(response.text)) or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return _excerpt(scrub(str(error["message"])))
        for key in ("detail", "message", "error"):
            if body.get(key):
                return _excerpt(scrub(str(body[key])))
    return _excerpt(scrub(response.text))


def _reason(status: int) -> str:
    """A short class of an HTTP error status, in words, with what to check."""
    if status in _REASONS:
        return _REASONS[status]
    return "a server error" if status >= 500 else "the server refused the request"


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 3] + "..."
