"""Data in a read-only folder and no ``--json``: each command that saves its result beside its input refuses before
any work, naming the default path and how to write elsewhere, with exit 2 and no traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.data.synthetic import make_synthetic

runner = CliRunner()

COMMANDS = {
    "audit": (["audit", "{folder}/items.jsonl", "--quiet"], "items.audit.json"),
    "score": (["score", "{folder}/items.jsonl", "--model", "scripted"], "items.score.json"),
    "stress": (["stress", "{folder}/items.jsonl", "--quiet"], "items.stress.json"),
    "reliance": (
        ["reliance", "{folder}/items.audit.json", "--outcomes", "{folder}/outcomes.csv"],
        "items.reliance.json",
    ),
    "validity": (["validity", "--outcomes", "{folder}/outcomes.csv"], "outcomes.validity.json"),
}


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A folder with a benchmark, an audit and outcomes in it, made read-only (555)."""
    folder = tmp_path / "data"
    folder.mkdir()
    make_synthetic("control", 60, seed=0).save(folder / "items.jsonl")
    (folder / "items.audit.json").write_text("{}")
    (folder / "outcomes.csv").write_text("model,item_id,correct\nm,q1,1\n")
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("chmod 555 does not stop this user writing (root)")
        yield folder
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_default_result_path_in_a_read_only_folder_names_the_path_and_json(read_only: Path, command: str) -> None:
    args, written = COMMANDS[command]
    result = runner.invoke(app, [arg.format(folder=read_only) for arg in args])
    message = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert f"the default result file (--json PATH writes it elsewhere) {read_only / written}: " in message
    assert f"the folder {read_only} is not writable" in message and "Traceback" not in result.output
    assert sorted(path.name for path in read_only.iterdir()) == ["items.audit.json", "items.jsonl", "outcomes.csv"]


def test_json_elsewhere_writes_the_result_though_the_data_folder_is_read_only(read_only: Path, tmp_path: Path) -> None:
    fast = ["--n-bootstrap", "50", "--n-permutations", "50", "--feature-set", "options", "--quiet"]
    result = runner.invoke(app, ["audit", str(read_only / "items.jsonl"), *fast, "--json", str(tmp_path / "a.json")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "a.json").is_file()
    assert sorted(path.name for path in read_only.iterdir()) == ["items.audit.json", "items.jsonl", "outcomes.csv"]
