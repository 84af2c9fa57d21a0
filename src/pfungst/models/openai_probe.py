"""Probing once, with a few small requests, what an OpenAI-compatible server can serve (for :mod:`.openai`).

The findings (:class:`~pfungst.models.openai_wire.ServerFeatures`) are *settled* unless a step met a malformed
answer (:class:`~pfungst.errors.ResponseInvalid`) or a server error (429, 5xx): only settled findings are kept in
the model cache, so a server that misbehaved once is probed again by the next run instead of being refused for ever.
A step the server does not serve (404, 405, 501, or 400 to an option it does not take) is a settled limitation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pfungst.errors import BackendError, RequestFailed, ResponseInvalid
from pfungst.models.http import JsonClient
from pfungst.models.openai_wire import (
    LLAMA_CPP_PYTHON_TOKENIZE,
    TOKENIZE_ROUTES,
    ServerFeatures,
    continuation_tokens,
    first_choice,
    generated_logprob,
    generated_top,
    tokenize_raw,
    without_prefix,
)
from pfungst.models.protocol import Capability

__all__ = ["probe_features"]

_PROBE_PROMPT = "1, 2, 3, 4, 5, 6, 7,"
_ALIGNMENT_TOLERANCE = 1e-3
_NOT_SERVED = frozenset({404, 405, 501})
_SERVER_FAULT = 429


class _Notes:
    """What the probe found missing, one sentence each, and whether every step got a well-formed answer."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.settled = True

    def add(self, note: str) -> None:
        self.notes.append(note)

    def doubt(self, failure: BackendError) -> None:
        """A step failed: a malformed answer or a server error makes the findings unsettled; a client error not."""
        status = getattr(failure, "status", None)
        if isinstance(failure, ResponseInvalid) or status is None or status == _SERVER_FAULT or status >= 500:
            self.settled = False


def probe_features(client: JsonClient, model: str, *, chat: bool, bos_text: str | None) -> ServerFeatures:
    """Ask the server, with a few small requests, what it serves (see :mod:`pfungst.models.openai`).

    Raises:
        BackendError: The server fails the first probe completion for another reason than not serving its endpoint
            (a 401, a 400, a 5xx or a body that is not JSON, after retries): the message gives the HTTP status and
            the server's own message.
    """
    limitations = _Notes()
    if chat:
        capabilities = _probe_chat(client, model, limitations)
        limitations.add("Log-likelihoods are not served in chat mode (a chat template cannot be echoed).")
    else:
        capabilities = _probe_completions(client, model, bos_text, limitations)
    tokenize, route, prefix = _find_tokenizer(client, model, limitations)
    # llama-cpp-python's server (the one with /extras/tokenize) applies a repeat penalty of 1.1, top-k 40 and
    # min-p 0.05 unless told otherwise, so its "greedy" text would differ from plain greedy decoding.
    sampling = {"repeat_penalty": 1.0, "top_k": 0, "min_p": 0.0} if route == LLAMA_CPP_PYTHON_TOKENIZE else {}
    if tokenize is None:
        limitations.add(
            "No tokenize endpoint (/extras/tokenize or /tokenize): letter scoring cannot force a label with "
            "logit_bias, so a label outside the top 20 next tokens fails, and multi-token labels cannot be scored."
        )
    notes = tuple(limitations.notes)
    return ServerFeatures(frozenset(capabilities), notes, tokenize, sampling, route, prefix, limitations.settled)


def _first_probe(client: JsonClient, path: str, payload: dict[str, Any], notes: _Notes, hint: str) -> Any:
    """The answer to the first probe completion; ``None`` (with a note) where the endpoint is not served.

    Any other failure is the server's, not a missing feature, and is raised with its status and message.
    """
    try:
        return client.post(path, payload)
    except RequestFailed as exc:
        if exc.status not in _NOT_SERVED:
            advice = " Check the API key (api_key_env)." if exc.status in (401, 403) else ""
            failure = RequestFailed(f"The server failed a probe completion: {exc}{advice}")
            failure.status = exc.status
            raise failure from exc
        notes.add(f"{path} is not served ({exc}); {hint}")
        return None
    except BackendError as exc:
        raise type(exc)(f"The server failed a probe completion: {exc}") from exc


