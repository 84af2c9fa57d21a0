"""Samples of one epoch that repeat an id in an inspect log are counted and reported, never silently overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.integrations.inspect_log import read_inspect_log

HEADER = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "dataset": {"name": "d"}}}


def _sample(sample_id: str, value: str, epoch: int = 1) -> dict[str, object]:
    return {"id": sample_id, "epoch": epoch, "scores": {"choice": {"value": value}}}


def _log(path: Path) -> Path:
    samples = [_sample("q1", "C"), _sample("q2", "I"), _sample("q1", "I"), _sample("q1", "I", epoch=2)]
    path.write_text(json.dumps({**HEADER, "samples": samples}))
    return path


def test_a_repeated_sample_id_is_counted_warned_about_and_the_first_kept(tmp_path: Path) -> None:
    with pytest.warns(
        UserWarning, match=r"log\.json: 1 sample\(s\) of epoch 1 repeat the id of an earlier sample \('q1'\)"
    ):
        log = read_inspect_log(_log(tmp_path / "log.json"))
    assert dict(log.correct) == {"q1": True, "q2": False}
    assert (log.n_duplicates, log.n_skipped) == (1, 1)  # the epoch-2 sample is skipped, not a repeat
    assert log.to_dict()["n_duplicates"] == 1


def test_the_command_reports_repeated_ids_on_stderr_and_in_its_json(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = CliRunner().invoke(app, ["inspect-log", str(_log(tmp_path / "log.json")), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stderr and "repeat the id of an earlier sample" in " ".join(result.stderr.split())
    assert "1 repeated sample ids left out" in " ".join(result.stdout.split())
    assert json.loads(out.read_text())["n_duplicates"] == 1
