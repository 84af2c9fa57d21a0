"""A real ``llama_cpp.server`` behind a proxy that misbehaves on a quarter of the requests costs time, not results.

The proxy (127.0.0.1 only, at most ``REQUEST_LIMIT`` requests) draws from a seeded generator whether each request
gets a fault, and takes the faults in a seeded order of every kind: 500, 503 and 429 with and without Retry-After,
a hang past the client's read timeout, a connection closed in the middle of the body and a truncated JSON body.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import random
import threading
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="the openai backend needs httpx: pip install 'pfungst[openai]'")

from pfungst.models.cache import CachedModel  # noqa: E402
from pfungst.models.http import HttpOptions  # noqa: E402
from pfungst.models.openai import OpenAIModel  # noqa: E402
from pfungst.models.requests import GenerateRequest, NextTokenRequest  # noqa: E402
from tests.models.conftest import running_server  # noqa: E402

FAULTS = ("500", "503", "503-retry-after", "429", "429-retry-after", "hang", "closed-mid-body", "truncated")
FAULT_RATE = 0.25
REQUEST_LIMIT = 400
CLIENT_TIMEOUT = 5.0  # a completion on a loaded 2-core machine can take 2 s
LETTERS = (" A", " B", " C", " D")
pytestmark = pytest.mark.slow  # a real llama_cpp.server behind a faulty proxy


class FaultProxy:
    """Forwards to ``upstream``; a seeded quarter of the requests get the next fault of a seeded cycle instead."""

    def __init__(self, upstream: str, seed: int) -> None:
        self.injected: list[str] = []
        self.requests = 0
        self._rng = random.Random(seed)
        self._cycle = self._rng.sample(FAULTS, len(FAULTS))
        self._lock = threading.Lock()
        self._upstream = httpx.Client(base_url=upstream, timeout=60.0)
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FaultProxy:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._upstream.close()

    def draw(self) -> str | None:
        with self._lock:
            self.requests += 1
            if self.requests > REQUEST_LIMIT:
                return "limit"
            if self._rng.random() >= FAULT_RATE:
                return None
            fault = self._cycle[len(self.injected) % len(self._cycle)]
            self.injected.append(fault)
            return fault

    def forward(self, method: str, path: str, body: bytes) -> httpx.Response:
        return self._upstream.request(method, path, content=body or None, headers={"content-type": "application/json"})

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                self._serve("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._serve("POST")

            def _serve(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                fault = proxy.draw()
                if fault == "hang":
                    time.sleep(CLIENT_TIMEOUT + 0.5)
                    self.close_connection = True
                    return
                if fault in ("limit", "500", "503", "503-retry-after", "429", "429-retry-after"):
                    status = 500 if fault == "limit" else int(str(fault)[:3])
                    retry_after = {"Retry-After": "1"} if str(fault).endswith("retry-after") else {}
                    self._send(status, json.dumps({"detail": f"injected {fault}"}).encode(), retry_after)
                    return
                answer = proxy.forward(method, self.path, body)
                content = answer.content
                if fault == "truncated":
                    self._send(answer.status_code, content[: len(content) // 2], {})
                elif fault == "closed-mid-body":
                    self._send(answer.status_code, content[: len(content) // 2], {}, length=len(content))
                    self.close_connection = True
                else:
                    self._send(answer.status_code, content, {})

            def _send(self, status: int, content: bytes, headers: dict[str, str], length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(content) if length is None else length))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                with contextlib.suppress(OSError):
                    self.wfile.write(content)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def _requests(count: int) -> list[NextTokenRequest]:
    """Short letter questions (a few dozen tokens each, so the server answers fast)."""
    prompts = [
        f"Question: What is {a} plus {b}?\nA. {a + b - 1}\nB. {a + b}\nC. {a + b + 2}\nD. {a * b + 3}\nAnswer:"
        for a, b in zip(range(2, 2 + count), range(5, 5 + count), strict=True)
    ]
    return [NextTokenRequest(prompt, LETTERS) for prompt in prompts]


def _model(url: str, seed: int, timeout: float = CLIENT_TIMEOUT) -> OpenAIModel:
    http = HttpOptions(backoff_initial=0.05, backoff_max=0.5, seed=seed)
    return OpenAIModel(url, "smollm2", max_concurrency=1, timeout=timeout, retries=12, http=http)


def test_a_proxy_injecting_every_fault_on_a_quarter_of_requests_gives_the_clean_runs_results(
    llama_server: str,
) -> None:
    requests = _requests(8)
    generation = [GenerateRequest("The three primary colours are", max_tokens=6)]
    with _model(llama_server, 0) as clean:
        expected = (clean.next_token_logprobs(requests), clean.generate(generation), clean.capabilities)
    started = time.monotonic()
    with FaultProxy(llama_server, seed=7) as proxy, _model(proxy.url, 7) as flaky:
        found = (flaky.next_token_logprobs(requests), flaky.generate(generation), flaky.capabilities)
    flaky_seconds = time.monotonic() - started
    assert found == expected
    assert set(proxy.injected) == set(FAULTS), proxy.injected
    assert 0.1 < len(proxy.injected) / proxy.requests < 0.45
    assert flaky_seconds < 120  # each hang costs the 5 s read timeout, not 60 s


def test_a_fully_cached_run_needs_no_server(smollm2_path: Path, tmp_path: Path) -> None:
    requests = _requests(3)
    cache = tmp_path / "cache.sqlite"
    with running_server(smollm2_path) as url, _model(url, 0, timeout=60.0) as model:
        cached = CachedModel(model, cache)
        first = cached.next_token_logprobs(requests)
        fingerprint = cached.fingerprint
        cached.close()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/v1/models", timeout=1.0)  # the server is gone
    started = time.monotonic()
    with _model(url, 0, timeout=60.0) as model:
        cached = CachedModel(model, cache)
        assert "next_token" in cached.capabilities
        assert cached.next_token_logprobs(requests) == first
        assert cached.fingerprint == fingerprint
        assert (cached.stats.hits, cached.stats.misses, cached.stats.model_calls) == (3, 0, 0)
        cached.close()
    assert time.monotonic() - started < 5
