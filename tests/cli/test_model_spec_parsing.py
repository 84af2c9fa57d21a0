"""``--model`` is parsed once into a :class:`~pfungst.models.registry.ModelSpec`, before any data is read, and that
parsed spec is what loads the model (issue 38: it used to be parsed three times)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.models.registry import MODELS, ModelSpec
from tests.models.scripted import ScriptedModel

runner = CliRunner()


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Each spec string parsed, counted; the registry gains ``scripted`` and ``scripted-2``, a fake model."""
    counts: Counter[str] = Counter()
    parse = ModelSpec.parse.__func__  # type: ignore[attr-defined]

    def counting(cls: type[ModelSpec], spec: str | ModelSpec) -> ModelSpec:
        if isinstance(spec, str):
            counts[spec] += 1
        return parse(cls, spec)  # type: ignore[no-any-return]

    def scripted(**options: Any) -> ScriptedModel:
        return ScriptedModel()

    monkeypatch.setattr(ModelSpec, "parse", classmethod(counting))
    monkeypatch.setattr(MODELS, "_merged", {**MODELS, "scripted": scripted, "scripted-2": scripted})
    return counts


def _data(folder: Path) -> str:
    rows = [("a", "1 + 1 =", ["2", "3"], 0), ("b", "2 + 2 =", ["5", "4"], 1), ("c", "Sky?", ["blue", "red"], 0)]
    path = folder / "tiny.jsonl"
    path.write_text(
        "".join(json.dumps(dict(zip(("id", "text", "options", "gold"), r, strict=True))) + "\n" for r in rows)
    )
    return str(path)


def test_score_parses_its_model_once(tmp_path: Path, parsed: Counter[str]) -> None:
    args = ["score", _data(tmp_path), "--model", "scripted", "--cache", str(tmp_path / "c.sqlite"), "--quiet"]
    result = runner.invoke(app, [*args, "--json", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["model"] == "scripted:v1"
    assert parsed == {"scripted": 1}


def test_stress_parses_each_model_once(tmp_path: Path, parsed: Counter[str]) -> None:
    args = ["stress", _data(tmp_path), "-p", "identity", "--rule", "cloze-raw", "--n-bootstrap", "20", "--quiet"]
    models = ["--model", "scripted", "--model", "scripted-2"]
    result = runner.invoke(app, [*args, *models, "--cache", str(tmp_path / "c.sqlite"), "--json", "-"])
    assert result.exit_code == 0, result.output
    assert [entry["model"] for entry in json.loads(result.stdout)["results"]] == ["scripted:v1", "scripted:v1"]
    assert parsed == {"scripted": 1, "scripted-2": 1}


def test_a_typo_in_a_model_is_named_before_the_data_is_read(tmp_path: Path, parsed: Counter[str]) -> None:
    result = runner.invoke(app, ["stress", str(tmp_path / "absent.jsonl"), "--model", "scripted", "--model", "smolm2"])
    assert result.exit_code == 2
    assert "Unknown model 'smolm2'. Did you mean: smollm2?" in " ".join(result.output.split())
    assert parsed == {"scripted": 1, "smolm2": 1}
