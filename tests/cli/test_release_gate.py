"""The release gate: ``--fail-on`` exits 3 with the reason on stderr; ``--card`` writes a Markdown card; the
``suite`` command ranks, caches and gates a folder of benchmarks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.data.synthetic import make_synthetic
from pfungst.serialization import write_jsonl

runner = CliRunner()

QUICK = ["--n-bootstrap", "100", "--n-permutations", "50", "--n-repeats", "1", "--n-splits", "3", "--quiet"]
SETS = ["--feature-set", "options", "--feature-set", "options_no_position"]


def _write(path: Path, name: str, seed: int, n_items: int = 200) -> Path:
    items = make_synthetic(name, n_items, seed=seed)
    return write_jsonl(path, [{"question": i.text, "choices": list(i.options), "answer": i.gold} for i in items])


@pytest.fixture
def position_data(tmp_path: Path, seed: int) -> Path:
    """The gold sits first in 66% of items; the options' content says nothing."""
    return _write(tmp_path / "position.jsonl", "gold-position", seed)


@pytest.mark.parametrize(("rule", "code"), [("predictable", 3), ("position", 3), ("content", 0)])
def test_the_gate_fails_on_the_layout_artifact_only_under_rules_that_count_it(
    position_data: Path, rule: str, code: int
) -> None:
    result = runner.invoke(app, ["audit", str(position_data), *QUICK, *SETS, "--fail-on", rule])
    assert result.exit_code == code, result.output
    if code == 3:
        assert f"gate --fail-on {rule}: FAILED" in result.stderr
        assert "  position: " in result.stderr  # the benchmark, then the finding
    else:
        assert "passed" in result.stderr
    assert "gold position: POSITION ARTIFACT" in " ".join(result.stdout.split())


@pytest.fixture
def lexical_data(tmp_path: Path, seed: int) -> Path:
    """A shared-label task whose words give the label ('never' marks contradictions): a content finding."""
    items = make_synthetic("cue-word", 200, seed=seed)
    return write_jsonl(tmp_path / "nli.jsonl", [{**item.fields, "label": item.answer} for item in items])


@pytest.mark.parametrize(
    ("rule", "declared", "code"),
    [("content", False, 3), ("predictable", False, 3), ("content", True, 0), ("predictable", True, 3)],
)
def test_a_full_input_finding_on_shared_labels_fails_content_unless_the_task_is_declared_lexical(
    lexical_data: Path, rule: str, declared: bool, code: int
) -> None:
    args = ["audit", str(lexical_data), *QUICK, "--feature-set", "1-grams_presence", "--fail-on", rule]
    result = runner.invoke(app, [*args, "--lexical-task"] if declared else args)
    assert result.exit_code == code, result.output
    stdout = " ".join(result.stdout.split())
    assert "answerable from words in the input" not in stdout  # no excuse unless declared
    if declared:
        assert "as this task expects (declared with --lexical-task)" in stdout
    else:
        assert "Predictable from the full input: 'never' in the text" in stdout
    if code == 3:
        assert f"gate --fail-on {rule}: FAILED" in result.stderr
    else:
        assert "passed" in result.stderr


def test_an_unknown_rule_is_a_user_error_before_any_work(position_data: Path) -> None:
    result = runner.invoke(app, ["audit", str(position_data), "--fail-on", "predictible"])
    assert result.exit_code == 2
    assert "Unknown --fail-on rule 'predictible'" in result.stderr


def test_the_card_says_what_was_audited_the_verdicts_and_how_to_reproduce(position_data: Path, tmp_path: Path) -> None:
    card = tmp_path / "card.md"
    result = runner.invoke(app, ["audit", str(position_data), *QUICK, *SETS, "--card", str(card)])
    assert result.exit_code == 0, result.output
    text = card.read_text()
    assert text.startswith("## Surface-cue audit (pfungst)")
    for expected in (
        "**Verdict:** predictable (gold position in the file)",
        "**Content**",
        "**Gold position:** POSITION ARTIFACT",
        "**Controls:** label-only baseline: majority answer A",
        "constant answer: ",
        "```bash",
    ):
        assert expected in text
    assert "--card" in text and str(position_data) in text  # the command as typed


