"""Reading OpenAI-compatible responses, and what a probe found a server can serve (for :mod:`.openai`).

Every malformed answer becomes :class:`~pfungst.errors.ResponseInvalid` naming what was missing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, ParamSpec, TypeVar

from pfungst.errors import ConfigError, RequestFailed, ResponseInvalid
from pfungst.models.cache_rows import InvalidRow, read_logprob
from pfungst.models.http import JsonClient
from pfungst.models.protocol import Capability
from pfungst.models.seconds import check_seconds
from pfungst.models.secrets import without_credentials

__all__ = [
    "LLAMA_CPP_PYTHON_TOKENIZE",
    "TOKENIZE_ROUTES",
    "ScoredToken",
    "ServerFeatures",
    "answer_of",
    "continuation_tokens",
    "features_from_dict",
    "first_choice",
    "generated_logprob",
    "generated_top",
    "check_options",
    "listed_model_id",
    "move_trailing_space",
    "server_model_id",
    "server_root",
    "tokenize_raw",
    "without_prefix",
]

LLAMA_CPP_PYTHON_TOKENIZE = "/extras/tokenize"
"""llama-cpp-python's tokenize route (its server also needs plain sampling fields)."""
TOKENIZE_ROUTES: dict[str, Callable[[str, str], dict[str, Any]]] = {
    LLAMA_CPP_PYTHON_TOKENIZE: lambda model, text: {"model": model, "input": text},
    "/tokenize": lambda model, text: {"model": model, "prompt": text, "content": text, "add_special_tokens": False},
}
"""Tokenize route -> its request body for a model and a text, in the order tried."""
_GREEDY_TOLERANCE = 1e-6
_P = ParamSpec("_P")
_R = TypeVar("_R")


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
    settled: bool = True
    """False when a probe step met a malformed answer or a server error: such findings are not kept in the cache."""
    source: str = ""
    """The model cache file these findings were read from (``""``: probed in this run)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form for the model cache (the tokenizer is rebuilt from its route and prefix)."""
        return {
            "capabilities": sorted(self.capabilities),
            "limitations": list(self.limitations),
            "sampling": self.sampling,
            "tokenizer_route": self.tokenizer_route,
            "tokenizer_prefix": list(self.tokenizer_prefix),
        }


def features_from_dict(client: JsonClient, model: str, data: dict[str, Any], *, source: str = "") -> ServerFeatures:
    """The features :meth:`ServerFeatures.to_dict` wrote (in the cache file ``source``); the tokenizer asks the
    server only when used.

    Raises:
        KeyError, TypeError, ValueError: ``data`` is not such a dictionary.
    """
    route = str(data["tokenizer_route"])
    if route and route not in TOKENIZE_ROUTES:
        raise ValueError(f"unknown tokenize route {route!r}")
    prefix = tuple(int(token) for token in data["tokenizer_prefix"])
    capabilities = frozenset(str(c) for c in data["capabilities"])
    if not capabilities <= {"loglikelihood", "next_token", "generate"} or not isinstance(data["sampling"], dict):
        raise ValueError(f"not a probe result: {data!r}")
    return ServerFeatures(
        capabilities,  # type: ignore[arg-type]  # checked against the three capabilities above
        tuple(str(note) for note in data["limitations"]),
        without_prefix(tokenize_raw(client, model, route), prefix) if route else None,
        dict(data["sampling"]),
        route,
        prefix,
        source=source,
    )


