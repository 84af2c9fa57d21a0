"""The OpenAI-compatible backend's HTTP logic: retries, error mapping, key hygiene, response reading (no model)."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")

from pfungst.errors import BackendUnavailable, ConfigError, RequestFailed, ResponseInvalid  # noqa: E402
from pfungst.models.http import HttpOptions, JsonClient  # noqa: E402
from pfungst.models.openai import OpenAIModel  # noqa: E402
from pfungst.models.openai_wire import continuation_tokens  # noqa: E402
from pfungst.models.protocol import LanguageModel  # noqa: E402
from pfungst.models.requests import GenerateRequest, LoglikelihoodRequest, NextTokenRequest  # noqa: E402

SECRET = "sk-test-NEVER-SHOW-4f9a2c"
Handler = Callable[[httpx.Request], httpx.Response]


def _scripted(*steps: httpx.Response | Exception) -> tuple[Handler, list[httpx.Request]]:
    """A handler answering each request with the next step (an exception is raised as the transport's)."""
    seen: list[httpx.Request] = []
    queue = list(steps)

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        step = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(step, Exception):
            raise step
        return step

    return handle, seen


def _client(
    handler: Handler, *, max_retries: int = 5, seed: int = 0, api_key: str | None = None, debug: bool = False
) -> tuple[JsonClient, list[float]]:
    delays: list[float] = []
    options = HttpOptions(sleep=delays.append, transport=httpx.MockTransport(handler), seed=seed, debug=debug)
    client = JsonClient(
        "http://server.test", api_key, timeout=1.0, max_retries=max_retries, max_connections=2, options=options
    )
    return client, delays


def test_429_then_200_is_retried_once_and_returns_the_answer() -> None:
    handler, seen = _scripted(
        httpx.Response(429, json={"error": {"message": "slow down"}}), httpx.Response(200, json={"ok": 1})
    )
    client, delays = _client(handler)
    assert client.post("/v1/completions", {"prompt": "x"}) == {"ok": 1}
    assert len(seen) == 2
    assert len(delays) == 1 and 0.25 <= delays[0] <= 0.5


def test_retry_after_header_sets_the_wait_up_to_the_ceiling() -> None:
    handler, _ = _scripted(
        httpx.Response(429, headers={"Retry-After": "3"}),
        httpx.Response(429, headers={"Retry-After": "120"}),
        httpx.Response(200, json={}),
    )
    client, delays = _client(handler)
    client.get("/v1/models")
    assert delays == [3.0, 8.0]


def test_500s_exhaust_retries_then_request_failed_names_status_and_server_message() -> None:
    handler, seen = _scripted(httpx.Response(500, json={"detail": "model crashed"}))
    client, delays = _client(handler, max_retries=3, debug=True)
    with pytest.raises(
        RequestFailed,
        match=r"POST http://server\.test/v1/completions: HTTP 500 after 4 attempt\(s\) \(a server error\): "
        r"model crashed \[a body of 26 bytes \(sha256 [0-9a-f]{12}\)\]",
    ):
        client.post("/v1/completions", {})
    assert len(seen) == 4
    # exponential backoff with jitter in [half, all] of 0.5 s * 2**attempt
    for attempt, delay in enumerate(delays):
        assert 0.25 * 2**attempt <= delay <= 0.5 * 2**attempt


def test_jitter_is_reproducible_from_its_seed() -> None:
    def delays_for(seed: int) -> list[float]:
        client, delays = _client(_scripted(httpx.Response(503))[0], max_retries=4, seed=seed)
        with pytest.raises(RequestFailed):
            client.get("/v1/models")
        return delays

    assert delays_for(1) == delays_for(1)
    assert delays_for(1) != delays_for(2)


def test_timeouts_exhaust_retries_then_backend_unavailable() -> None:
    handler, seen = _scripted(httpx.ReadTimeout("read timed out"))
    client, _ = _client(handler, max_retries=2)
    with pytest.raises(BackendUnavailable, match=r"no answer within the timeout after 3 attempt"):
        client.post("/v1/completions", {})
    assert len(seen) == 3


def test_timeout_then_success_is_retried() -> None:
    handler, _ = _scripted(httpx.ConnectTimeout("slow"), httpx.Response(200, json={"a": 2}))
    client, _ = _client(handler)
    assert client.get("/v1/models") == {"a": 2}


def test_refused_connection_to_a_closed_local_port_is_backend_unavailable() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = JsonClient(
        f"http://127.0.0.1:{port}",
        None,
        timeout=1.0,
        max_retries=1,
        max_connections=1,
        options=HttpOptions(sleep=lambda _: None),
    )
    with pytest.raises(BackendUnavailable, match=rf"127\.0\.0\.1:{port}/v1/models: cannot reach the server after 2"):
        client.get("/v1/models")


def test_client_error_is_not_retried_and_names_the_openai_error_message() -> None:
    handler, seen = _scripted(httpx.Response(400, json={"error": {"message": "logprobs must be <= 5"}}))
    client, delays = _client(handler, debug=True)
    with pytest.raises(RequestFailed, match=r"HTTP 400 \(the server refused the request as malformed\): logprobs must"):
        client.post("/v1/completions", {})
    assert len(seen) == 1 and delays == []


@pytest.mark.parametrize(
    ("status", "reason"),
    [(401, "authentication failed"), (404, "not found: check base_url"), (429, "rate limited"), (503, "server error")],
)
def test_without_debug_a_server_error_gives_status_reason_length_and_hash_but_not_the_body(
    status: int, reason: str
) -> None:
    body = b'{"error": {"message": "the server says something private"}}'
    client, _ = _client(_scripted(httpx.Response(status, content=body))[0], max_retries=0)
    with pytest.raises(RequestFailed) as caught:
        client.post("/v1/completions", {})
    message = str(caught.value)
    digest = hashlib.sha256(body).hexdigest()[:12]
    assert f"HTTP {status}" in message and reason in message
    assert f"a body of {len(body)} bytes (sha256 {digest}); run with --debug" in message
    assert "private" not in message


def test_without_debug_a_body_that_is_not_json_is_not_quoted() -> None:
    client, _ = _client(_scripted(httpx.Response(200, content=b"<html>private</html>"))[0], max_retries=0)
    with pytest.raises(ResponseInvalid, match=r"got a body of 20 bytes \(sha256 [0-9a-f]{12}\)") as caught:
        client.post("/v1/completions", {})
    assert "private" not in str(caught.value)


@pytest.mark.parametrize("body", [b"<html>oops</html>", b'{"choices": [', b"[1, 2]"])
def test_malformed_json_is_response_invalid(body: bytes) -> None:
    client, _ = _client(_scripted(httpx.Response(200, content=body))[0])
    with pytest.raises(ResponseInvalid, match=r"expected a JSON object"):
        client.post("/v1/completions", {})


# -- the API key ---------------------------------------------------------------------------------------------------


def _leaky_server(request: httpx.Request) -> httpx.Response:
    """A server that repeats the Authorization header in every error, as some proxies do."""
    header = request.headers.get("authorization", "")
    if request.url.path == "/v1/models":
        return httpx.Response(200, json={"data": [{"id": "served-model"}]})
    return httpx.Response(401, json={"error": {"message": f"invalid credentials {header}"}})


def test_api_key_is_sent_as_bearer_but_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFUNGST_TEST_KEY", SECRET)
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization", ""))
        return _leaky_server(request)

    model = OpenAIModel(
        "http://server.test/v1",
        "m",
        api_key_env="PFUNGST_TEST_KEY",
        retries=0,
        http=HttpOptions(sleep=lambda _: None, transport=httpx.MockTransport(handler)),
        debug=True,
    )
    assert model.fingerprint == "openai:http://server.test#served-model"
    with pytest.raises(RequestFailed, match=r"HTTP 401") as caught:
        model.generate([GenerateRequest("Hi")])
    assert seen and all(value == f"Bearer {SECRET}" for value in seen)
    shown = [repr(model), str(model), model.fingerprint, str(caught.value)]
    assert "invalid credentials Bearer ***" in str(caught.value)
    assert not [text for text in shown if SECRET in text]


def test_api_key_is_scrubbed_from_every_error_the_client_raises() -> None:
    client, _ = _client(_leaky_server, max_retries=0, api_key=SECRET, debug=True)
    with pytest.raises(RequestFailed) as caught:
        client.post("/v1/completions", {})
    assert SECRET not in str(caught.value) and SECRET not in repr(client)
    assert "***" in str(caught.value)


def test_no_key_in_the_environment_sends_no_authorization(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PFUNGST_ABSENT_KEY", raising=False)
    handler, seen = _scripted(httpx.Response(200, json={"data": []}))
    model = OpenAIModel(
        "http://server.test",
        "m",
        api_key_env="PFUNGST_ABSENT_KEY",
        http=HttpOptions(transport=httpx.MockTransport(handler)),
    )
    assert model.fingerprint == "openai:http://server.test#m"
    assert seen and not [request for request in seen if "authorization" in request.headers]


@pytest.mark.parametrize(
    ("options", "match"),
    [({"max_concurrency": 0}, "max_concurrency"), ({"timeout": 0}, "timeout"), ({"retries": -1}, "retries")],
)
def test_out_of_range_options_are_config_errors(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        OpenAIModel("http://server.test", "m", **options)


def test_base_url_without_scheme_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"must start with http:// or https://"):
        OpenAIModel("127.0.0.1:8000", "m")


# -- a scripted OpenAI-compatible server ---------------------------------------------------------------------------


class FakeServer:
    """Answers like llama-cpp-python's server for a toy vocabulary; records every completion payload."""

    def __init__(self, *, top: dict[str, float], vocabulary: dict[str, int] | None, echo_shifted: bool = False):
        self.top = top
        self.vocabulary = vocabulary
        self.echo_shifted = echo_shifted
        self.top_limit = 20
        self.completions: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        body = json.loads(request.content) if request.content else {}
        if path == "/v1/models":
            return httpx.Response(200, json={"object": "list", "data": [{"id": "/models/toy.gguf"}]})
        if path == "/extras/tokenize" and self.vocabulary is not None:
            text = body["input"]
            ids = [self.vocabulary.get(part, 99) for part in text.split("|")] if text else []
            return httpx.Response(200, json={"tokens": ids})
        if path == "/v1/completions":
            self.completions.append(body)
            return httpx.Response(200, json=self._completion(body))
        return httpx.Response(404, json={"detail": "Not Found"})

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("echo"):
            prompt = body["prompt"]
            return {
                "choices": [{"text": prompt + " 9", "logprobs": _echo(prompt, shifted=self.echo_shifted)}],
                "usage": {"completion_tokens": 1},
            }
        bias = body.get("logit_bias") or {}
        names = {str(v): k for k, v in (self.vocabulary or {}).items()}
        forced = [names[token] for token in bias]
        pool = {token: value for token, value in self.top.items() if not forced or token in forced}
        token = max(pool, key=pool.__getitem__) if pool else (forced[0] if forced else " 8")
        value = self.top.get(token, -9.5)
        top = dict(sorted(self.top.items(), key=lambda kv: -kv[1])[: min(body.get("logprobs", 0), self.top_limit)])
        return {
            "choices": [
                {
                    "text": token,
                    "logprobs": {
                        "tokens": [token],
                        "text_offset": [len(body["prompt"])],
                        "token_logprobs": [value],
                        "top_logprobs": [{**top, token: value}],
                    },
                }
            ],
            "usage": {"completion_tokens": 1},
        }


def _echo(prompt: str, *, shifted: bool) -> dict[str, Any]:
    """Echo log-probabilities of a prompt of words: ' 8' scores -0.5, any other word minus its length.

    The generated token is ' 9' (-3.0). ``shifted`` gives each token the next one's value, as llama-cpp-python's
    server does for models without a beginning-of-sequence token.
    """
    words = re.findall(r" ?[^ ]+", prompt) + [" 9"]
    offsets = list(itertools.accumulate([0] + [len(word) for word in words[:-1]]))
    aligned: list[float | None] = [-0.5 if word == " 8" else -float(len(word)) for word in words[:-1]] + [-3.0]
    values = aligned[1:] + [-1.0] if shifted else aligned
    values = [None, *values[1:]]
    return {
        "tokens": words,
        "text_offset": offsets,
        "token_logprobs": values,
        "top_logprobs": [None] + [{w: v} for w, v in zip(words[1:], values[1:], strict=True)],
    }


def _model(server: FakeServer, **options: Any) -> OpenAIModel:
    return OpenAIModel("http://server.test", "toy", http=HttpOptions(transport=httpx.MockTransport(server)), **options)


LETTERS = {" A": 10, " B": 11, " C": 12, " D": 13, " Paris": 14, " 8": 15, "": 0}


def test_fake_server_satisfies_the_protocol_and_reports_the_served_model_id() -> None:
    model = _model(FakeServer(top={" 8": -0.5}, vocabulary=LETTERS))
    assert isinstance(model, LanguageModel)
    assert model.fingerprint == "openai:http://server.test#/models/toy.gguf"


def test_labels_are_forced_with_logit_bias_and_read_from_the_top_list() -> None:
    server = FakeServer(top={" 8": -0.1, " A": -2.0, " B": -3.0}, vocabulary=LETTERS)
    model = _model(server)
    [result] = model.next_token_logprobs([NextTokenRequest("Q? Answer:", (" A", " B"))])
    assert result.logprobs == (-2.0, -3.0)
    assert server.completions[-1]["logit_bias"] == {"10": 100.0, "11": 100.0}
    assert server.completions[-1]["max_tokens"] == 1 and server.completions[-1]["logprobs"] == 20


def test_a_label_outside_the_top_list_is_asked_again_alone_not_given_a_floor() -> None:
    server = FakeServer(top={" A": -0.2, " B": -1.0, " D": -12.25}, vocabulary=LETTERS)
    server.top_limit = 2
    model = _model(server)
    assert "next_token" in model.capabilities
    before = len(server.completions)
    [result] = model.next_token_logprobs([NextTokenRequest("Answer: ", ("C", "D"))])
    asked = server.completions[before:]
    assert asked[0]["prompt"] == "Answer:"  # the context's trailing space moved into the labels
    assert [request["logit_bias"] for request in asked] == [{"12": 100.0, "13": 100.0}, {"12": 100.0}]
    assert result.logprobs == (-9.5, -12.25)  # ' C' is the server's value when forced alone


def test_without_a_tokenizer_a_missing_label_is_response_invalid() -> None:
    model = _model(FakeServer(top={" A": -0.2, " B": -1.0}, vocabulary=None))
    assert "No tokenize endpoint" in " ".join(model.limitations)
    with pytest.raises(ResponseInvalid, match=r"' C' is not among the top 20 next tokens"):
        model.next_token_logprobs([NextTokenRequest("Answer:", (" A", " C"))])


def test_shifted_echo_disables_loglikelihood_with_a_hint_about_bos_text() -> None:
    model = _model(FakeServer(top={" 8": -0.5}, vocabulary=LETTERS, echo_shifted=True))
    assert "loglikelihood" not in model.capabilities
    with pytest.raises(ConfigError, match=r"cannot serve 'loglikelihood'.*Pass bos_text"):
        model.loglikelihood([LoglikelihoodRequest("The capital is", " Paris")])


def test_aligned_echo_scores_the_continuation_tokens() -> None:
    model = _model(FakeServer(top={" 8": -0.5}, vocabulary=LETTERS))
    assert model.capabilities == {"loglikelihood", "next_token", "generate"}
    [result] = model.loglikelihood([LoglikelihoodRequest("The capital is", " Paris")])
    assert (result.logprob, result.n_tokens, result.n_bytes, result.greedy) == (-6.0, 1, 6, True)


def test_a_token_straddling_the_boundary_belongs_to_the_continuation() -> None:
    body = {
        "choices": [
            {
                "logprobs": {
                    "tokens": ["is", " Paris", "!"],
                    "text_offset": [0, 2, 8],
                    "token_logprobs": [None, -1.5, -0.1],
                    "top_logprobs": [None, {" Rome": -0.5, " Paris": -1.5}, {"!": -0.1}],
                }
            }
        ],
        "usage": {"completion_tokens": 1},
    }
    scored = continuation_tokens(body, "Paris")
    assert [(token.logprob, token.greedy) for token in scored] == [(-1.5, False)]


def test_echo_tokens_that_do_not_spell_the_continuation_are_refused() -> None:
    body = {
        "choices": [
            {
                "logprobs": {
                    "tokens": ["a", "b"],
                    "text_offset": [0, 1],
                    "token_logprobs": [None, -1.0],
                    "top_logprobs": [None, {"b": -1.0}],
                }
            }
        ],
        "usage": {"completion_tokens": 0},
    }
    with pytest.raises(ResponseInvalid, match=r"not in the continuation 'xy'"):
        continuation_tokens(body, "xy")


def test_completion_without_logprobs_is_response_invalid_explaining_end_of_sequence() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"choices": [{"text": "", "logprobs": None, "finish_reason": "stop"}]})

    model = OpenAIModel("http://server.test", "m", http=HttpOptions(transport=httpx.MockTransport(handler)))
    assert model.capabilities == {"generate"}
    assert "end-of-sequence" in " ".join(model.limitations)


