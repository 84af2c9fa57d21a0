"""Reading OpenAI-compatible responses, and probing once what a server can serve (for :mod:`.openai`).

Every malformed answer becomes :class:`~pfungst.errors.ResponseInvalid` naming what was missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from pfungst.errors import BackendError, RequestFailed, ResponseInvalid
from pfungst.models.http import JsonClient
from pfungst.models.protocol import Capability

__all__ = [
    "ScoredToken",
    "ServerFeatures",
    "continuation_tokens",
    "features_from_dict",
    "first_choice",
    "generated_logprob",
    "listed_model_id",
    "generated_top",
    "probe_features",
    "server_model_id",
]

_PROBE_PROMPT = "1, 2, 3, 4, 5, 6, 7,"
_LLAMA_CPP_PYTHON_TOKENIZE = "/extras/tokenize"
_ALIGNMENT_TOLERANCE = 1e-3
_GREEDY_TOLERANCE = 1e-6
_NOT_SERVED = frozenset({404, 405, 501})
_TOKENIZE_ROUTES: dict[str, Callable[[str, str], dict[str, Any]]] = {
    _LLAMA_CPP_PYTHON_TOKENIZE: lambda model, text: {"model": model, "input": text},
    "/tokenize": lambda model, text: {"model": model, "prompt": text, "content": text, "add_special_tokens": False},
}


class ScoredToken(NamedTuple):
    """One continuation token as the server scored it."""

    logprob: float
    greedy: bool


@dataclass(frozen=True)
class ServerFeatures:
    """What the probe found: the calls served, why others are not, a tokenizer if any, and sampling fields."""

    capabilities: frozenset[Capability]
    limitations: tuple[str, ...]
    tokenize: Callable[[str], tuple[int, ...]] | None
    """Token ids of a text without the tokenizer's leading special tokens; ``None`` when the server has none."""
    sampling: dict[str, Any]
    """Server-specific fields sent with every completion so that sampling is plain (greedy at temperature 0)."""
    tokenizer_route: str = ""
    """The path of the tokenize endpoint (``""``: none)."""
    tokenizer_prefix: tuple[int, ...] = ()
    """The ids the tokenizer puts before any text (a beginning-of-sequence token, or nothing)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form for the model cache (the tokenizer is rebuilt from its route and prefix)."""
        return {
            "capabilities": sorted(self.capabilities),
            "limitations": list(self.limitations),
            "sampling": self.sampling,
            "tokenizer_route": self.tokenizer_route,
            "tokenizer_prefix": list(self.tokenizer_prefix),
        }


def features_from_dict(client: JsonClient, model: str, data: dict[str, Any]) -> ServerFeatures:
    """The features :meth:`ServerFeatures.to_dict` wrote; the tokenizer asks the server only when used.

    Raises:
        KeyError, TypeError, ValueError: ``data`` is not such a dictionary.
    """
    route = str(data["tokenizer_route"])
    if route and route not in _TOKENIZE_ROUTES:
        raise ValueError(f"unknown tokenize route {route!r}")
    prefix = tuple(int(token) for token in data["tokenizer_prefix"])
    capabilities = frozenset(str(c) for c in data["capabilities"])
    if not capabilities <= {"loglikelihood", "next_token", "generate"} or not isinstance(data["sampling"], dict):
        raise ValueError(f"not a probe result: {data!r}")
    return ServerFeatures(
        capabilities,  # type: ignore[arg-type]  # checked against the three capabilities above
        tuple(str(note) for note in data["limitations"]),
        _without_prefix(_tokenize_raw(client, model, route), prefix) if route else None,
        dict(data["sampling"]),
        route,
        prefix,
    )


def first_choice(body: dict[str, Any]) -> dict[str, Any]:
    """The first element of ``choices``."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ResponseInvalid(f"expected a non-empty 'choices' list in the server's answer, got {str(body)[:200]!r}")
    return choices[0]


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ResponseInvalid(f"expected a number for {what}, got {value!r}")
    return float(value)


def _completion_logprobs(choice: dict[str, Any]) -> dict[str, Any]:
    logprobs = choice.get("logprobs")
    if not isinstance(logprobs, dict):
        raise ResponseInvalid(
            "the server returned no log-probabilities (llama.cpp returns none when the most likely next token is "
            "end-of-sequence; with a tokenize endpoint pfungst forces a label with logit_bias)"
        )
    return logprobs


def _chat_first_token(choice: dict[str, Any]) -> dict[str, Any]:
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        raise ResponseInvalid(
            "the chat completion carries no log-probabilities for its first token (the model may have ended the "
            "sequence at once, or the server ignores logprobs/top_logprobs)"
        )
    return content[0]


def generated_top(body: dict[str, Any], *, chat: bool) -> dict[str, float]:
    """Log-probabilities of the first generated token's top alternatives, the generated token included."""
    choice = first_choice(body)
    if chat:
        first = _chat_first_token(choice)
        top = {
            str(entry.get("token")): _number(entry.get("logprob"), "a top log-probability")
            for entry in first.get("top_logprobs") or []
            if isinstance(entry, dict)
        }
        top[str(first.get("token"))] = _number(first.get("logprob"), "the generated token's log-probability")
        return top
    logprobs = _completion_logprobs(choice)
    tops, tokens, values = logprobs.get("top_logprobs"), logprobs.get("tokens"), logprobs.get("token_logprobs")
    if not isinstance(tops, list) or not tops or not isinstance(tops[0], dict):
        raise ResponseInvalid(
            f"no top log-probabilities for the generated token, got {str(logprobs)[:200]!r} (llama.cpp returns none "
            "when the most likely next token is end-of-sequence)"
        )
    top = {str(key): _number(value, "a top log-probability") for key, value in tops[0].items()}
    if isinstance(tokens, list) and tokens and isinstance(values, list) and values:
        top[str(tokens[0])] = _number(values[0], "the generated token's log-probability")
    return top


