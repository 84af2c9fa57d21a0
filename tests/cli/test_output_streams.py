"""Results on stdout, people's output on stderr; ``--json -``; option names that match the config fields; the old
option names kept for a release with a one-line notice."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.data.readers import READERS
from pfungst.data.synthetic import make_synthetic
from pfungst.evaluate.formats import BUILTIN_FORMATS
from pfungst.reliance.validity import ValidityConfig
from tests.cli.test_report_commands import _outcomes, audited  # noqa: F401  (a module-scoped fixture)

runner = CliRunner()
AUDIT_FAST = ["--n-bootstrap", "50", "--n-permutations", "50", "--feature-set", "options", "--quiet"]


def _items(folder: Path) -> Path:
    data = folder / "items.csv"
    data.write_text("question,A,B,answer\nOne?,x,y,A\nTwo?,x,z,B\nThree?,p,q,A\n")
    return data


def _gold_position(folder: Path) -> Path:
    return make_synthetic("gold-position", 60, seed=2).save(folder / "gp.jsonl")


def test_formats_lists_readers_and_prompt_formats_by_default() -> None:
    result = runner.invoke(app, ["formats"])
    assert result.exit_code == 0, result.output
    names = [line.split()[0] for line in result.stdout.splitlines() if line.startswith(tuple(READERS))]
    assert names[: len(READERS)] == list(READERS)
    assert "Prompt formats" in result.stdout
    assert re.search(r"^mmlu +2 \+ 2 =\\nA\. 3\\nB\. 4\\nAnswer:$", result.stdout, re.MULTILINE)
    prompts = runner.invoke(app, ["formats", "--what", "prompts"])
    assert [line.split()[0] for line in prompts.stdout.splitlines()] == list(BUILTIN_FORMATS)


def test_inspect_prints_the_summary_on_stdout_and_notices_on_stderr(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = runner.invoke(app, ["inspect", str(_items(tmp_path)), "--map", "option_columns=A,B", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "gold positions" in result.stdout and "gold positions" not in result.stderr
    assert f"wrote{out}" in "".join(result.stderr.split()) and "wrote" not in result.stdout
    assert json.loads(out.read_text())["provenance"]["data"][0]["rows_read"] == 3


def test_json_dash_writes_the_json_to_stdout_and_the_tables_to_stderr(tmp_path: Path) -> None:
    data, saved = _items(tmp_path), tmp_path / "summary.json"
    result = runner.invoke(app, ["inspect", str(data), "--map", "option_columns=A,B", "--json", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["provenance"]["data"][0]["rows_read"] == 3
    assert "gold positions" in result.stderr
    runner.invoke(app, ["inspect", str(data), "--map", "option_columns=A,B", "--json", str(saved)])
    printed, written = json.loads(result.stdout), json.loads(saved.read_text())
    for data in (printed, written):
        del data["provenance"]["environment"]["created"]  # the second run's time
    assert printed == written

    audit = runner.invoke(app, ["audit", str(_gold_position(tmp_path)), *AUDIT_FAST, "--json", "-"])
    assert audit.exit_code == 0, audit.output
    assert json.loads(audit.stdout)["verdict"]["label"] == "predictable"
    assert "Predictable from" in " ".join(audit.stderr.split())  # the short answer, off stdout
    assert not list(tmp_path.glob("*.audit.json"))  # '-' is where the result went: no default file besides


def test_audit_table_on_stdout_and_a_terminal_progress_bar_on_stderr(tmp_path: Path) -> None:
    """Run as a user would, with both streams taken for terminals (rich's TTY_COMPATIBLE), so the bar is drawn."""
    data = _gold_position(tmp_path)
    quiet = [option for option in AUDIT_FAST if option != "--quiet"]
    environment = {**os.environ, "TTY_COMPATIBLE": "1", "PYTHONPATH": str(Path(pfungst.__file__).parents[1])}
    command = [sys.executable, "-m", "pfungst.cli", "audit", str(data), *quiet]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Audit of" in done.stdout and "Audit of" not in done.stderr
    assert re.search(r"\d+/\d+", done.stderr) and "\x1b[2K" in done.stderr  # M/N, redrawn in place
    assert "\x1b[2K" not in done.stdout


def test_reliance_table_on_stdout_or_json_on_stdout(
    audited: tuple[Path, list[str], list[str]],  # noqa: F811
    tmp_path: Path,
) -> None:
    audit_path, solvable, rest = audited
    outcomes = _outcomes(tmp_path / "outcomes.csv", solvable, rest)
    result = runner.invoke(app, ["reliance", str(audit_path), "--outcomes", str(outcomes), "--verbose"])
    assert result.exit_code == 0, result.output
    assert "cue: probe 1-grams_presence" in result.stdout and "cue: probe" not in result.stderr
    as_json = runner.invoke(app, ["reliance", str(audit_path), "--outcomes", str(outcomes), "--json", "-", "-v"])
    assert json.loads(as_json.stdout)["schema_version"] == "pfungst.reliance/2"
    assert "cue: probe 1-grams_presence" in as_json.stderr

    report = runner.invoke(app, ["report", str(audit_path), "--out", str(tmp_path / "r.md")])
    assert report.exit_code == 0, report.output
    assert "".join(report.stdout.split()) == f"wrote{tmp_path / 'r.md'}" and report.stderr == ""


@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("inspect", "--format"),
        ("inspect", "-f"),
        ("audit", "--format=jsonl"),
        ("audit", "--repeats"),
        ("audit", "--splits"),
        ("audit", "--bootstrap"),
        ("audit", "--permutations"),
        ("audit", "--jobs"),
        ("score", "--scoring"),
        ("score", "--prompt-format"),
        ("stress", "--formats"),
        ("stress", "--search-formats"),
        ("stress", "--bootstrap"),
    ],
)
def test_an_option_name_the_command_does_not_have_is_refused(tmp_path: Path, command: str, option: str) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 1}\n')
    result = runner.invoke(app, [command, str(data), option, "3"])
    assert result.exit_code == 2 and result.stdout == ""
    assert f"No such option: {option.partition('=')[0]}" in " ".join(result.stderr.split())