def test_generate_maps_finish_reason_and_passes_seed_and_stop() -> None:
    server = FakeServer(top={" 8": -0.5}, vocabulary=LETTERS)
    model = _model(server)
    [generation] = model.generate([GenerateRequest("1, 2,", max_tokens=1, stop=("\n",), seed=7)])
    assert generation.finish_reason == "stop" and generation.text == " 8"
    sent = server.completions[-1]
    assert (sent["seed"], sent["stop"], sent["temperature"], sent["max_tokens"]) == (7, ["\n"], 0.0, 1)


def test_results_come_back_in_request_order_under_concurrency() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path != "/v1/completions":
            return httpx.Response(404)
        prompt = json.loads(request.content)["prompt"]
        time.sleep(0.01 * (hash(prompt) % 3))
        return httpx.Response(200, json={"choices": [{"text": prompt.upper(), "finish_reason": "length"}]})

    model = OpenAIModel(
        "http://server.test", "m", max_concurrency=4, http=HttpOptions(transport=httpx.MockTransport(handler))
    )
    prompts = [f"p{i}" for i in range(12)]
    assert [g.text for g in model.generate([GenerateRequest(p) for p in prompts])] == [p.upper() for p in prompts]


# -- a small real HTTP server on 127.0.0.1 that answers 429, 500 and sometimes hangs --------------------------------


@pytest.fixture
def flaky_server() -> Iterator[tuple[str, list[str]]]:
    script = ["429", "hang", "500", "ok"]
    log: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers.get("content-length", 0)))
            step = script[min(len(log), len(script) - 1)]
            log.append(step)
            if step == "hang":
                time.sleep(0.6)
            status = {"429": 429, "500": 500}.get(step, 200)
            payload = json.dumps({"step": step} if status == 200 else {"detail": step}).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the client gave up on the hanging request
                self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", log
    finally:
        server.shutdown()
        server.server_close()


def test_real_local_server_answering_429_hanging_and_500_is_retried_to_success(
    flaky_server: tuple[str, list[str]],
) -> None:
    url, log = flaky_server
    client = JsonClient(
        url,
        None,
        timeout=0.2,
        max_retries=5,
        max_connections=1,
        options=HttpOptions(backoff_initial=0.01, backoff_max=0.05),
    )
    started = time.monotonic()
    assert client.post("/v1/completions", {"prompt": "x"}) == {"step": "ok"}
    assert log == ["429", "hang", "500", "ok"]
    assert time.monotonic() - started < 3
