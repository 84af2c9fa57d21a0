"""A log-probability a server sends that is NaN, infinite or above zero is refused, naming server, model and field.

Against a real loopback server that answers the probe well and then sends ``BAD`` where a log-probability goes.
"""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("httpx", reason="the openai backend needs httpx: pip install 'pfungst[openai]'")

from pfungst.cli import app  # noqa: E402
from pfungst.errors import ResponseInvalid  # noqa: E402
from pfungst.models.openai import OpenAIModel  # noqa: E402
from pfungst.models.requests import LoglikelihoodRequest, NextTokenRequest  # noqa: E402

PROBE = "1, 2, 3, 4, 5, 6, 7,"
REQUEST_LIMIT = 50


def _echo(prompt: str, last: str, value: float) -> dict[str, Any]:
    """An echo answer: the prompt as two tokens (the second ``last``, scored ``value``) and one generated token."""
    head = prompt[: len(prompt) - len(last)]
    logprobs = {
        "tokens": [head, last, " x"],
        "text_offset": [0, len(head), len(prompt)],
        "token_logprobs": [None, value, -0.1],
        "top_logprobs": [None, {last: value}, {" x": -0.1}],
    }
    return {"choices": [{"text": " x", "finish_reason": "length", "logprobs": logprobs}]}


def _next(value: float) -> dict[str, Any]:
    """A one-token completion whose top log-probabilities give ``" A"`` the value ``value``."""
    logprobs = {"tokens": [" A"], "token_logprobs": [value], "top_logprobs": [{" A": value, " B": -2.0}]}
    return {"choices": [{"text": " A", "finish_reason": "length", "logprobs": logprobs}]}


def answer(path: str, request: dict[str, Any], bad: float) -> tuple[int, dict[str, Any]]:
    """Well-formed answers to the probe (prompt ``PROBE``); ``bad`` as the log-probability of every other prompt."""
    if path.startswith("/v1/models"):
        return 200, {"data": [{"id": "m"}]}
    if path != "/v1/completions":
        return 404, {"detail": "Not Found"}
    prompt = str(request.get("prompt"))
    value = -0.25 if prompt.startswith(PROBE) else bad
    if request.get("echo"):
        return 200, _echo(prompt, " A" if prompt.endswith(" A") else prompt[-2:], value)
    return 200, _next(value)


class LogprobServer:
    """A threaded HTTP server on a free loopback port answering as :func:`answer` with ``bad``."""

    def __init__(self, bad: float) -> None:
        self.requests = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                self._serve({})

            def do_POST(self) -> None:  # noqa: N802
                self._serve(json.loads(self.rfile.read(int(self.headers.get("content-length", 0)))))

            def _serve(self, request: dict[str, Any]) -> None:
                server.requests += 1
                status, data = answer(self.path, request, bad)
                if server.requests > REQUEST_LIMIT:
                    status, data = 500, {"detail": "request limit of the test server passed"}
                content = json.dumps(data).encode()  # NaN and Infinity written as Python's json module does
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> LogprobServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()


BAD = [(0.5, r"0\.5, above zero"), (float("nan"), "NaN"), (float("inf"), "inf, above zero")]


@pytest.mark.parametrize(("bad", "shown"), BAD)
def test_a_next_token_logprob_out_of_range_is_refused_naming_server_model_and_field(bad: float, shown: str) -> None:
    with LogprobServer(bad) as server, OpenAIModel(server.url, "m", retries=0) as model:
        assert "next_token" in model.capabilities
        where = rf"base_url='{server.url}', model='m'.*field 'logprobs\.top_logprobs\[0\]\[' A'\]' is {shown}"
        with pytest.raises(ResponseInvalid, match=where):
            model.next_token_logprobs([NextTokenRequest("Question?\nAnswer:", (" A", " B"))])


@pytest.mark.parametrize(("bad", "shown"), BAD)
def test_an_echoed_logprob_out_of_range_is_refused_naming_server_model_and_field(bad: float, shown: str) -> None:
    with LogprobServer(bad) as server, OpenAIModel(server.url, "m", retries=0) as model:
        assert "loglikelihood" in model.capabilities
        where = rf"base_url='{server.url}', model='m'.*field 'logprobs\.token_logprobs\[1\]'.* is {shown}"
        with pytest.raises(ResponseInvalid, match=where):
            model.loglikelihood([LoglikelihoodRequest("Question? Answer:", " A")])


def test_the_cli_refuses_a_positive_logprob_with_exit_2_and_stores_nothing(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q?", "choices": ["a", "b"], "answer": 0}\n')
    with LogprobServer(0.5) as server:
        arguments = ["score", str(data), "--model", f"openai:{server.url}#m", "--cache", str(tmp_path / "c.sqlite")]
        result = CliRunner().invoke(app, [*arguments, "--retries", "0", "--quiet", "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2, result.output
    assert "above zero: not a log-probability" in " ".join(result.output.split())
    assert not (tmp_path / "o.jsonl").exists()
