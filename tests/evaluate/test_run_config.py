"""Score and stress runs share one set of run settings (RunConfig, held by StressConfig as ``run``): the same fields,
checks and messages."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError
from pfungst.evaluate import RunConfig
from pfungst.stress import StressConfig
from pfungst.stress.suite import stress
from tests.models.scripted import ScriptedModel


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"limit": 0}, r"limit \(--limit\) must be at least 1, not 0"),
        ({"chunk_size": 0}, r"chunk_size \(--chunk-size\) must be at least 1, not 0"),
        ({"chunk_size": True}, r"chunk_size must be an integer, got True"),
        ({"rule": "pmii"}, r"Unknown scoring rule 'pmii'\. Did you mean: pmi\?"),
        ({"level": 1.5}, r"level must be in \(0, 1\), got 1\.5"),
        ({"cluster_by": ""}, r"cluster_by must be 'auto', 'none' or the name of a metadata key or field"),
    ],
)
def test_score_and_stress_refuse_a_shared_setting_with_the_same_message(settings: dict[str, Any], message: str) -> None:
    model = ScriptedModel()
    items = Benchmark("toy", (Item("q", "One?", ("a", "b"), 0),))
    with pytest.raises(ConfigError, match=message) as score_error:
        pfungst.score(items, model, cache=False, **settings)
    with pytest.raises(ConfigError, match=message) as stress_error:
        stress(items, model, cache=False, **settings)
    with pytest.raises(ConfigError, match=message) as config_error:
        StressConfig(run=RunConfig(**settings)).validate()
    assert str(score_error.value) == str(stress_error.value) == str(config_error.value)
    assert model.calls == []


def test_a_stress_config_holds_the_run_settings_once() -> None:
    """The run's settings are a RunConfig held as ``run``; none is repeated in StressConfig."""
    run_fields = {field.name for field in dataclasses.fields(RunConfig)}
    stress_fields = {field.name for field in dataclasses.fields(StressConfig)}
    assert "run" in stress_fields and not run_fields & stress_fields
    config = StressConfig(run=RunConfig(rule="cloze-raw", limit=3), perturbations=("cyclic",))
    assert config.to_dict()["rule"] == "cloze-raw" and config.to_dict()["limit"] == 3
    assert (RunConfig().rule, StressConfig().run.rule) == ("cloze-raw", "letter")


def test_keyword_settings_reach_the_run_or_the_stress_config_and_a_typo_is_named() -> None:
    model = ScriptedModel()
    items = Benchmark("toy", tuple(Item(f"q{i}", f"Q{i}?", ("a", "b"), 0) for i in range(4)))
    config = StressConfig(run=RunConfig(rule="cloze-raw", cache=False), perturbations=("cyclic",))
    result = stress(items, model, config, limit=2, n_bootstrap=20)
    assert result.provenance.settings["limit"] == 2 and result.provenance.settings["n_bootstrap"] == 20
    assert result.provenance.settings["rule"] == "cloze-raw" and result.benchmark["n_items"] == 2  # the given run kept
    with pytest.raises(ConfigError, match=r"Unknown stress setting 'limt'\. Did you mean: limit\?"):
        stress(items, model, limt=2, cache=False)
    with pytest.raises(ConfigError, match=r"Unknown score setting 'n_bootstrap'"):
        pfungst.score(items, model, n_bootstrap=20, cache=False)


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
        assert "--on-error must be 'raise' or 'skip', not 'warn'" in result.output


def test_stress_refuses_an_unknown_model_provider_before_reading_the_data(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text("not json\n")  # reading it would fail first
    result = CliRunner().invoke(app, ["stress", str(data), "--model", "opnai:http://127.0.0.1:9/v1#m"])
    assert result.exit_code == 2, result.output
    assert "Unknown model provider 'opnai'. Did you mean: openai?" in result.output
