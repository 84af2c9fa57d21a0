"""Reading a cached answer back (for :mod:`.cache`): only a valid answer to its request is a hit.

A stored row is refused, and the request asked again, when its JSON is malformed or nested deeper than
:data:`~pfungst.data.records.MAX_JSON_DEPTH` levels (read without recursion), a field is missing or of the wrong
type, a log-probability is NaN, ``+inf`` or above zero by more than :data:`LOGPROB_TOLERANCE`, a count is
negative, the byte count differs from the continuation's, a next-token answer has another number of values than
the request has candidates, or a generation's ``finish_reason`` is neither ``stop`` nor ``length``. ``-inf`` (a
probability of zero) is a valid log-probability.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from pfungst.data.records import MAX_JSON_DEPTH, parse_json
from pfungst.models.requests import (
    GenerateRequest,
    Generation,
    Loglikelihood,
    LoglikelihoodRequest,
    NextTokenLogprobs,
    NextTokenRequest,
)

__all__ = ["LOGPROB_TOLERANCE", "InvalidRow", "read_logprob", "read_row"]

LOGPROB_TOLERANCE = 1e-5
"""How far above zero a stored log-probability may be (float rounding of a probability of one)."""
_FINISH_REASONS = frozenset({"stop", "length"})


class InvalidRow(ValueError):
    """A stored row that is not a valid answer to its request; the message says what is wrong."""


def read_row(
    request: LoglikelihoodRequest | NextTokenRequest | GenerateRequest, text: str
) -> Loglikelihood | NextTokenLogprobs | Generation:
    """The answer stored as ``text`` for ``request``.

    Raises:
        InvalidRow: ``text`` is not a valid answer to ``request`` (see the module docstring).

    Example:
        >>> read_row(LoglikelihoodRequest("Q:", " a"), '{"logprob": 50.0, "n_tokens": 1, "n_bytes": 2, "greedy": true}')
        Traceback (most recent call last):
        ...
        pfungst.models.cache_rows.InvalidRow: logprob is 50.0, above zero: not a log-probability
    """
    data = _load(text)
    if not isinstance(data, dict):
        raise InvalidRow(f"expected a JSON object, got {type(data).__name__}")
    if isinstance(request, LoglikelihoodRequest):
        return _loglikelihood(request, data)
    if isinstance(request, NextTokenRequest):
        return _next_token(request, data)
    return _generation(data)


def _load(text: str) -> Any:
    """JSON from ``text``; a document nested too deep is refused before the recursive parser sees it."""
    try:
        if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:  # cannot nest too deep: skip the scan
            return json.loads(text)
        return parse_json(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidRow(f"not JSON ({exc})") from None


def _field(data: dict[str, Any], name: str) -> Any:
    if name not in data:
        raise InvalidRow(f"field {name!r} is missing")
    return data[name]


def read_logprob(value: Any, name: str) -> float:
    """``value`` as a log-probability: the one rule for every log-probability read from outside pfungst.

    Cached rows and OpenAI-compatible servers' answers both pass through it. NaN and values above
    :data:`LOGPROB_TOLERANCE` (``+inf`` included) are refused; ``-inf``, a probability of zero, is valid.

    Raises:
        InvalidRow: ``value`` is not a number, is NaN or is above zero; the message starts with ``name``.

    Example:
        >>> read_logprob(float("inf"), "logprob")
        Traceback (most recent call last):
        ...
        pfungst.models.cache_rows.InvalidRow: logprob is inf, above zero: not a log-probability
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidRow(f"{name} is {value!r}, not a number")
    if value != value:  # NaN (compared, not converted: a JSON integer may be beyond a float's range)
        raise InvalidRow(f"{name} is NaN")
    if value > LOGPROB_TOLERANCE:
        raise InvalidRow(f"{name} is {value!r}, above zero: not a log-probability")
    return float(value) if value >= -sys.float_info.max else -math.inf


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidRow(f"{name} is {value!r}, not a count")
    return value


def _loglikelihood(request: LoglikelihoodRequest, data: dict[str, Any]) -> Loglikelihood:
    logprob = read_logprob(_field(data, "logprob"), "logprob")
    n_tokens = _count(_field(data, "n_tokens"), "n_tokens")
    n_bytes = _count(_field(data, "n_bytes"), "n_bytes")
    if n_bytes != len(request.continuation.encode("utf-8")):
        raise InvalidRow(f"n_bytes is {n_bytes}, but the continuation has {len(request.continuation.encode())} bytes")
    greedy = _field(data, "greedy")
    if not isinstance(greedy, bool):
        raise InvalidRow(f"greedy is {greedy!r}, not true or false")
    return Loglikelihood(logprob, n_tokens, n_bytes, greedy)


def _next_token(request: NextTokenRequest, data: dict[str, Any]) -> NextTokenLogprobs:
    values = _field(data, "logprobs")
    if not isinstance(values, list) or len(values) != len(request.candidates):
        shape = f"{len(values)} values" if isinstance(values, list) else type(values).__name__
        raise InvalidRow(f"logprobs has {shape} for {len(request.candidates)} candidates")
    return NextTokenLogprobs(tuple(read_logprob(value, "a logprob") for value in values))


def _generation(data: dict[str, Any]) -> Generation:
    text, finish = _field(data, "text"), _field(data, "finish_reason")
    if not isinstance(text, str):
        raise InvalidRow(f"text is {type(text).__name__}, not a string")
    if finish not in _FINISH_REASONS:
        raise InvalidRow(f"finish_reason is {finish!r}, not 'stop' or 'length'")
    return Generation(text, finish)
