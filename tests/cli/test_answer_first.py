"""The answer first (issue 36): one screen by default, every result saved where documented, a closed pipe is quiet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.cli.result_output import default_result_path
from pfungst.data.synthetic import make_synthetic
from pfungst.report.summary_console import SCREEN_LINES
from tests.cli.test_report_commands import _outcomes, audited  # noqa: F401  (a module-scoped fixture)
from tests.cli.test_validity_command import _answers

runner = CliRunner()


@pytest.fixture(scope="module")
def sixty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 60-item benchmark whose gold is often the longest option, audited once with the default settings."""
    folder = tmp_path_factory.mktemp("sixty")
    path = folder / "longest.jsonl"
    make_synthetic("longest-option", n_items=60, seed=0).save(path)
    return path


@pytest.fixture(scope="module")
def fresh_audit(sixty: Path) -> tuple[str, str, int]:
    """``pfungst audit longest.jsonl`` as a new user types it: stdout, stderr, exit code."""
    result = runner.invoke(app, ["audit", str(sixty)])
    return result.stdout, result.stderr, result.exit_code


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_a_fresh_audit_of_60_items_fits_one_screen_and_names_its_verdict(
    sixty: Path, fresh_audit: tuple[str, str, int]
) -> None:
    stdout, stderr, code = fresh_audit
    assert code == 0, stdout + stderr
    assert len(_lines(stdout)) + len(_lines(stderr)) <= SCREEN_LINES, stdout + stderr
    saved = sixty.with_name("longest.audit.json")
    headline = json.loads(saved.read_text())["headline"]
    shown = " ".join(stdout.split())
    assert " ".join(headline["sentence"].split()) in shown  # the verdict, as the audit stage wrote it
    assert shown.startswith("Audit of longest (60 items")
    assert "Surface-feature probes" not in stdout  # the tables wait for --verbose
    assert f"wrote {saved}" in " ".join(stderr.split())


def test_the_default_audit_file_is_what_report_reads_without_a_rerun(
    sixty: Path, fresh_audit: tuple[str, str, int], tmp_path: Path
) -> None:
    assert fresh_audit[2] == 0
    saved = default_result_path(sixty, "audit")
    assert saved == sixty.with_name("longest.audit.json")
    assert json.loads(saved.read_text())["probes"][0]["items"]  # per-item predictions: what reliance joins
    page = tmp_path / "report.html"
    report = runner.invoke(app, ["report", str(saved), "-o", str(page)])
    assert report.exit_code == 0, report.output
    assert "longest" in page.read_text()


def test_verbose_shows_every_table_then_the_answer(sixty: Path, tmp_path: Path) -> None:
    fast = ["--n-bootstrap", "50", "--n-permutations", "50", "--feature-set", "options", "--quiet"]
    result = runner.invoke(app, ["audit", str(sixty), *fast, "--json", str(tmp_path / "a.json"), "--verbose"])
    assert result.exit_code == 0, result.output
    stdout = result.stdout
    assert "Surface-feature probes" in stdout and "Heuristic baselines" in stdout
    assert stdout.index("Surface-feature probes") < stdout.index("Audit of longest")  # the answer closes it
    assert len(_lines(stdout)) > SCREEN_LINES


def test_reliance_and_validity_save_beside_their_first_input_by_default(
    audited: tuple[Path, list[str], list[str]],  # noqa: F811
    tmp_path: Path,
) -> None:
    audit_path, solvable, rest = audited
    outcomes = _outcomes(tmp_path / "outcomes.csv", solvable, rest)
    result = runner.invoke(app, ["reliance", str(audit_path), "--outcomes", str(outcomes)])
    assert result.exit_code == 0, result.output
    saved = audit_path.with_name("cue.reliance.json")  # cue.audit.json -> cue.reliance.json
    assert json.loads(saved.read_text())["kind"] == "reliance"
    assert len(_lines(result.stdout)) + len(_lines(result.stderr)) <= SCREEN_LINES

    answers = _answers(tmp_path / "answers.csv")
    result = runner.invoke(app, ["validity", "--outcomes", str(answers)])
    assert result.exit_code == 0, result.output
    saved = tmp_path / "answers.validity.json"
    assert json.loads(saved.read_text())["kind"] == "validity"
    report = runner.invoke(app, ["report", str(saved), "-o", str(tmp_path / "v.md")])
    assert report.exit_code == 0, report.output


def test_the_default_file_never_replaces_an_input(tmp_path: Path) -> None:
    data = tmp_path / "x.jsonl"
    make_synthetic("control", n_items=20, seed=0).save(data)
    taken = default_result_path(data, "audit")
    taken.mkdir()  # the default path is a folder: refused before any work, naming --json
    result = runner.invoke(app, ["audit", str(data), "--quiet"])
    assert result.exit_code == 2
    assert "--json" in result.stderr and "Traceback" not in result.stderr


def _command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "pfungst.cli", *arguments]


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(pfungst.__file__).parents[1])}


def test_a_closed_pipe_ends_quietly_with_exit_0_and_the_result_still_saved(tmp_path: Path) -> None:
    """The reader has gone before the first line is written (``| head -0``, the sure case of ``| head -1``)."""
    data = tmp_path / "gp.jsonl"
    make_synthetic("gold-position", n_items=60, seed=0).save(data)
    fast = ["--n-bootstrap", "50", "--n-permutations", "50", "--feature-set", "options", "--quiet", "--verbose"]
    process = subprocess.Popen(
        _command("audit", str(data), *fast), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_environment()
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=300) == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr and "Exception ignored" not in stderr
    assert json.loads(data.with_name("gp.audit.json").read_text())["kind"] == "audit"


def test_head_1_exits_0(tmp_path: Path) -> None:
    data = tmp_path / "gp.jsonl"
    make_synthetic("gold-position", n_items=60, seed=0).save(data)
    fast = "--n-bootstrap 50 --n-permutations 50 --feature-set options --quiet --verbose"
    line = f"set -o pipefail; {sys.executable} -m pfungst.cli audit {data} {fast} | head -1"
    done = subprocess.run(
        ["bash", "-c", line], capture_output=True, text=True, env=_environment(), timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "Traceback" not in done.stderr