def _find_tokenizer(
    client: JsonClient, model: str, notes: _Notes
) -> tuple[Callable[[str], tuple[int, ...]] | None, str, tuple[int, ...]]:
    """A tokenize function, the route serving it and its leading special tokens, or ``(None, "", ())``."""
    for route in TOKENIZE_ROUTES:
        raw = tokenize_raw(client, model, route)
        try:
            special = raw("")  # what the tokenizer puts before any text (a BOS token, or nothing)
            raw("Hello")
        except (RequestFailed, ResponseInvalid) as exc:
            notes.doubt(exc)
            continue
        return without_prefix(raw, special), route, special
    return None, "", ()


def _probe_completions(client: JsonClient, model: str, bos_text: str | None, notes: _Notes) -> set[Capability]:
    prompt = (bos_text or "") + _PROBE_PROMPT
    base = {"model": model, "max_tokens": 1, "temperature": 0.0}
    plain = _first_probe(
        client,
        "/v1/completions",
        {**base, "prompt": prompt, "logprobs": 5},
        notes,
        "a chat-only server needs chat=True.",
    )
    if plain is None:
        return set()
    capabilities: set[Capability] = {"generate"}
    try:
        answer = first_choice(plain).get("text")
        expected = generated_logprob(plain, str(answer), chat=False)
    except ResponseInvalid as exc:
        notes.add(f"Completions carry no usable log-probabilities ({exc}): no letter scoring, no log-likelihood.")
        notes.doubt(exc)
        return capabilities
    capabilities.add("next_token")
    if not isinstance(answer, str) or not answer:
        notes.add("The probe completion was empty, so echo alignment could not be checked: no log-likelihood.")
        return capabilities
    try:
        echo = client.post("/v1/completions", {**base, "prompt": prompt + answer, "echo": True, "logprobs": 1})
        scored = continuation_tokens(echo, answer)
    except (RequestFailed, ResponseInvalid) as exc:
        notes.add(f"Echo of prompt log-probabilities is not served ({exc}): no log-likelihood scoring.")
        notes.doubt(exc)
        return capabilities
    if len(scored) == 1 and abs(scored[0].logprob - expected) <= _ALIGNMENT_TOLERANCE:
        capabilities.add("loglikelihood")
    else:
        found = ", ".join(f"{token.logprob:.4f}" for token in scored)
        notes.add(
            f"Echoed prompt log-probabilities disagree with the next-token one ({found} vs {expected:.4f} for "
            f"{answer!r} after {_PROBE_PROMPT!r}): they are shifted by one token, as llama-cpp-python's server does "
            "for models without a beginning-of-sequence token (e.g. SmolLM2). "
            + (
                f"bos_text={bos_text!r} did not fix it."
                if bos_text
                else "Pass bos_text (SmolLM2: '<|im_start|>') to align them, or use the llamacpp backend."
            )
        )
    return capabilities


def _probe_chat(client: JsonClient, model: str, notes: _Notes) -> set[Capability]:
    payload = {
        "model": model,
        "max_tokens": 1,
        "temperature": 0.0,
        "logprobs": True,
        "top_logprobs": 5,
        "messages": [{"role": "user", "content": _PROBE_PROMPT}],
    }
    body = _first_probe(client, "/v1/chat/completions", payload, notes, "try chat=False.")
    if body is None:
        return set()
    try:
        generated_top(body, chat=True)
    except ResponseInvalid as exc:
        notes.add(f"Chat completions carry no usable log-probabilities ({exc}): no letter scoring.")
        notes.doubt(exc)
        return {"generate"}
    return {"generate", "next_token"}
