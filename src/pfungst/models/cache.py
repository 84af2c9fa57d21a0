"""A persistent SQLite cache in front of any language model: an interrupted run resumes without repeating a call.

Each answer is stored under (model fingerprint, request kind, the request's canonical JSON): everything that changes
the answer and nothing that does not (batch size, timeouts and concurrency are not in the key). Requests missing
from the cache go to the model in chunks of ``chunk_size``, and each chunk's answers are committed as soon as they
arrive, so a run killed at any point (even with SIGKILL) loses at most the chunk in flight. The database runs in
WAL mode with a busy timeout, so several processes may read and write the same file at once. Processes do not share
work: each asks the model for every request that was not in the cache when it looked (two runs started together on
one cache both ask everything; nothing breaks, and the first answer stored is kept). Start a second run on the same
cache once the first is done, or give each its own share of the benchmark.

A row that is not a valid answer to its request (malformed or too deeply nested JSON, a missing field, a NaN or
positive log-probability, the wrong number of values: see :mod:`pfungst.models.cache_rows`) is a miss: the model is
asked again, the row is replaced, one warning gives the count and names the cache file, and
:attr:`CacheStats.invalid_rows` counts it. A backend may also keep small facts about
its model here (a server's probed capabilities) through :class:`Memo`, so that a run answered wholly from the cache
needs no server.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from pfungst.models.requests import Loglikelihood, LoglikelihoodRequest
    >>> class Constant:
    ...     fingerprint = "constant"
    ...     capabilities = frozenset({"loglikelihood"})
    ...     def loglikelihood(self, requests):
    ...         return [Loglikelihood(-1.0, 1, len(r.continuation), True) for r in requests]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     model = CachedModel(Constant(), Path(folder) / "cache.sqlite")
    ...     _ = model.loglikelihood([LoglikelihoodRequest("Q:", " a")] * 2)
    ...     _ = model.loglikelihood([LoglikelihoodRequest("Q:", " a")])
    ...     model.close()
    >>> model.stats
    CacheStats(requests=3, duplicates=1, hits=1, misses=1, model_calls=1, invalid_rows=0)
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pfungst.data.records import parse_json
from pfungst.errors import BackendUnavailable, ConfigError, ResponseInvalid
from pfungst.models.cache_rows import InvalidRow, read_row
from pfungst.models.protocol import Capability, LanguageModel
from pfungst.models.requests import (
    GenerateRequest,
    Generation,
    Loglikelihood,
    LoglikelihoodRequest,
    NextTokenLogprobs,
    NextTokenRequest,
    Request,
)

__all__ = ["CacheStats", "CachedModel", "Memo", "request_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    kind TEXT NOT NULL,
    request TEXT NOT NULL,
    result TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memo (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID
"""
_BUSY_TIMEOUT_S = 60.0
_LOOKUP_CHUNK = 500

Req = TypeVar("Req", LoglikelihoodRequest, NextTokenRequest, GenerateRequest)
Res = TypeVar("Res", Loglikelihood, NextTokenLogprobs, Generation)


@dataclass
class CacheStats:
    """What a :class:`CachedModel` has answered and how."""

    requests: int = 0
    """Requests received, duplicates included."""
    duplicates: int = 0
    """Requests identical to an earlier one in the same batch (answered once)."""
    hits: int = 0
    """Distinct requests answered from the cache."""
    misses: int = 0
    """Distinct requests sent to the model."""
    model_calls: int = 0
    """Calls made to the wrapped model (one per chunk of misses)."""
    invalid_rows: int = 0
    """Stored rows that were not valid answers (malformed JSON, a field missing, a NaN...) and were asked again."""


