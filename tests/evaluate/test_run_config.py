"""Score and stress runs share one set of run settings (RunConfig): the same fields, defaults and checks."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.errors import ConfigError
from pfungst.evaluate import RunConfig, ScoreConfig
from pfungst.stress import StressConfig


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"limit": 0}, r"limit must be at least 1 \(or None for every item\), got 0"),
        ({"chunk_size": 0}, r"chunk_size must be at least 1, got 0"),
        ({"chunk_size": True}, r"chunk_size must be an integer, got True"),
        ({"rule": "pmii"}, r"Unknown scoring rule 'pmii'\. Did you mean: pmi\?"),
    ],
)
def test_score_and_stress_refuse_a_shared_setting_with_the_same_message(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as score_error:
        ScoreConfig(**settings).resolve()
    with pytest.raises(ConfigError, match=message) as stress_error:
        StressConfig(**settings).validate()
    assert str(score_error.value) == str(stress_error.value)


def test_score_and_stress_settings_are_run_settings_with_their_own_default_rule() -> None:
    shared = {field.name for field in dataclasses.fields(RunConfig)}
    assert shared <= {field.name for field in dataclasses.fields(StressConfig)}
    assert {field.name for field in dataclasses.fields(ScoreConfig)} == shared
    assert (ScoreConfig().rule, StressConfig().rule) == ("cloze-raw", "letter")
    assert ScoreConfig().cache_path() == StressConfig().cache_path()


def test_generate_samples_with_the_run_seed_unless_its_parameters_set_one() -> None:
    assert RunConfig(rule="generate", seed=5).main_rule().seed == 5  # type: ignore[attr-defined]
    assert RunConfig(rule="generate", seed=5, rule_params={"seed": 9}).main_rule().seed == 9  # type: ignore[attr-defined]


def test_the_command_line_refuses_a_bad_on_error_before_loading_for_score_and_stress(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "One?", "choices": ["a", "b"], "answer": 1}\n')
    runner = CliRunner()
    for command in ("score", "stress"):
        result = runner.invoke(app, [command, str(data), "--on-error", "warn", "--cache", str(tmp_path / "c.sqlite")])
        assert result.exit_code == 2, result.output
        assert "on_error must be 'raise' or 'skip', not 'warn'" in result.output


def test_stress_refuses_an_unknown_model_provider_before_reading_the_data(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text("not json\n")  # reading it would fail first
    result = CliRunner().invoke(app, ["stress", str(data), "--model", "opnai:http://127.0.0.1:9/v1#m"])
    assert result.exit_code == 2, result.output
    assert "Unknown model provider 'opnai'. Did you mean: openai?" in result.output