def test_the_suite_command_ranks_writes_a_card_and_gates(tmp_path: Path, seed: int) -> None:
    folder = tmp_path / "suite"
    _write(folder / "longest.jsonl", "longest-option", seed)
    _write(folder / "control.jsonl", "control", seed)
    out, card = tmp_path / "out", tmp_path / "card.md"
    args = ["suite", str(folder), "--out", str(out), *QUICK, *SETS, "--card", str(card), "--fail-on", "content"]
    result = runner.invoke(app, args)
    assert result.exit_code == 3, result.output
    assert "longest.jsonl: [content] Predictable from the" in " ".join(result.stderr.split())
    assert "control.jsonl" not in result.stderr.split("FAILED", 1)[1]
    assert (out / "suite.json").is_file() and (out / "benchmarks" / "longest.jsonl.audit.json").is_file()
    assert "| 1 | longest.jsonl |" in card.read_text()
    again = runner.invoke(app, args)
    assert "(2 reused from the cache)" in again.stderr


def test_the_audit_command_prints_position_and_content_apart_once_and_writes_them_in_its_json(
    position_data: Path, tmp_path: Path
) -> None:
    json_path = tmp_path / "audit.json"
    result = runner.invoke(app, ["audit", str(position_data), *QUICK, *SETS, "--json", str(json_path)])
    assert result.exit_code == 0, result.output
    stdout = " ".join(result.stdout.split())
    assert stdout.count("Position and content, apart") == 1
    assert "gold position: POSITION ARTIFACT: gold is the first option (A) in " in stdout
    assert "content verdict (options_no_position): no evidence" in stdout
    position = json.loads(json_path.read_text())["position_content"]["position"]
    assert position["slot_pattern"].startswith("gold is the first option (A) in ")
    assert position["slot_pattern"] in stdout


def test_an_audit_without_a_position_blind_probe_says_so_on_stderr_and_writes_no_split(
    position_data: Path, tmp_path: Path
) -> None:
    json_path = tmp_path / "audit.json"
    result = runner.invoke(
        app, ["audit", str(position_data), *QUICK, "--feature-set", "options", "--json", str(json_path)]
    )
    assert result.exit_code == 0, result.output
    assert "has no probe that is blind to positions" in " ".join(result.stderr.split())
    assert "Position and content, apart" not in result.stdout
    assert json.loads(json_path.read_text())["position_content"] is None


def test_a_suite_gate_that_checked_no_benchmark_fails(tmp_path: Path) -> None:
    """One task.json no longer hides the other files; and a gate over only skipped sources does not pass."""
    folder = tmp_path / "suite"
    (folder / "story").mkdir(parents=True)
    (folder / "story" / "task.json").write_text('{"examples": [{"input": "Once", "target": "upon a time"}]}')
    (folder / "notes.csv").write_text("this,is\nnot,a benchmark\n")
    result = runner.invoke(app, ["suite", str(folder), "--out", str(tmp_path / "out"), *QUICK, "--fail-on", "position"])
    assert result.exit_code == 3, result.output
    stderr = " ".join(result.stderr.split())
    assert "gate --fail-on position: FAILED: nothing was checked (0 benchmarks audited)" in stderr
    assert "passed" not in stderr
    skipped = [entry["name"] for entry in json.loads((tmp_path / "out" / "suite.json").read_text())["skipped"]]
    assert skipped == ["notes.csv", "story"]


def test_the_suite_command_counts_the_paths_that_are_no_benchmark_and_lists_them_when_verbose(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "guide.md").write_text("# guide\n")
    (folder / ".cache").mkdir()
    (folder / "notes.csv").write_text("this,is\nnot,a benchmark\n")
    args = ["suite", str(folder), "--out", str(tmp_path / "out"), *QUICK]
    quiet = " ".join(runner.invoke(app, args).stderr.split())
    assert "2 path(s) seen are no benchmark: 1 hidden, 1 not a benchmark format" in quiet
    assert "guide.md" not in quiet
    verbose = runner.invoke(app, [*args, "--verbose"]).stderr
    assert f"{folder / 'docs' / 'guide.md'}: not a benchmark format (.md)" in verbose
    assert f"{folder / '.cache'}: hidden" in verbose


def test_a_suite_whose_out_folder_lies_inside_its_data_folder_reruns_and_never_reads_its_outputs(
    tmp_path: Path, seed: int
) -> None:
    folder = tmp_path / "suite"
    _write(folder / "longest.jsonl", "longest-option", seed)
    args = ["suite", str(folder), "--out", str(folder / "results"), *QUICK]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    suite = json.loads((folder / "results" / "suite.json").read_text())
    assert [entry["name"] for entry in suite["entries"]] == ["longest.jsonl"]
    assert all(entry["reason"] == "inside the suite's output folder" for entry in suite["ignored"])
    assert suite["ignored"] and suite["skipped"] == []
    refused = runner.invoke(app, [*args[:2], "--out", str(folder), *QUICK])
    assert refused.exit_code == 2
