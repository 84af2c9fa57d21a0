"""JSON over HTTP for server backends: one ``httpx.Client``, retries with seeded, jittered exponential backoff.

Every foreign exception is translated here, at the backend boundary (STYLE rule 21):

=============================================  ==========================================================
what happened                                  what the caller sees
=============================================  ==========================================================
429, 5xx, timeout, connection error            retried up to ``max_retries`` times (``Retry-After`` honoured
                                               up to the backoff ceiling), then:
... 429 or 5xx every time                      :class:`~pfungst.errors.RequestFailed` (status and message)
... timeout or no connection every time        :class:`~pfungst.errors.BackendUnavailable`
any other 4xx                                  :class:`~pfungst.errors.RequestFailed` at once
a body that is not a JSON object               :class:`~pfungst.errors.ResponseInvalid`
=============================================  ==========================================================

The API key is held only by the client's default headers; it is scrubbed from every message we raise.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pfungst.errors import BackendUnavailable, MissingDependency, RequestFailed, ResponseInvalid

if TYPE_CHECKING:
    import httpx

__all__ = ["HttpOptions", "JsonClient"]

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504}) | frozenset(range(505, 600))
_MESSAGE_LIMIT = 300


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
    transport: httpx.BaseTransport | None = None
    """An httpx transport to use instead of the network (``httpx.MockTransport`` in tests)."""


class JsonClient:
    """POST and GET JSON objects against one base URL, with retries; thread-safe, so a pool may share it.

    Args:
        base_url: Server root, e.g. ``http://127.0.0.1:8000`` (paths such as ``/v1/completions`` are appended).
        api_key: Sent as ``Authorization: Bearer``; ``None`` sends no header. Never stored anywhere else.
        timeout: Seconds allowed for one attempt (connect, read, write and pool alike).
        max_retries: Retries after the first attempt for 429, 5xx, timeouts and connection errors.
        max_connections: Connections kept open at once (the caller's concurrency).
        options: Backoff, jitter seed, sleep function and transport.
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
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._secret = api_key or None
        self._max_retries = max_retries
        self._options = options
        self._rng = random.Random(options.seed)
        self._rng_lock = threading.Lock()
        httpx = _import_httpx()
        self._timeout_error, self._transport_error = httpx.TimeoutException, httpx.TransportError
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=timeout,
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
            transport=options.transport,
        )

    def __repr__(self) -> str:
        return f"JsonClient(base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the connections."""
        self._client.close()

    def get(self, path: str) -> dict[str, Any]:
        """GET ``path`` and return its JSON object (see the module docstring for the errors raised)."""
        return self._request("GET", path, None)

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """POST ``payload`` as JSON to ``path`` and return the JSON object answered."""
        return self._request("POST", path, payload)

    def _request(self, method: str, path: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        attempt = 0
        while True:
            try:
                response = self._client.request(method, path, json=payload)
            except self._timeout_error as exc:
                failure: Exception = BackendUnavailable(
                    self._scrub(
                        f"{method} {self.base_url}{path}: no answer within the timeout after {attempt + 1} attempt(s). "
                        "Check that the server is running and not overloaded, or raise timeout."
                    )
                )
                cause: BaseException = exc
                retry_after = None
            except self._transport_error as exc:
                failure = BackendUnavailable(
                    self._scrub(
                        f"{method} {self.base_url}{path}: cannot reach the server after {attempt + 1} attempt(s) "
                        f"({type(exc).__name__}: {exc}). Check base_url and that the server is running."
                    )
                )
                cause, retry_after = exc, None
            else:
                if response.status_code < 400:
                    return self._decode(method, path, response)
                failure = self._status_error(method, path, response, attempt + 1)
                if response.status_code not in _RETRY_STATUSES:
                    raise failure
                cause, retry_after = failure, _retry_after(response)
            if attempt >= self._max_retries:
                raise failure from cause
            self._options.sleep(self._delay(attempt, retry_after))
            attempt += 1

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        ceiling = self._options.backoff_max
        if retry_after is not None:
            return min(retry_after, ceiling)
        with self._rng_lock:
            jitter = 0.5 + 0.5 * self._rng.random()
        return min(ceiling, self._options.backoff_initial * 2**attempt) * jitter

    def _status_error(self, method: str, path: str, response: httpx.Response, attempts: int) -> RequestFailed:
        message = _server_message(response)
        tried = f" after {attempts} attempt(s)" if response.status_code in _RETRY_STATUSES else ""
        return RequestFailed(
            self._scrub(f"{method} {self.base_url}{path}: HTTP {response.status_code}{tried}: {message}")
        )

    def _decode(self, method: str, path: str, response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError as exc:
            raise ResponseInvalid(
                self._scrub(f"{method} {self.base_url}{path}: expected a JSON object, got {_excerpt(response.text)!r}")
            ) from exc
        if not isinstance(body, dict):
            raise ResponseInvalid(
                self._scrub(f"{method} {self.base_url}{path}: expected a JSON object, got {type(body).__name__}")
            )
        return body

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError as exc:
        raise MissingDependency("The 'openai' backend needs httpx: pip install 'pfungst[openai]'") from exc
    return httpx


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds from a numeric ``Retry-After`` header; ``None`` when absent or an HTTP date."""
    try:
        return max(0.0, float(response.headers.get("retry-after", "")))
    except ValueError:
        return None


def _server_message(response: httpx.Response) -> str:
    """The server's own explanation: OpenAI's ``error.message``, FastAPI's ``detail``, or the body's start."""
    try:
        body = response.json()
    except ValueError:
        return _excerpt(response.text) or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return _excerpt(str(error["message"]))
        for key in ("detail", "message", "error"):
            if body.get(key):
                return _excerpt(str(body[key]))
    return _excerpt(response.text)


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 3] + "..."
