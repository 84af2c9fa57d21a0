"""Fixtures of the model tests: the embedded SmolLM2 file and a real ``python -m llama_cpp.server`` on it."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pfungst.errors import MissingDependency
from pfungst.models.embedded import embedded_model_path

_SERVER_MODULES = (
    "llama_cpp",
    "httpx",
    "fastapi",
    "uvicorn",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    try:
        return embedded_model_path()
    except MissingDependency as exc:
        pytest.skip(str(exc))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_server(model_path: Path) -> Iterator[str]:
    """``python -m llama_cpp.server`` on a free local port, up until /v1/models answers; stopped on exit."""
    missing = [name for name in _SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"llama_cpp.server needs: pip install 'llama-cpp-python[server]' httpx (missing {missing})")
    port = _free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", "2048", "--verbose", "False"]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(url, process, log)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture(scope="session")
def llama_server(smollm2_path: Path) -> Iterator[str]:
    """A llama_cpp.server on the embedded SmolLM2 for the whole session."""
    with running_server(smollm2_path) as url:
        yield url


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: object, limit: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)  # type: ignore[attr-defined]
            output = log.read().decode(errors="replace")[-2000:]  # type: ignore[attr-defined]
            pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{output}")
        try:
            if httpx.get(f"{url}/v1/models", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail(f"llama_cpp.server did not answer {url}/v1/models within {limit:.0f} s")
