"""Any OpenAI-compatible server (vLLM, llama.cpp's servers, TGI) as a :class:`~pfungst.models.LanguageModel`.

How each call is served, and the rules that decide its numbers:

- ``loglikelihood``: ``/v1/completions`` with ``echo: true, logprobs: 1, max_tokens: 1`` on ``context +
  continuation`` (``max_tokens: 0`` means "no limit" to llama.cpp). The continuation is found in the echoed tokens
  from the end (see :func:`pfungst.models.openai_wire.continuation_tokens`): a token straddling the boundary
  belongs to the continuation. Not offered with ``chat=True`` (a chat template cannot be echoed).
- ``next_token_logprobs``: one ``max_tokens: 1`` request with the top 20 log-probabilities, on
  ``/v1/completions`` or, with ``chat=True``, ``/v1/chat/completions`` (the context is the user message). When the
  server has a tokenize endpoint (llama-cpp-python's ``/extras/tokenize``; vLLM's and llama-server's
  ``/tokenize``), every single-token candidate gets a ``logit_bias`` of +100 so that a label is generated even where
  the model would end the sequence (llama.cpp then returns no log-probabilities at all); the log-probabilities
  returned are the raw ones. A candidate outside the top 20 is asked again alone, forced by its own bias, so every
  value is exact: **there is no floor value**. Without a tokenize endpoint a missing candidate raises
  :class:`~pfungst.errors.ResponseInvalid`. A multi-token candidate is scored as a log-likelihood (echo), so it
  needs both a tokenizer and the ``loglikelihood`` capability.
- ``generate``: ``temperature`` and ``seed`` passed through; ``finish_reason`` is ``length`` or ``stop``.

What the server supports is probed once, lazily (:attr:`OpenAIModel.capabilities`): a plain completion, an echo of
the same prompt plus its answer whose last log-probability must equal the answer's (catching llama-cpp-python's
echo log-probabilities shifted by one token for models without a beginning-of-sequence token, such as SmolLM2),
and the tokenize endpoints. :attr:`OpenAIModel.limitations` says in words what was found missing. A server that
fails the first probe completion (401, 400, 5xx, a body that is not JSON) is reported with its status and, with
``debug``, its message.

Behind the model cache (:class:`~pfungst.models.cache.CachedModel`) the served model id and the probe's answer are
kept in the cache file, the probe under the model's fingerprint: a run answered wholly from the cache then needs no
server (when ``/v1/models`` cannot be reached in one attempt, the model id last seen there is used).

A flaky server costs time, not the run: each request is retried on 429, 5xx, timeouts, broken connections and
broken bodies, up to ``retries`` times and ``retry_budget`` seconds (:mod:`pfungst.models.http`, which also says
how the API key is kept out of every message). Connecting may take 5 seconds; an answer ``timeout`` seconds between
two pieces (a generation half a second more per token asked), and ``deadline`` seconds in all.

For the echo shift, ``bos_text`` (for SmolLM2 ``"<|im_start|>"``, its BOS token, which the server strips from the
echo) is put before every completions prompt, as a tokenizer that adds a BOS token would: echo log-probabilities
are then aligned, and every call is conditioned on that token alike, so a model's answers stay consistent with one
another but differ from an in-process evaluation without it (SmolLM2 on ARC-Easy options: 0.56 nats median, 3.2
at most; 1 choice in 10 changed). Without ``bos_text`` such a server has no ``loglikelihood`` (and no multi-token
candidates).

As in-process, a context's trailing whitespace moves to the front of each candidate (``"Answer: "`` + ``"A"`` is
scored as ``" A"`` after ``"Answer:"``). An empty context has no echoed log-probability for its first token and is
refused with :class:`~pfungst.errors.ResponseInvalid`, as is a log-probability that is not a number, NaN or above
zero (``+inf`` too; the cache's rule, :func:`~pfungst.models.cache_rows.read_logprob`), naming server, model and
field. With llama-cpp-python's server every completion also sends ``repeat_penalty: 1, top_k: 0, min_p: 0`` (its
defaults are 1.1, 40 and 0.05) so that its sampling is plain.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from pfungst.errors import BackendError, ConfigError, ResponseInvalid
from pfungst.models.http import HttpOptions, JsonClient
from pfungst.models.openai_probe import probe_features
from pfungst.models.openai_wire import (
    ServerFeatures,
    answer_of,
    check_options,
    continuation_tokens,
    features_from_dict,
    first_choice,
    generated_logprob,
    generated_top,
    listed_model_id,
    move_trailing_space,
    server_model_id,
    server_root,
)
from pfungst.models.protocol import Capability
from pfungst.models.requests import (
    GenerateRequest,
    Generation,
    Loglikelihood,
    LoglikelihoodRequest,
    NextTokenLogprobs,
    NextTokenRequest,
)
from pfungst.models.secrets import scrubbed_errors

if TYPE_CHECKING:
    from pfungst.models.cache import Memo

__all__ = ["OpenAIModel"]

_T = TypeVar("_T")
_R = TypeVar("_R")
_TOP_LOGPROBS, _FORCE_BIAS, _SECONDS_PER_TOKEN = 20, 100.0, 0.5


class OpenAIModel:
    """A model served over the OpenAI HTTP API; a synchronous API with ``max_concurrency`` requests in flight.

    Args:
        base_url: Server root without ``/v1``, e.g. ``http://127.0.0.1:8000``.
        model: The model name sent with each request (servers with one model usually ignore it).
        api_key_env: Name of the environment variable holding the API key, sent as a Bearer token; unset or empty
            sends none. The key is never stored outside the HTTP client's headers, logged, or shown.
        max_concurrency: Requests in flight at once (a thread pool over one connection pool).
        timeout: Seconds allowed to read one answer (a generation gets half a second more per token asked).
        retries: Retries of one request on 429, 5xx, timeouts, broken connections and bodies (exponential backoff).
        retry_budget: Seconds one request may spend on retries in all, waits included.
        chat: Use ``/v1/chat/completions`` for next-token log-probabilities and generation.
        bos_text: Text put before every completions prompt to align echo log-probabilities (module docstring).
        http: Backoff, jitter seed, sleep function and transport (tests); none of it changes an answer.
        deadline: Seconds one request may take from sending it to the answer's last byte (default: twice its read
            timeout); a server sending slower is cut off and the request retried.
        debug: Show the server's own text in error messages, scrubbed (default: status, class, length, hash).

    Raises:
        ConfigError: An option is out of range.

    Example:
        >>> OpenAIModel("http://127.0.0.1:8000", "smollm2", max_concurrency=2)
        OpenAIModel(base_url='http://127.0.0.1:8000', model='smollm2', chat=False)
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        max_concurrency: int = 4,
        timeout: float = 60.0,
        retries: int = 8,
        retry_budget: float = 120.0,
        chat: bool = False,
        bos_text: str | None = None,
        http: HttpOptions | None = None,
        deadline: float | None = None,
        debug: bool = False,
    ) -> None:
        check_options(base_url, max_concurrency, timeout, retries, retry_budget, deadline)
        root = server_root(base_url)
        self.model = model
        self.chat = chat
        self.bos_text = bos_text
        self.max_concurrency = max_concurrency
        self._client = JsonClient(
            root,
            os.environ.get(api_key_env) or None,
            timeout=timeout,
            max_retries=retries,
            max_connections=max_concurrency,
            options=replace(http or HttpOptions(), debug=debug or bool(http and http.debug)),
            retry_budget=retry_budget,
            deadline=deadline,
        )
        self.base_url = self._client.base_url  # without credentials: this is the URL shown and stored
        self.timeout = timeout
        self._memo: Memo | None = None
        self._features: ServerFeatures | None = None
        self._model_id: str | None = None
        self._probe_lock = threading.Lock()
        self._token_ids: dict[str, tuple[int, ...]] = {}

    def __repr__(self) -> str:
        return f"OpenAIModel(base_url={self.base_url!r}, model={self.model!r}, chat={self.chat})"

    def __enter__(self) -> OpenAIModel:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def use_memo(self, memo: Memo) -> None:
        """Keep the served model id and the probe's answer in the model cache (see the module docstring)."""
        self._memo = memo

    @property
    def fingerprint(self) -> str:
        """``openai:<base_url>#<model id of /v1/models>`` (+ ``;chat``, ``;bos_text=...``), URL without credentials."""
        with self._probe_lock, scrubbed_errors(self._client.scrub):
            if self._model_id is None:
                self._model_id = self._client.scrub(self._served_model_id())
        mode = (";chat" if self.chat else "") + (f";bos_text={self.bos_text!r}" if self.bos_text else "")
        return f"openai:{self.base_url}#{self._model_id}{mode}"

    def _served_model_id(self) -> str:
        key = f"openai-model-id:{self.base_url}#{self.model}"
        seen = self._memo.get(key) if self._memo else None
        if seen is None or not isinstance(seen.get("id"), str):
            model_id = server_model_id(self._client, self.model)
        else:
            try:  # one attempt: a stopped server must not cost the retry budget of a run served from the cache
                model_id = listed_model_id(self._client.get("/v1/models", max_retries=0), self.model)
            except BackendError:
                return str(seen["id"])
        model_id = self._client.scrub(model_id)
        if self._memo and (seen is None or seen.get("id") != model_id):
            self._memo.put(key, {"id": model_id})
        return model_id

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What this server can serve, probed on first use (a few small requests) and cached.

        The fingerprint needs only ``/v1/models``, so a run answered wholly from the cache sends nothing else.
        """
        return self._probe().capabilities

    @property
    def limitations(self) -> tuple[str, ...]:
        """What the probe found missing, one sentence each (empty when all is served), naming the cache it came from."""
        features = self._probe()
        if not features.source or not features.limitations:
            return features.limitations
        path = features.source
        return (
            *features.limitations,
            f"(Found by an earlier probe kept in the model cache {path}; to probe the server again, delete that file, "
            f"give another --cache, or run: sqlite3 {path} \"DELETE FROM memo WHERE key LIKE 'openai-probe:%'\")",
        )

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[Loglikelihood]:
        """Log-probability of each continuation given its context, from echoed prompt log-probabilities.

        Raises:
            ConfigError: The server cannot serve log-likelihoods (see :attr:`limitations`).
            BackendError: A request failed, after retries where retrying makes sense.
        """
        with scrubbed_errors(self._client.scrub):
            self._require("loglikelihood")
            return self._map(self._loglikelihood_one, requests)

    def next_token_logprobs(self, requests: Sequence[NextTokenRequest]) -> list[NextTokenLogprobs]:
        """Log-probability of each candidate as the text right after the context (exact; no floor value).

        Raises:
            ConfigError: The server cannot serve next-token log-probabilities, or a candidate is empty.
            ResponseInvalid: A candidate is missing from the top 20 and the server has no tokenizer to force it.
            BackendError: A request failed.
        """
        with scrubbed_errors(self._client.scrub):
            self._require("next_token")
            return self._map(self._next_token_one, requests)

    def generate(self, requests: Sequence[GenerateRequest]) -> list[Generation]:
        """Generated text for each prompt (greedy at ``temperature=0``; seeded otherwise; the API key scrubbed)."""
        with scrubbed_errors(self._client.scrub):
            self._require("generate")
            return self._map(self._generate_one, requests)

    def _probe(self) -> ServerFeatures:
        fingerprint = self.fingerprint
        with self._probe_lock, scrubbed_errors(self._client.scrub):
            if self._features is None:
                self._features = self._remembered_features(fingerprint)
            if self._features is None:
                found = probe_features(self._client, self.model, chat=self.chat, bos_text=self.bos_text)
                limitations = tuple(self._client.scrub(note) for note in found.limitations)
                self._features = replace(found, limitations=limitations)
                if self._memo and found.settled:  # a malformed answer or a server error is not a finding to keep
                    self._memo.put(f"openai-probe:{fingerprint}", self._features.to_dict())
            return self._features

    def _remembered_features(self, fingerprint: str) -> ServerFeatures | None:
        if self._memo is None or not (stored := self._memo.get(f"openai-probe:{fingerprint}")):
            return None
        try:
            return features_from_dict(self._client, self.model, stored, source=str(self._memo.path))
        except (KeyError, TypeError, ValueError):
            return None  # written by another version: probe again

    def _require(self, capability: Capability) -> None:
        if capability not in self._probe().capabilities:
            why = " ".join(self.limitations) or "The probe found no support."
            raise ConfigError(f"{self!r} cannot serve '{capability}'. {why}")

    def _map(self, function: Callable[[_T], _R], items: Sequence[_T]) -> list[_R]:
        """``function`` over ``items`` with at most ``max_concurrency`` in flight; the first error cancels the rest."""
        if len(items) <= 1 or self.max_concurrency == 1:
            return [function(item) for item in items]
        with ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="pfungst-openai") as pool:
            futures: list[Future[_R]] = [pool.submit(function, item) for item in items]
            try:
                return [future.result() for future in futures]
            except BaseException:
                for future in futures:
                    future.cancel()
                raise

    def _completion(self, payload: dict[str, Any], read_timeout: float | None = None) -> dict[str, Any]:
        path = "/v1/chat/completions" if self.chat else "/v1/completions"
        body = {"model": self.model, "temperature": 0.0, **self._probe().sampling, **payload}
        return self._client.post(path, body, read_timeout=read_timeout)

    def _prompt_fields(self, text: str) -> dict[str, Any]:
        if self.chat:
            return {"messages": [{"role": "user", "content": text}]}
        return {"prompt": (self.bos_text or "") + text}

    def _logprob_fields(self, count: int) -> dict[str, Any]:
        return {"logprobs": True, "top_logprobs": count} if self.chat else {"logprobs": count}

    def _loglikelihood_one(self, request: LoglikelihoodRequest) -> Loglikelihood:
        n_bytes = len(request.continuation.encode("utf-8"))
        if not request.continuation:
            return Loglikelihood(logprob=0.0, n_tokens=0, n_bytes=0, greedy=True)
        prompt = (self.bos_text or "") + request.context + request.continuation
        body = self._client.post(
            "/v1/completions",
            {"model": self.model, "prompt": prompt, "max_tokens": 1, "temperature": 0.0, "echo": True, "logprobs": 1},
        )
        scored = answer_of(repr(self), continuation_tokens, body, request.continuation)
        return Loglikelihood(
            logprob=sum(token.logprob for token in scored),
            n_tokens=len(scored),
            n_bytes=n_bytes,
            greedy=all(token.greedy for token in scored),
        )

    def _next_token_one(self, request: NextTokenRequest) -> NextTokenLogprobs:
        context, candidates = move_trailing_space(request.context, request.candidates)
        ids = {candidate: self._candidate_ids(candidate) for candidate in dict.fromkeys(candidates)}
        single = [c for c in ids if ids[c] is None or len(ids[c] or ()) == 1]
        bias = {str(token): _FORCE_BIAS for c in single for token in ids[c] or ()}
        body = self._completion(
            {
                **self._prompt_fields(context),
                "max_tokens": 1,
                **self._logprob_fields(_TOP_LOGPROBS),
                **({"logit_bias": bias} if bias else {}),
            }
        )
        top = answer_of(repr(self), generated_top, body, chat=self.chat)
        values: dict[str, float] = {}
        for candidate, token_ids in ids.items():
            if token_ids is not None and len(token_ids) > 1:
                values[candidate] = self._multi_token_logprob(context, candidate)
            elif candidate in top:
                values[candidate] = top[candidate]
            elif token_ids is not None:
                values[candidate] = self._forced_logprob(context, candidate, token_ids[0])
            else:
                raise ResponseInvalid(
                    f"{self.base_url}: candidate {candidate!r} is not among the top {_TOP_LOGPROBS} next tokens "
                    f"(got {sorted(top)!r}) and the server has no tokenize endpoint to force it with logit_bias. "
                    "Use a server with /tokenize (vLLM, llama.cpp) or a scoring rule other than letter."
                )
        return NextTokenLogprobs(logprobs=tuple(values[c] for c in candidates))

    def _forced_logprob(self, context: str, candidate: str, token_id: int) -> float:
        body = self._completion(
            {
                **self._prompt_fields(context),
                "max_tokens": 1,
                **self._logprob_fields(1),
                "logit_bias": {str(token_id): _FORCE_BIAS},
            }
        )
        return answer_of(repr(self), generated_logprob, body, candidate, chat=self.chat)

    def _multi_token_logprob(self, context: str, candidate: str) -> float:
        if "loglikelihood" not in self.capabilities:
            raise ConfigError(
                f"{self!r}: candidate {candidate!r} is several tokens, which is scored as a log-likelihood, and "
                f"this server cannot serve one. {' '.join(self.limitations)} Use single-token labels."
            )
        return self._loglikelihood_one(LoglikelihoodRequest(context=context, continuation=candidate)).logprob

    def _candidate_ids(self, candidate: str) -> tuple[int, ...] | None:
        """Token ids of ``candidate`` (without the tokenizer's leading special tokens), or ``None``: no tokenizer."""
        if not candidate:
            raise ConfigError("A next-token candidate is the empty string; give each candidate some text.")
        tokenize = self._probe().tokenize
        if tokenize is None:
            return None
        if candidate not in self._token_ids:
            self._token_ids[candidate] = tokenize(candidate)
        return self._token_ids[candidate]

    def _generate_one(self, request: GenerateRequest) -> Generation:
        payload: dict[str, Any] = {
            **self._prompt_fields(request.prompt),
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "seed": request.seed,
        }
        if request.stop:
            payload["stop"] = list(request.stop)
        choice = first_choice(self._completion(payload, self.timeout + _SECONDS_PER_TOKEN * request.max_tokens))
        text = choice.get("message", {}).get("content") if self.chat else choice.get("text")
        if not isinstance(text, str):
            shown = self._client.scrub(str(choice))[:200]
            raise ResponseInvalid(f"{self.base_url}: the completion carries no text: {shown!r}")
        finish = "length" if choice.get("finish_reason") == "length" else "stop"
        return Generation(text=self._client.scrub(text), finish_reason=finish)