def first_choice(body: dict[str, Any]) -> dict[str, Any]:
    """The first element of ``choices``."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ResponseInvalid(f"expected a non-empty 'choices' list in the server's answer, got {_shape(body)}")
    return choices[0]


def _number(value: Any, what: str) -> float:
    """``value`` checked by the rule cached rows follow (:func:`~pfungst.models.cache_rows.read_logprob`)."""
    try:
        return read_logprob(value, what)
    except InvalidRow as exc:
        raise ResponseInvalid(f"{exc} in the server's answer") from None


def answer_of(server: str, read: Callable[_P, _R], /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
    """``read(*args, **kwargs)``, naming ``server`` (a model's repr: URL and model) in a malformed answer's error.

    Raises:
        ResponseInvalid: ``read`` refused the answer; the message starts with ``server``.
    """
    try:
        return read(*args, **kwargs)
    except ResponseInvalid as exc:
        raise ResponseInvalid(f"{server}: {exc}") from exc


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
            str(entry.get("token")): _number(
                entry.get("logprob"), f"field 'logprobs.content[0].top_logprobs[{i}].logprob'"
            )
            for i, entry in enumerate(first.get("top_logprobs") or [])
            if isinstance(entry, dict)
        }
        top[str(first.get("token"))] = _number(first.get("logprob"), "field 'logprobs.content[0].logprob'")
        return top
    logprobs = _completion_logprobs(choice)
    tops, tokens, values = logprobs.get("top_logprobs"), logprobs.get("tokens"), logprobs.get("token_logprobs")
    if not isinstance(tops, list) or not tops or not isinstance(tops[0], dict):
        raise ResponseInvalid(
            f"no top log-probabilities for the generated token, got {_shape(logprobs)} (llama.cpp returns none "
            "when the most likely next token is end-of-sequence)"
        )
    top = {str(key): _number(value, f"field 'logprobs.top_logprobs[0][{key!r}]'") for key, value in tops[0].items()}
    if isinstance(tokens, list) and tokens and isinstance(values, list) and values:
        top[str(tokens[0])] = _number(values[0], "field 'logprobs.token_logprobs[0]'")
    return top


def generated_logprob(body: dict[str, Any], candidate: str, *, chat: bool) -> float:
    """Log-probability of the (forced) first generated token, ``candidate``."""
    choice = first_choice(body)
    what = f"the log-probability of the forced candidate {candidate!r}"
    if chat:
        return _number(_chat_first_token(choice).get("logprob"), f"field 'logprobs.content[0].logprob' ({what})")
    values = _completion_logprobs(choice).get("token_logprobs")
    if not isinstance(values, list) or not values:
        raise ResponseInvalid(f"no token_logprobs for {what}; the server ignored logit_bias")
    return _number(values[0], f"field 'logprobs.token_logprobs[0]' ({what})")


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
        raise ResponseInvalid(f"echo log-probabilities are incomplete or of unequal lengths: {_shape(logprobs)}")
    return checked[0], checked[1], checked[2], checked[3]


def _scored(value: Any, top: Any, index: int) -> ScoredToken:
    logprob = _number(
        value, f"field 'logprobs.token_logprobs[{index}]' (the echoed prompt token's; the first has none)"
    )
    tops = (_number(v, f"field 'logprobs.top_logprobs[{index}][{k!r}]'") for k, v in top.items()) if top else ()
    best = max(tops, default=logprob)
    return ScoredToken(logprob=logprob, greedy=logprob >= best - _GREEDY_TOLERANCE)


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


def tokenize_raw(client: JsonClient, model: str, route: str) -> Callable[[str], tuple[int, ...]]:
    def raw(text: str) -> tuple[int, ...]:
        tokens = client.post(route, TOKENIZE_ROUTES[route](model, text)).get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
            raise ResponseInvalid(f"{route} answered without a list of token ids: {str(tokens)[:100]!r}")
        return tuple(tokens)

    return raw


def without_prefix(raw: Callable[[str], tuple[int, ...]], prefix: tuple[int, ...]) -> Callable[[str], tuple[int, ...]]:
    def tokenize(text: str) -> tuple[int, ...]:
        return _strip_prefix(raw(text), prefix)

    return tokenize


def _strip_prefix(ids: tuple[int, ...], prefix: tuple[int, ...]) -> tuple[int, ...]:
    return ids[len(prefix) :] if prefix and ids[: len(prefix)] == prefix else ids


def server_root(base_url: str) -> str:
    """``base_url`` without a trailing ``/`` or ``/v1``: the tokenize endpoints live at the root."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def move_trailing_space(context: str, candidates: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """``("Answer: ", ["A"])`` -> ``("Answer:", [" A"])``: a label's space belongs to the label, as in-process."""
    stripped = context.rstrip()
    space = context[len(stripped) :]
    return stripped, tuple(space + candidate for candidate in candidates)


def check_options(
    base_url: str, max_concurrency: int, timeout: float, retries: int, retry_budget: float, deadline: float | None
) -> None:
    """Refuse options out of range before any request (the URL is shown without its credentials).

    Raises:
        ConfigError: naming the option, the value given and what it takes.
    """
    if not base_url.startswith(("http://", "https://")):
        shown = without_credentials(base_url) if "://" in base_url else base_url.rpartition("@")[2]
        raise ConfigError(f"base_url {shown!r} must start with http:// or https://, e.g. http://127.0.0.1:8000.")
    if max_concurrency < 1:
        raise ConfigError(f"max_concurrency must be at least 1, got {max_concurrency}.")
    check_seconds("timeout", timeout)
    if retries < 0:
        raise ConfigError(f"retries must be 0 or more, got {retries}.")
    check_seconds("retry_budget", retry_budget, zero=True)
    check_seconds("deadline", deadline)


def _shape(value: object) -> str:
    """A part of a server's answer described without quoting it (server text may echo a secret): its type, size and
    hash; ``--debug`` shows the body itself, scrubbed."""
    text = str(value)
    digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]
    size = f" of {len(value)} entries" if isinstance(value, (dict, list)) else ""
    return f"a {type(value).__name__}{size} ({len(text)} characters as text, sha256 {digest})"
