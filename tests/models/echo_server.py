"""A hostile OpenAI-compatible server on 127.0.0.1 that echoes what it was sent (headers, API key included).

Modes, each a way a real server (or a proxy, or a debugging stub) leaks the key back:

- ``shape``: every path answers 200 ``{"echo": {"received": <the Authorization value>, "request": <the request>}}``,
  a shape no OpenAI client expects;
- ``text``: well-formed completions (with letter log-probabilities) whose text is the echoed request; the model id
  listed by ``/v1/models`` carries the Authorization header; tokenize routes answer 200 with no token list;
- ``upper``: as ``text``, the echo upper-cased;
- ``split``: as ``text``, the echo with a space after every eleventh character (the key cut in two or three);
- ``masked``: as ``text``, the text being OpenAI's own message with its masked key (``sk-CANARY123****cdef``);
- ``masked-401``: every completion is refused with 401 and OpenAI's message with the masked key;
- ``encoded-200``, ``encoded-401``, ``encoded-500``: every completion answers with that status, its text (200) or
  error message (401, 500) being the Authorization value and the bare credential in each encoding of
  :func:`encoded_echoes` (reversed, base64 and base64url at three byte alignments, hex in both cases, percent,
  full-width, split by zero-width characters and by whitespace); the model id is the same text;
- ``chat-only`` (no leak): ``/v1/completions`` and the tokenize routes are not served (404), chat is as ``text``.

A server also slow-drips (``drip``): headers, then one byte every ``drip_interval`` seconds. Each server answers at
most ``REQUEST_LIMIT`` requests (then 500), so no test loop can run unbounded.
"""

from __future__ import annotations

import base64
import contextlib
import http.server
import json
import threading
import time
import urllib.parse
from typing import Any

REQUEST_LIMIT = 200
MODES = ("shape", "text", "upper", "split", "masked", "masked-401")
ENCODED_MODES = ("encoded-200", "encoded-401", "encoded-500")
TOP = {" A": -0.5, " B": -1.5, " C": -2.0, " D": -2.5, "A": -3.0, "B": -3.5, "C": -4.0, "D": -4.5}


def _masked(authorization: str) -> str:
    key = authorization.split()[-1] if authorization else ""
    return f"Incorrect API key provided: {key[:12]}{'*' * 10}{key[-4:]}. You can find your API key at ..."


def encoded_echoes(value: str) -> list[str]:
    """``value`` in each encoding a server (or a proxy, or a debugging stub) may echo it in."""
    raw = value.encode("utf-8")
    forms = [value[::-1], value[::-1].upper(), raw.hex(), raw.hex().upper()]
    for prefix in (b"", b"{", b"{'"):  # each of the three byte alignments inside a longer encoded text
        forms += [base64.b64encode(prefix + raw + b"'}").decode(), base64.urlsafe_b64encode(prefix + raw).decode()]
    forms += [urllib.parse.quote(value, safe=""), "".join(f"%{byte:02X}" for byte in raw)]
    forms += ["".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in value)]  # full-width
    forms += ["\u200b".join(value), "\u2060 ".join(value[i : i + 3] for i in range(0, len(value), 3))]
    return forms


def _encoded(authorization: str) -> str:
    credential = authorization.split()[-1] if authorization else ""
    return " | ".join(encoded_echoes(authorization) + encoded_echoes(credential))


def _transform(mode: str, echo: str, authorization: str) -> str:
    if mode == "upper":
        return echo.upper()
    if mode == "split":
        return " ".join(echo[i : i + 11] for i in range(0, len(echo), 11))
    if mode == "masked":
        return _masked(authorization)
    if mode.startswith("encoded"):
        return _encoded(authorization)
    return echo


def _completion(text: str) -> dict[str, Any]:
    logprobs = {"tokens": [" A"], "token_logprobs": [-0.5], "top_logprobs": [TOP], "text_offset": [0]}
    return {"choices": [{"text": text, "finish_reason": "stop", "logprobs": logprobs}]}


def answer(mode: str, path: str, echo: str, authorization: str) -> tuple[int, dict[str, Any]]:
    """The status and JSON body the server sends for a request to ``path`` whose echo is ``echo``."""
    if mode == "shape":
        return 200, {"echo": {"received": authorization, "request": json.loads(echo)}}
    if mode == "chat-only" and (path.startswith("/v1/completions") or "tokenize" in path):
        return 404, {"detail": "Not Found"}
    if path.startswith("/v1/models"):
        return 200, {"data": [{"id": "m-" + _transform(mode, authorization, authorization)}]}
    if "tokenize" in path:
        return 200, {"tokens": _transform(mode, echo, authorization)}
    if mode == "masked-401":
        return 401, {"error": {"message": _masked(authorization), "type": "invalid_request_error"}}
    if mode == "encoded-401":
        return 401, {"error": {"message": _encoded(authorization), "type": "invalid_request_error"}}
    if mode == "encoded-500":
        return 500, {"detail": _encoded(authorization)}
    text = _transform(mode, echo, authorization)
    if path.startswith("/v1/chat/completions"):
        return 200, {"choices": [{"message": {"content": text}, "finish_reason": "stop"}]}
    return 200, _completion(text)


class EchoServer:
    """A threaded HTTP server on a free loopback port; ``url`` is its root. Use it as a context manager."""

    def __init__(self, mode: str = "text", *, drip_interval: float | None = None) -> None:
        self.mode = mode
        self.drip_interval = drip_interval
        self.requests = 0
        self._lock = threading.Lock()
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> EchoServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def count(self) -> bool:
        """Count a request; False once the limit is passed."""
        with self._lock:
            self.requests += 1
            return self.requests <= REQUEST_LIMIT

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                self._serve(b"")

            def do_POST(self) -> None:  # noqa: N802
                self._serve(self.rfile.read(int(self.headers.get("content-length", 0))))

            def _serve(self, body: bytes) -> None:
                headers = {name.lower(): value for name, value in self.headers.items()}
                echo = json.dumps({"path": self.path, "headers": headers, "body": body.decode("utf-8", "replace")})
                status, data = answer(server.mode, self.path, echo, headers.get("authorization", ""))
                if not server.count():
                    status, data = 500, {"detail": "request limit of the test server passed"}
                content = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(content)))
                self.end_headers()
                with contextlib.suppress(OSError):
                    self._write(content)

            def _write(self, content: bytes) -> None:
                if server.drip_interval is None:
                    self.wfile.write(content)
                    return
                for byte in content:  # one byte at a time, until done or the client hangs up
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(server.drip_interval)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
