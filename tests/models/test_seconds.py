"""Every timeout-like setting of a model server is a finite number of seconds within its bounds, refused when the
settings are built (the CLI's --timeout and --deadline before any data is read; the backend's parameters when the
model is built), naming the option and the bound (issue 37: nan was a ValueError, inf an OverflowError)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.errors import ConfigError
from pfungst.models.seconds import MAX_SECONDS, check_seconds

runner = CliRunner()
REFUSED = ["nan", "inf", "-inf", "-1", "0", "1e10", "86401"]


@pytest.mark.parametrize("value", REFUSED)
@pytest.mark.parametrize("option", ["--timeout", "--deadline"])
@pytest.mark.parametrize("command", ["score", "stress"])
def test_a_timeout_that_is_not_a_number_of_seconds_within_bounds_exits_2_naming_the_option(
    command: str, option: str, value: str, tmp_path: Path
) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "Q?", "choices": ["a", "b"], "answer": 0}\n')
    model = ["--model", "openai:http://127.0.0.1:9#m", "--cache", str(tmp_path / "c.sqlite"), "--quiet"]
    result = runner.invoke(app, [command, str(data), *model, option, value])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    message = " ".join(result.output.split())
    assert f"error: {option} " in message and "above 0 and at most 86400 (one day)" in message


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -0.5, 0.0, MAX_SECONDS * 2])
@pytest.mark.parametrize("name", ["timeout", "deadline", "retry_budget"])
def test_the_openai_backend_refuses_such_values_when_built(name: str, value: float) -> None:
    pytest.importorskip("httpx")
    from pfungst.models.openai import OpenAIModel

    if name == "retry_budget" and value == 0.0:
        OpenAIModel("http://127.0.0.1:9", "m", retry_budget=0.0)  # no retries: allowed
        return
    with pytest.raises(ConfigError, match=rf"^{name} "):
        OpenAIModel("http://127.0.0.1:9", "m", **{name: value})


def test_bounds_are_inclusive_at_the_top_and_zero_only_where_asked() -> None:
    check_seconds("--timeout", MAX_SECONDS)
    check_seconds("retry_budget", 0.0, zero=True)
    with pytest.raises(ConfigError, match=r"--timeout 0: give a number of seconds above 0"):
        check_seconds("--timeout", 0.0)
    with pytest.raises(ConfigError, match=r"retry_budget -1: give a number of seconds 0 or more"):
        check_seconds("retry_budget", -1.0, zero=True)