def generated_logprob(body: dict[str, Any], candidate: str, *, chat: bool) -> float:
    """Log-probability of the (forced) first generated token, ``candidate``."""
    choice = first_choice(body)
    what = f"the log-probability of the forced candidate {candidate!r}"
    if chat:
        return _number(_chat_first_token(choice).get("logprob"), what)
    values = _completion_logprobs(choice).get("token_logprobs")
    if not isinstance(values, list) or not values:
        raise ResponseInvalid(f"no token_logprobs for {what}; the server ignored logit_bias")
    return _number(values[0], what)


def continuation_tokens(body: dict[str, Any], continuation: str) -> list[ScoredToken]:
    """The echoed tokens that spell ``continuation`` at the end of the prompt, with their log-probabilities.

    The rule: drop the generated tokens (``usage.completion_tokens``, else 1; none if the tokens left would not
    spell the continuation, as llama-cpp-python leaves them out when the model has no BOS); give each token the
    span from its ``text_offset`` to the next token's; the continuation is the last ``len(continuation)``
    characters of the echoed prompt, counted **from the end** (servers may leave a BOS or other special token's
    text out of the offsets, which shifts the start but never the end); every token whose span ends after the
    continuation starts belongs to it, so a token straddling the boundary (``" Paris"`` after ``"is "``) counts.
    The selected tokens must spell a text ending in the continuation, or the answer is refused.
    """
    tokens, offsets, values, tops = _echo_lists(_completion_logprobs(first_choice(body)))
    usage = body.get("usage")
    generated = usage.get("completion_tokens") if isinstance(usage, dict) else None
    generated = generated if isinstance(generated, int) and 0 <= generated < len(tokens) else 1
    spelled = ""
    for n_prompt in dict.fromkeys((len(tokens) - generated, len(tokens))):
        if n_prompt <= 0:
            continue
        ends = [
            int(offsets[i + 1]) if i + 1 < len(tokens) else int(offsets[i]) + len(tokens[i]) for i in range(n_prompt)
        ]
        selected = [i for i in range(n_prompt) if ends[i] > ends[-1] - len(continuation)]
        spelled = "".join(str(tokens[i]) for i in selected)
        if spelled.endswith(continuation):
            return [_scored(values[i], tops[i], i) for i in selected]
    raise ResponseInvalid(
        f"the echoed tokens end in {spelled[-len(continuation) - 10 :]!r}, not in the continuation {continuation!r} "
        "(a character split across tokens, a special token in the continuation, or a server that echoes no tokens)"
    )