# Options that are no config field: data loading, outputs, the model, and what the command runs on.
NOT_CONFIG = {
    "reader",
    "map",
    "on_error",
    "strict",
    "json",
    "items",
    "out",
    "quiet",
    "verbose",
    "help",
    "model",
    "fail_on",
    "card",
}
MODEL_OPTIONS = {
    "threads",
    "weights",
    "prefix_trie",
    "timeout",
    "deadline",
    "retries",
    "debug",
}  # the backend's (model_options)
COMMANDS = {
    "audit": (pfungst.AuditConfig, {"feature_set", "deduplicate", "fix", "findings", "validity"}),
    "score": (pfungst.RunConfig, set()),
    "stress": (pfungst.StressConfig, {"perturbation", "from_logs"}),
    "reliance": (
        pfungst.RelianceConfig,
        {"outcomes", "outcome_format", "dataset", "metric", "variant", "shortcut_stress", "shortcut_rule"},
    ),
    "validity": (ValidityConfig, {"outcomes", "outcome_format", "dataset", "metric", "variant"}),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_is_named_after_its_config_field(command: str) -> None:
    """Repeatable options take the singular of their tuple field (``--feature-set`` fills ``feature_sets``,
    ``--perturbation`` ``perturbations``); a config holding the run's settings (``run``) takes RunConfig's too."""
    config, extra = COMMANDS[command]
    fields = {field.name for field in dataclasses.fields(config)}
    if "run" in fields:
        fields |= {field.name for field in dataclasses.fields(pfungst.RunConfig)}
    params = typer.main.get_command(app).commands[command].params  # type: ignore[attr-defined]
    names = {opt.lstrip("-").replace("-", "_") for param in params for opt in param.opts if opt.startswith("--")}
    names -= MODEL_OPTIONS
    assert names - NOT_CONFIG - extra <= fields, names - NOT_CONFIG - extra - fields
    assert {name.removesuffix("s") for name in extra if name + "s" in fields} <= names


def test_score_and_stress_tables_on_stdout_or_json_on_stdout(shared_data: Path, tmp_path: Path) -> None:
    from tests.test_cli import _need_smollm2, _tiny_benchmark

    _need_smollm2()
    data, cache = shared_data / "llm_foundry" / "arc_easy.jsonl", str(tmp_path / "cache.sqlite")
    score = ["score", str(data), "--limit", "3", "--rule", "letter", "--cache", cache, "--threads", "1", "--quiet"]
    table = runner.invoke(app, [*score, "--json", str(tmp_path / "score.json")])  # not beside the shared data
    assert table.exit_code == 0, table.output
    assert "accuracy" in table.stdout.lower() and "accuracy" not in table.stderr.lower()
    as_json = runner.invoke(app, [*score, "--json", "-"])
    assert json.loads(as_json.stdout)["n_items"] == 3 and "accuracy" in as_json.stderr.lower()

    stress = ["stress", str(_tiny_benchmark(tmp_path)), "-p", "identity", "--limit", "2", "--cache", cache]
    stress += ["--threads", "1", "--n-bootstrap", "50", "--quiet"]
    table = runner.invoke(app, stress)
    assert table.exit_code == 0, table.output
    assert "Stress of " in table.stdout and "Stress of " not in table.stderr
    # a rerun is fast: say so (the console may break a long path anywhere, so it is compared without white space)
    assert f"Modelanswersarecachedin{cache}" in "".join(table.stdout.split())
    as_json = runner.invoke(app, [*stress, "--json", "-"])
    assert json.loads(as_json.stdout)["n_items"] == 2 and "Stress of " in as_json.stderr
    _no_model_path_in_the_saved_result_or_its_report(tmp_path / "tiny.stress.json", tmp_path)


def _no_model_path_in_the_saved_result_or_its_report(saved: Path, folder: Path) -> None:
    """Issue 36, privacy: the stress result saved by default, and its report, name the model file by name, size and
    hash, never by the folder it lies in."""
    from pfungst.models.embedded import embedded_model_path

    model_folder = str(embedded_model_path().resolve().parent)
    text = saved.read_text()
    assert json.loads(text)["model"].startswith(f"llamacpp:{embedded_model_path().name}:")
    assert model_folder not in text
    for name in ("report.html", "report.md"):
        report = runner.invoke(app, ["report", str(saved), "-o", str(folder / name)])
        assert report.exit_code == 0, report.output
        assert model_folder not in (folder / name).read_text()
