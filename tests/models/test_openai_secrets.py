"""A canary API key never leaves the HTTP client: not on stdout, stderr, in any output file, nor in the cache.

Real CLI commands (``score`` with a letter rule, which probes the server, and with generation; ``stress``) run
against a loopback server that echoes every request back (the Authorization header included) in each hostile shape
of :mod:`tests.models.echo_server`; then every output is searched for any six characters of each secret,
case-insensitively: stdout, stderr, every file written, every row of every table of the cache, its raw bytes. The
search (:mod:`tests.models.leak_search`) does not trust the scrubber's idea of an encoding: it decodes every output
itself.
"""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("httpx", reason="the openai backend needs httpx: pip install 'pfungst[openai]'")

from pfungst.cli import app  # noqa: E402
from tests.models.echo_server import ENCODED_MODES, MODES, EchoServer  # noqa: E402
from tests.models.leak_search import leaks as _leaks  # noqa: E402

CANARY = "sk-CANARYq7Zx9Wv2Lm4Tp8Rk"  # no long run of digits: a piece must not be found in a number
URL_USER = "user-Kx9Qw7Zt"
URL_PASSWORD = "pw-Hb4Np8Vy2Jr6"
ITEMS = (
    '{"question": "Which is a colour?", "choices": ["red", "dog", "run", "six"], "answer": 0}\n'
    '{"question": "Which is a number?", "choices": ["cat", "nine", "blue", "go"], "answer": 1}\n'
)
runner = CliRunner()


def _cache_rows(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return repr({table: connection.execute(f"SELECT * FROM {table}").fetchall() for table in tables})


def _outputs(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` as raw bytes (latin-1 keeps each byte), and every row of each cache table."""
    texts = {str(path): path.read_bytes().decode("latin-1") for path in folder.rglob("*") if path.is_file()}
    texts.update({f"{path} rows": _cache_rows(path) for path in folder.rglob("*.sqlite")})
    return texts


def _run(arguments: list[str], texts: dict[str, str]) -> int:
    result = runner.invoke(app, arguments)
    assert "Traceback" not in result.output, result.output
    name = " ".join(arguments[:1] + arguments[arguments.index("--quiet") + 1 :][:2])
    texts[f"{name} stdout"], texts[f"{name} stderr"] = result.stdout, result.stderr
    return result.exit_code


def _commands(spec: str, folder: Path, *more: str) -> list[list[str]]:
    data = folder / "items.jsonl"
    data.write_text(ITEMS)
    common = ["--model", spec, "--cache", str(folder / "cache.sqlite"), "--retries", "0", "--timeout", "5", "--quiet"]
    common += more
    out = folder / "out"
    score = ["score", str(data), *common]
    return [
        [*score, "--rule", "letter", "--json", str(out / "letter.json"), "-o", str(out / "letter.jsonl")],
        [*score, "--rule", "generate", "--json", str(out / "generate.json"), "-o", str(out / "generate.jsonl")],
        ["stress", str(data), *common, "-p", "cyclic", "--n-bootstrap", "20", "--json", str(out / "stress.json")],
    ]


def _credentials(where: str, url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, tuple[str, ...]]:
    """The model spec for the echo server at ``url`` with the secret in the ``environment`` (the API key) or in the
    ``url`` (user and password), and the secrets the outputs must not hold."""
    if where == "environment":
        monkeypatch.setenv("OPENAI_API_KEY", CANARY)
        return f"openai:{url}#m", (CANARY,)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return f"openai:{url.replace('://', f'://{URL_USER}:{URL_PASSWORD}@')}#m", (URL_USER, URL_PASSWORD)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("where", ["environment", "url"])
def test_a_key_echoed_back_in_any_shape_appears_in_no_output_and_not_in_the_cache(
    mode: str, where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PFUNGST_CACHE", str(tmp_path / "default-cache.sqlite"))
    with EchoServer(mode) as server:
        spec, secrets = _credentials(where, server.url, monkeypatch)
        texts: dict[str, str] = {}
        codes = [_run(command, texts) for command in _commands(spec, tmp_path)]
        assert 0 < server.requests <= 200
    if mode in ("text", "upper", "split", "masked"):
        assert codes == [0, 0, 0], texts  # the commands ran to their results, through every store of server text
    else:
        assert set(codes) == {2}, texts  # refused with one message each
    texts.update(_outputs(tmp_path))
    assert (tmp_path / "cache.sqlite").exists()
    assert _leaks(texts, secrets) == {}


def test_models_compared_by_stress_are_named_without_the_credentials_of_their_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    data = tmp_path / "items.jsonl"
    data.write_text(ITEMS)
    with EchoServer("text") as server:
        with_credentials = server.url.replace("://", f"://{URL_USER}:{URL_PASSWORD}@")
        models = ["--model", f"openai:{with_credentials}#m", "--model", f"openai:{server.url}#m"]
        options = ["-p", "cyclic", "--n-bootstrap", "20", "--retries", "0", "--quiet", "--cache", str(tmp_path / "c")]
        texts: dict[str, str] = {}
        code = _run(["stress", str(data), *models, *options, "--json", str(tmp_path / "out" / "ranks.json")], texts)
    assert code == 0, texts
    texts.update(_outputs(tmp_path))
    assert f"openai:{server.url}#m (1)" in texts[str(tmp_path / "out" / "ranks.json")]
    assert _leaks(texts, (URL_USER, URL_PASSWORD)) == {}


def _detector_finds(echo: str, secret: str) -> bool:
    return bool(_leaks({"echo": f"said: {echo} (end)"}, (secret,)))


def test_the_leak_search_finds_each_encoding_the_server_echoes() -> None:
    from tests.models.echo_server import encoded_echoes

    basic = base64.b64encode(f"{URL_USER}:{URL_PASSWORD}".encode()).decode()
    for echo in encoded_echoes(f"Bearer {CANARY}"):
        assert _detector_finds(echo, CANARY), echo
    reversed_upper = 1  # the Basic token upper-cased: its case is lost, so no decoder reads the password back
    for index, echo in enumerate(encoded_echoes(f"Basic {basic}")):
        assert index == reversed_upper or _detector_finds(echo, URL_PASSWORD), echo
    assert not _detector_finds("an answer with no secret in it, 0.4152593 and c2stQ0E= (five characters)", CANARY)


@pytest.mark.parametrize("mode", ENCODED_MODES)
@pytest.mark.parametrize("where", ["environment", "url"])
def test_a_key_echoed_encoded_in_a_200_401_or_500_body_appears_in_no_output_even_with_debug(
    mode: str, where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PFUNGST_CACHE", str(tmp_path / "default-cache.sqlite"))
    with EchoServer(mode) as server:
        spec, secrets = _credentials(where, server.url, monkeypatch)
        texts: dict[str, str] = {}
        codes = [_run(command, texts) for command in _commands(spec, tmp_path, "--debug")]
        assert 0 < server.requests <= 200
    assert codes == ([0, 0, 0] if mode == "encoded-200" else [2, 2, 2]), texts
    if mode != "encoded-200":  # --debug showed the server's (scrubbed) text
        assert all("[a body of" in texts[name] for name in texts if name.endswith("stderr")), texts
    texts.update(_outputs(tmp_path))
    assert _leaks(texts, secrets) == {}