def _echo_lists(logprobs: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """``tokens``, ``text_offset``, ``token_logprobs`` and ``top_logprobs``, checked to be lists of one length."""
    lists = [logprobs.get(key) for key in ("tokens", "text_offset", "token_logprobs", "top_logprobs")]
    checked = [part for part in lists if isinstance(part, list)]
    if len(checked) != len(lists) or len({len(part) for part in checked}) != 1:
        raise ResponseInvalid(f"echo log-probabilities are incomplete or of unequal lengths: {str(logprobs)[:200]!r}")
    return checked[0], checked[1], checked[2], checked[3]


def _scored(value: Any, top: Any, index: int) -> ScoredToken:
    logprob = _number(value, f"the echoed log-probability of prompt token {index} (the first has none)")
    best = max((_number(v, "a top log-probability") for v in top.values()), default=logprob) if top else logprob
    return ScoredToken(logprob=logprob, greedy=logprob >= best - _GREEDY_TOLERANCE)


def probe_features(client: JsonClient, model: str, *, chat: bool, bos_text: str | None) -> ServerFeatures:
    """Ask the server, with a few small requests, what it serves (see :mod:`pfungst.models.openai`).

    Raises:
        BackendError: The server fails the first probe completion for another reason than not serving its endpoint
            (a 401, a 400, a 5xx or a body that is not JSON, after retries): the message gives the HTTP status and
            the server's own message.
    """
    limitations: list[str] = []
    if chat:
        capabilities = _probe_chat(client, model, limitations)
        limitations.append("Log-likelihoods are not served in chat mode (a chat template cannot be echoed).")
    else:
        capabilities = _probe_completions(client, model, bos_text, limitations)
    tokenize, route, prefix = _find_tokenizer(client, model)
    # llama-cpp-python's server (the one with /extras/tokenize) applies a repeat penalty of 1.1, top-k 40 and
    # min-p 0.05 unless told otherwise, so its "greedy" text would differ from plain greedy decoding.
    sampling = {"repeat_penalty": 1.0, "top_k": 0, "min_p": 0.0} if route == _LLAMA_CPP_PYTHON_TOKENIZE else {}
    if tokenize is None:
        limitations.append(
            "No tokenize endpoint (/extras/tokenize or /tokenize): letter scoring cannot force a label with "
            "logit_bias, so a label outside the top 20 next tokens fails, and multi-token labels cannot be scored."
        )
    return ServerFeatures(frozenset(capabilities), tuple(limitations), tokenize, sampling, route, prefix)


def _first_probe(client: JsonClient, path: str, payload: dict[str, Any], notes: list[str], hint: str) -> Any:
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
        notes.append(f"{path} is not served ({exc}); {hint}")
        return None
    except BackendError as exc:
        raise type(exc)(f"The server failed a probe completion: {exc}") from exc


def server_model_id(client: JsonClient, model: str) -> str:
    """The id ``/v1/models`` reports for ``model``: itself if listed, else the only model served, else ``model``.

    Raises:
        BackendUnavailable: The server cannot be reached (after the client's retries).
    """
    try:
        return listed_model_id(client.get("/v1/models"), model)
    except (RequestFailed, ResponseInvalid):
        return model


def listed_model_id(body: dict[str, Any], model: str) -> str:
    """The id for ``model`` in a ``/v1/models`` answer: itself if listed, else the only model listed, else itself."""
    listed = body.get("data")
    ids = [str(entry["id"]) for entry in listed or [] if isinstance(entry, dict) and "id" in entry]
    if model in ids or len(ids) != 1:
        return model
    return ids[0]


def _tokenize_raw(client: JsonClient, model: str, route: str) -> Callable[[str], tuple[int, ...]]:
    def raw(text: str) -> tuple[int, ...]:
        tokens = client.post(route, _TOKENIZE_ROUTES[route](model, text)).get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
            raise ResponseInvalid(f"{route} answered without a list of token ids: {str(tokens)[:100]!r}")
        return tuple(tokens)

    return raw


def _find_tokenizer(
    client: JsonClient, model: str
) -> tuple[Callable[[str], tuple[int, ...]] | None, str, tuple[int, ...]]:
    """A tokenize function, the route serving it and its leading special tokens, or ``(None, "", ())``."""
    for route in _TOKENIZE_ROUTES:
        raw = _tokenize_raw(client, model, route)
        try:
            special = raw("")  # what the tokenizer puts before any text (a BOS token, or nothing)
            raw("Hello")
        except (RequestFailed, ResponseInvalid):
            continue
        return _without_prefix(raw, special), route, special
    return None, "", ()


def _without_prefix(raw: Callable[[str], tuple[int, ...]], prefix: tuple[int, ...]) -> Callable[[str], tuple[int, ...]]:
    def tokenize(text: str) -> tuple[int, ...]:
        return _strip_prefix(raw(text), prefix)

    return tokenize


def _strip_prefix(ids: tuple[int, ...], prefix: tuple[int, ...]) -> tuple[int, ...]:
    return ids[len(prefix) :] if prefix and ids[: len(prefix)] == prefix else ids


def _probe_completions(client: JsonClient, model: str, bos_text: str | None, notes: list[str]) -> set[Capability]:
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
        notes.append(f"Completions carry no usable log-probabilities ({exc}): no letter scoring, no log-likelihood.")
        return capabilities
    capabilities.add("next_token")
    if not isinstance(answer, str) or not answer:
        notes.append("The probe completion was empty, so echo alignment could not be checked: no log-likelihood.")
        return capabilities
    try:
        echo = client.post("/v1/completions", {**base, "prompt": prompt + answer, "echo": True, "logprobs": 1})
        scored = continuation_tokens(echo, answer)
    except (RequestFailed, ResponseInvalid) as exc:
        notes.append(f"Echo of prompt log-probabilities is not served ({exc}): no log-likelihood scoring.")
        return capabilities
    if len(scored) == 1 and abs(scored[0].logprob - expected) <= _ALIGNMENT_TOLERANCE:
        capabilities.add("loglikelihood")
    else:
        found = ", ".join(f"{token.logprob:.4f}" for token in scored)
        notes.append(
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


def _probe_chat(client: JsonClient, model: str, notes: list[str]) -> set[Capability]:
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
        notes.append(f"Chat completions carry no usable log-probabilities ({exc}): no letter scoring.")
        return {"generate"}
    return {"generate", "next_token"}
