"""A server that drips its answer is cut off at the deadline; a probe that met a malformed answer is not cached,
and a refusal read from the cache names the cache file. Against real loopback servers (:mod:`.echo_server`)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("httpx", reason="the openai backend needs httpx: pip install 'pfungst[openai]'")

from pfungst.cli import app  # noqa: E402
from pfungst.errors import BackendUnavailable  # noqa: E402
from pfungst.models.cache import CachedModel  # noqa: E402
from pfungst.models.http import HttpOptions, JsonClient  # noqa: E402
from pfungst.models.openai import OpenAIModel  # noqa: E402
from tests.models.echo_server import EchoServer  # noqa: E402

DRIP = 0.2  # seconds per byte: the shortest answer takes 6 s
runner = CliRunner()


def _client(url: str, retries: int) -> JsonClient:
    options = HttpOptions(backoff_initial=0.01, backoff_max=0.01)
    return JsonClient(url, None, timeout=5.0, max_retries=retries, max_connections=1, options=options, deadline=1.0)


def test_an_answer_dripped_a_byte_at_a_time_is_cut_off_at_the_deadline_naming_the_option() -> None:
    with EchoServer("text", drip_interval=DRIP) as server:
        started = time.monotonic()
        with pytest.raises(BackendUnavailable, match=r"deadline of 1 s for the whole request.*--deadline"):
            _client(server.url, retries=0).get("/v1/models")
        assert time.monotonic() - started < 2.5
        assert server.requests == 1


def test_a_request_cut_off_at_the_deadline_is_retried_like_a_timeout() -> None:
    with EchoServer("text", drip_interval=DRIP) as server:
        started = time.monotonic()
        with pytest.raises(BackendUnavailable, match=r"after 2 attempt\(s\)"):
            _client(server.url, retries=1).get("/v1/models")
        assert time.monotonic() - started < 4.5
        assert server.requests == 2


def test_the_cli_deadline_option_reaches_the_server_backend(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q?", "choices": ["a", "b"], "answer": 0}\n')
    with EchoServer("text", drip_interval=DRIP) as server:  # (the time is the client's, above: here imports count)
        arguments = ["score", str(data), "--model", f"openai:{server.url}#m", "--cache", str(tmp_path / "c.sqlite")]
        result = runner.invoke(app, [*arguments, "--deadline", "1", "--retries", "0", "--timeout", "5", "--quiet"])
        assert server.requests == 1
    assert result.exit_code == 2, result.output
    assert "deadline of 1 s" in " ".join(result.output.split())


def _probed_keys(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return [row[0] for row in connection.execute("SELECT key FROM memo WHERE key LIKE 'openai-probe:%'")]


def test_a_probe_that_met_a_malformed_answer_is_not_cached_so_the_next_run_probes_again(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with EchoServer("shape") as server:
        with OpenAIModel(server.url, "m", retries=0) as model:
            cached = CachedModel(model, path)
            assert "next_token" not in cached.capabilities
            cached.close()
        assert _probed_keys(path) == []
        server.mode = "text"  # the server is fixed
        with OpenAIModel(server.url, "m", retries=0) as model:
            cached = CachedModel(model, path)
            assert "next_token" in cached.capabilities
            cached.close()


def test_a_refusal_read_from_the_cache_names_the_cache_file_and_how_to_probe_again(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q?", "choices": ["a", "b"], "answer": 0}\n')
    path = tmp_path / "cache.sqlite"
    with EchoServer("chat-only") as server:
        arguments = ["score", str(data), "--model", f"openai:{server.url}#m", "--cache", str(path), "--quiet"]
        first = runner.invoke(app, [*arguments, "--rule", "letter"])
        second = runner.invoke(app, [*arguments, "--rule", "letter"])
    assert first.exit_code == second.exit_code == 2
    assert "/v1/completions is not served" in " ".join(first.output.split())
    assert len(_probed_keys(path)) == 1 and "model cache" not in first.output
    told = "".join(second.output.split())
    assert f"earlierprobekeptinthemodelcache{path}" in told and "DELETEFROMmemo" in told