def _canonical(request: LoglikelihoodRequest | NextTokenRequest | GenerateRequest) -> str:
    return json.dumps(request.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _group_key(request: LoglikelihoodRequest | NextTokenRequest | GenerateRequest) -> tuple[str, str]:
    """Order misses by context (or prompt) so that requests sharing a prefix land in the same chunk."""
    text = request.prompt if isinstance(request, GenerateRequest) else request.context
    return text, _canonical(request)


def request_key(fingerprint: str, request: LoglikelihoodRequest | NextTokenRequest | GenerateRequest) -> str:
    """The cache key of ``request`` asked of the model ``fingerprint``: a SHA-256 of both, in canonical JSON.

    The request kind is part of the request's JSON (``to_dict()["kind"]``).
    """
    payload = json.dumps([fingerprint, _canonical(request)], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class Memo:
    """Small JSON facts a backend keeps in the cache file beside the answers, e.g. a server's probed capabilities.

    Like answers, facts must not depend on timeouts or concurrency; key them by model fingerprint where they
    describe one model.
    """

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._connection = connection
        self._path = path

    def __repr__(self) -> str:
        return f"Memo({str(self._path)!r})"

    @property
    def path(self) -> Path:
        """The cache file the facts are kept in (named in messages about a fact read from it)."""
        return self._path

    def get(self, key: str) -> dict[str, Any] | None:
        """The fact stored under ``key``, or ``None`` (also for an unreadable or too deeply nested one)."""
        try:
            row = self._connection.execute("SELECT value FROM memo WHERE key = ?", (key,)).fetchone()
            value = parse_json(str(row[0])) if row else None
        except (sqlite3.Error, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Store ``value`` under ``key``; a cache that cannot be written only loses the fact."""
        try:
            self._connection.execute("INSERT OR REPLACE INTO memo VALUES (?, ?)", (key, json.dumps(value)))
        except sqlite3.Error as exc:
            warnings.warn(f"Cannot write to the model cache {self._path}: {exc}", RuntimeWarning, stacklevel=2)


class CachedModel:
    """A LanguageModel that answers from a persistent SQLite cache and asks the wrapped model only for misses.

    Within a batch, identical requests reach the model once; results come back in request order.

    Args:
        model: The model to ask on a miss.
        path: The SQLite file (created with its folder if absent); may be shared by several processes.
        chunk_size: Misses sent to the model per call, each call's answers committed at once (not in the key).

    Raises:
        BackendUnavailable: The cache file cannot be opened.

    Attributes:
        stats: Requests, duplicates, hits, misses and model calls so far (:class:`CacheStats`).
    """

    def __init__(self, model: LanguageModel, path: str | Path, *, chunk_size: int = 64) -> None:
        if chunk_size < 1:
            raise ConfigError(f"chunk_size must be at least 1, not {chunk_size}.")
        self.model = model
        self.path = Path(path)
        self.chunk_size = chunk_size
        self.stats = CacheStats()
        self._lock = threading.Lock()
        self._warned_rows = 0
        self._connection = _connect(self.path)
        use_memo = getattr(model, "use_memo", None)
        if callable(use_memo):
            use_memo(Memo(self._connection, self.path))

    def __repr__(self) -> str:
        return f"CachedModel({self.model!r}, {str(self.path)!r})"

    @property
    def fingerprint(self) -> str:
        """The wrapped model's fingerprint."""
        return self.model.fingerprint

    @property
    def capabilities(self) -> frozenset[Capability]:
        """The wrapped model's capabilities."""
        return self.model.capabilities

    @property
    def limitations(self) -> tuple[str, ...]:
        """Why the wrapped model lacks a capability, one sentence each, where it says (a server's probe)."""
        return tuple(getattr(self.model, "limitations", ()))

    def close(self) -> None:
        """Close the database connection (answers are already committed); warn of invalid rows not yet told."""
        self._connection.close()
        if self.stats.invalid_rows > self._warned_rows:
            self._warn_invalid("in all, in this run")

    def uncached(self, requests: Sequence[Request]) -> int:
        """How many distinct requests among ``requests`` the model would be asked (not stored yet); asks nothing.

        Raises:
            BackendUnavailable: The cache cannot be read.
        """
        with self._lock:
            fingerprint = self.model.fingerprint
            keys = {request_key(fingerprint, request) for request in dict.fromkeys(requests)}
            return len(keys) - len(self._lookup(list(keys)))

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[Loglikelihood]:
        """Cached :meth:`LanguageModel.loglikelihood`."""
        return self._answer(requests, self.model.loglikelihood)

    def next_token_logprobs(self, requests: Sequence[NextTokenRequest]) -> list[NextTokenLogprobs]:
        """Cached :meth:`LanguageModel.next_token_logprobs`."""
        return self._answer(requests, self.model.next_token_logprobs)

    def generate(self, requests: Sequence[GenerateRequest]) -> list[Generation]:
        """Cached :meth:`LanguageModel.generate`."""
        return self._answer(requests, self.model.generate)

    def _answer(self, requests: Sequence[Req], ask: Callable[[Sequence[Req]], list[Res]]) -> list[Res]:
        """De-duplicate, look up, ask the model for the misses chunk by chunk (committing each), reassemble."""
        with self._lock:
            fingerprint = self.model.fingerprint
            unique = list(dict.fromkeys(requests))
            keys = {request: request_key(fingerprint, request) for request in unique}
            answers: dict[Req, Res] = self._parse_found(unique, keys)
            misses = sorted((r for r in unique if r not in answers), key=_group_key)
            self.stats.requests += len(requests)
            self.stats.duplicates += len(requests) - len(unique)
            self.stats.hits += len(answers)
            for start in range(0, len(misses), self.chunk_size):
                chunk = misses[start : start + self.chunk_size]
                results = ask(chunk)
                self.stats.model_calls += 1
                if len(results) != len(chunk):
                    raise ResponseInvalid(f"{self.model!r} answered {len(results)} results to {len(chunk)} requests")
                self._store(fingerprint, chunk, results, keys)
                self.stats.misses += len(chunk)
                answers.update(zip(chunk, results, strict=True))
            return [answers[request] for request in requests]

    def _parse_found(self, unique: list[Req], keys: dict[Req, str]) -> dict[Req, Any]:
        """The stored answers to ``unique``; a row that cannot be read back is a miss, counted and warned about."""
        found = self._lookup(list(keys.values()))
        answers: dict[Req, Any] = {}
        invalid: list[str] = []
        reason = ""
        for request in unique:
            if keys[request] not in found:
                continue
            try:
                answers[request] = read_row(request, found[keys[request]])
            except InvalidRow as exc:
                invalid.append(keys[request])
                reason = f"last: {exc}"
        if invalid:
            self._delete(invalid)
            self.stats.invalid_rows += len(invalid)
            if not self._warned_rows:  # the first time only; close() gives the total if more follow
                self._warn_invalid(reason)
        return answers

    def _warn_invalid(self, reason: str) -> None:
        count = self.stats.invalid_rows
        self._warned_rows = count
        warnings.warn(
            f"{self.path}: {count} cached answer(s) could not be read back as valid answers ({reason}); asking the "
            "model again and replacing them.",
            RuntimeWarning,
            stacklevel=5,
        )

    def _delete(self, keys: list[str]) -> None:
        """Remove unreadable rows, so that the answers asked again take their place."""
        try:
            self._connection.executemany("DELETE FROM results WHERE key = ?", [(key,) for key in keys])
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"Cannot write to the model cache {self.path}: {exc}") from exc

    def _lookup(self, keys: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        try:
            for start in range(0, len(keys), _LOOKUP_CHUNK):
                chunk = keys[start : start + _LOOKUP_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._connection.execute(f"SELECT key, result FROM results WHERE key IN ({marks})", chunk)
                found.update((key, str(result)) for key, result in rows)
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"Cannot read the model cache {self.path}: {exc}") from exc
        return found

    def _store(self, fingerprint: str, requests: Sequence[Req], results: Sequence[Res], keys: dict[Req, str]) -> None:
        rows = [
            (keys[request], fingerprint, request.to_dict()["kind"], _canonical(request), json.dumps(result.to_dict()))
            for request, result in zip(requests, results, strict=True)
        ]
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")  # one transaction per chunk: committed as a whole or not at all
            try:
                connection.executemany("INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?)", rows)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"Cannot write to the model cache {self.path}: {exc}") from exc


def _connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the cache database in WAL mode, ready for concurrent writers."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
        _set_up(connection)
    except (sqlite3.Error, OSError) as exc:
        raise BackendUnavailable(f"Cannot open the model cache {path}: {exc}") from exc
    return connection


def _set_up(connection: sqlite3.Connection) -> None:
    """Switch to WAL and create the table, retrying while another process does the same.

    Changing the journal mode needs an exclusive lock, and SQLite may report a competing process's lock at once
    instead of waiting for it, so "database is locked" is retried here for up to ``_BUSY_TIMEOUT_S``.
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_S
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # in WAL mode, still durable across a killed process
            connection.executescript(_SCHEMA)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
