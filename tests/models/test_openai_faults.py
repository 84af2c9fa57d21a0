"""A server that misbehaves, scripted with ``httpx.MockTransport``: each fault mapped to a retry or a clear error.

Broken 200 bodies are retried like a 5xx; the retry budget is in seconds; ``Retry-After`` may be an HTTP date;
connect and read timeouts are separate; credentials never reach a message; a broken server is reported with its
status; the served model id and the probe live in the cache, so a fully cached run needs no server.
"""

from __future__ import annotations

import email.utils
import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx", reason="the openai backend needs httpx: pip install 'pfungst[openai]'")

from pfungst.errors import ConfigError, RequestFailed, ResponseInvalid  # noqa: E402
from pfungst.models.cache import CachedModel  # noqa: E402
from pfungst.models.http import HttpOptions, JsonClient  # noqa: E402
from pfungst.models.openai import OpenAIModel  # noqa: E402
from pfungst.models.registry import ModelSpec, load_model  # noqa: E402
from pfungst.models.requests import GenerateRequest, NextTokenRequest  # noqa: E402
from tests.models.test_openai_transport import LETTERS, SECRET, FakeServer  # noqa: E402

Handler = Callable[[httpx.Request], httpx.Response]


class FakeClock:
    """A clock that moves only when the client sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def _client(handler: Handler, clock: FakeClock, **options: Any) -> JsonClient:
    debug = options.pop("debug", True)  # these tests read the server's text; test_openai_transport checks without
    http = HttpOptions(sleep=clock.sleep, clock=clock, transport=httpx.MockTransport(handler), debug=debug)
    api_key = options.pop("api_key", None)
    settings: dict[str, Any] = {"timeout": 1.0, "max_retries": 5, "max_connections": 1, **options}
    return JsonClient("http://server.test", api_key, options=http, **settings)


def _sequence(*steps: httpx.Response | Exception) -> tuple[Handler, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        step = steps[min(len(seen), len(steps)) - 1]
        if isinstance(step, Exception):
            raise step
        return step

    return handle, seen


@pytest.mark.parametrize(
    "fault",
    [
        httpx.Response(200, content=b'{"choices": [{"text": "A"'),
        httpx.Response(200, content=b"<html>gateway</html>"),
        httpx.RemoteProtocolError("peer closed connection without sending complete message body"),
    ],
    ids=["truncated-json", "html", "closed-mid-body"],
)
def test_a_broken_200_body_is_retried_like_a_5xx(fault: httpx.Response | Exception) -> None:
    handler, seen = _sequence(fault, httpx.Response(200, json={"ok": 1}))
    clock = FakeClock()
    assert _client(handler, clock).post("/v1/completions", {}) == {"ok": 1}
    assert len(seen) == 2 and len(clock.waits) == 1


def test_a_body_that_is_never_json_fails_after_the_retries_with_an_excerpt() -> None:
    handler, seen = _sequence(httpx.Response(200, content=b"<html>maintenance</html>"))
    with pytest.raises(
        ResponseInvalid, match=r"expected a JSON object, got '<html>maintenance</html>' \[a body of 24 bytes.*4 attempt"
    ):
        _client(handler, FakeClock(), max_retries=3).post("/v1/completions", {})
    assert len(seen) == 4


def test_the_retry_budget_in_seconds_ends_retries_before_the_attempt_count() -> None:
    handler, seen = _sequence(httpx.Response(503, json={"detail": "overloaded"}))
    clock = FakeClock()
    with pytest.raises(
        RequestFailed, match=r"HTTP 503 after \d attempt\(s\) \(a server error\): overloaded.*retry budget of 10 s"
    ):
        _client(handler, clock, max_retries=50, retry_budget=10.0).post("/v1/completions", {})
    assert sum(clock.waits) <= 10.0
    assert 3 <= len(seen) < 10


def test_retry_after_as_an_http_date_is_honoured() -> None:
    when = email.utils.formatdate(time.time() + 4, usegmt=True)
    handler, _ = _sequence(httpx.Response(429, headers={"Retry-After": when}), httpx.Response(200, json={}))
    clock = FakeClock()
    _client(handler, clock).get("/v1/models")
    assert len(clock.waits) == 1 and 2.0 <= clock.waits[0] <= 4.0


@pytest.mark.parametrize("status", [429, 503])
def test_429_and_503_without_retry_after_back_off_exponentially(status: int) -> None:
    handler, _ = _sequence(*[httpx.Response(status)] * 3, httpx.Response(200, json={}))
    clock = FakeClock()
    _client(handler, clock).get("/v1/models")
    for attempt, wait in enumerate(clock.waits):
        assert 0.25 * 2**attempt <= wait <= 0.5 * 2**attempt


def test_connect_and_read_timeouts_are_separate_and_a_generation_gets_more_time_to_read() -> None:
    server = FakeServer(top={" A": -0.1}, vocabulary=LETTERS)
    timeouts: dict[str, dict[str, float]] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v1/completions" and json.loads(request.content).get("max_tokens") == 32:
            timeouts["generate"] = request.extensions["timeout"]
            return httpx.Response(200, json={"choices": [{"text": "B", "finish_reason": "stop"}]})
        timeouts.setdefault(path, request.extensions["timeout"])
        return server(request)

    model = OpenAIModel(
        "http://server.test", "toy", timeout=10.0, http=HttpOptions(transport=httpx.MockTransport(handler))
    )
    model.generate([GenerateRequest("Q:", max_tokens=32)])
    assert timeouts["/v1/models"]["connect"] == 5.0 and timeouts["/v1/models"]["read"] == 10.0
    assert timeouts["generate"]["connect"] == 5.0 and timeouts["generate"]["read"] == 10.0 + 0.5 * 32


def test_the_api_key_is_scrubbed_before_a_long_message_is_cut() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"message": "x" * 280 + request.headers["authorization"]}})

    with pytest.raises(RequestFailed) as caught:
        _client(echo, FakeClock(), api_key=SECRET).post("/v1/completions", {})
    message = str(caught.value)
    assert "***" in message
    assert not [SECRET[i : i + 6] for i in range(len(SECRET) - 5) if SECRET[i : i + 6] in message]


def test_credential_headers_a_server_echoes_are_scrubbed() -> None:
    echoed = {
        "authorization": "Basic dXNlcjpwYXNz",
        "api-key": "azure-1234",
        "x-api-key": "anthropic-99",
        "cookie": "s=abc; t=def",
    }
    handler, _ = _sequence(httpx.Response(400, json={"detail": f"bad request, headers were {json.dumps(echoed)}"}))
    with pytest.raises(RequestFailed) as caught:
        _client(handler, FakeClock()).post("/v1/completions", {})
    message = str(caught.value)
    assert not [value for value in ("dXNlcjpwYXNz", "azure-1234", "anthropic-99", "abc", "def") if value in message]
    assert '"x-api-key": "***"' in message and '"authorization": "Basic ***"' in message


@pytest.mark.parametrize(
    ("answer", "error", "match"),
    [
        (
            httpx.Response(401, json={"error": {"message": "Invalid API key"}}),
            RequestFailed,
            r"HTTP 401 \(authentication failed: check the API key\): Invalid API key",
        ),
        (
            httpx.Response(400, json={"detail": "unsupported field"}),
            RequestFailed,
            r"HTTP 400 \(.*malformed\): unsupported field",
        ),
        (
            httpx.Response(500, json={"detail": "CUDA out of memory"}),
            RequestFailed,
            r"HTTP 500 after 2 attempt\(s\) \(a server error\): CUDA out",
        ),
        (httpx.Response(200, content=b"not json"), ResponseInvalid, r"expected a JSON object, got 'not json'"),
    ],
    ids=["401", "400", "500", "non-json"],
)
def test_a_server_failing_everything_is_reported_with_its_status_and_message(
    answer: httpx.Response, error: type[Exception], match: str
) -> None:
    http = HttpOptions(sleep=lambda _: None, transport=httpx.MockTransport(lambda request: answer))
    model = OpenAIModel("http://server.test", "m", retries=1, http=http, debug=True)
    with pytest.raises(error, match=match):
        model.next_token_logprobs([NextTokenRequest("Answer:", (" A", " B"))])


def test_a_missing_endpoint_is_still_a_limitation_not_an_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json={"detail": "Not Found"})

    model = OpenAIModel("http://server.test", "m", http=HttpOptions(transport=httpx.MockTransport(handler)))
    assert model.capabilities == frozenset()
    assert "chat=True" in " ".join(model.limitations)


def test_options_a_backend_does_not_take_are_refused_naming_it_or_dropped_with_a_warning() -> None:
    with pytest.raises(ConfigError, match=r"n_threads do not apply to the 'openai' backend.*It takes: .*retries"):
        load_model("openai:http://127.0.0.1:9#m", n_threads=1)
    with pytest.warns(UserWarning, match=r"n_threads does not apply to the 'openai' backend; ignored"):
        openai = ModelSpec.parse("openai:http://127.0.0.1:9#m")
        assert openai.applicable_options({"n_threads": 1, "retries": 2}) == {"retries": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ModelSpec.parse("smollm2").applicable_options({"n_threads": 1}) == {"n_threads": 1}
    with pytest.warns(UserWarning, match=r"timeout does not apply to the 'smollm2' backend"):
        assert ModelSpec.parse("smollm2").applicable_options({"timeout": 3.0}) == {}


def test_a_fully_cached_run_is_served_with_the_server_stopped(tmp_path: Path) -> None:
    server = FakeServer(top={" A": -0.2, " B": -1.5}, vocabulary=LETTERS)
    stopped = False
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if stopped:
            raise httpx.ConnectError("[Errno 111] Connection refused")
        return server(request)

    def run() -> tuple[list[Any], CachedModel]:
        http = HttpOptions(sleep=lambda _: None, transport=httpx.MockTransport(handler))
        cached = CachedModel(OpenAIModel("http://server.test", "toy", http=http), tmp_path / "cache.sqlite")
        requests = [NextTokenRequest("Answer:", (" A", " B")), NextTokenRequest("Other:", (" B",))]
        assert "next_token" in cached.capabilities
        return cached.next_token_logprobs(requests), cached

    first, _ = run()
    stopped, seen[:] = True, []
    again, cached = run()
    assert again == first
    assert (cached.stats.hits, cached.stats.misses, cached.stats.model_calls) == (2, 0, 0)
    assert cached.fingerprint == "openai:http://server.test#/models/toy.gguf"
    assert seen == ["/v1/models"]  # one attempt to check the model id; no probe, no retries
