from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pfungst.cli import app

runner = CliRunner()


def test_formats_lists_every_reader_one_line_each() -> None:
    from pfungst.data.readers import READERS

    result = runner.invoke(app, ["formats"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert [line.split()[0] for line in lines] == list(READERS)


def test_inspect_prints_histograms_and_writes_json(tmp_path: Path) -> None:
    data = tmp_path / "items.csv"
    data.write_text("question,A,B,answer\nOne?,x,y,A\nTwo?,x,z,B\nOne?,x,y,A\n")
    out = tmp_path / "summary.json"
    result = runner.invoke(app, ["inspect", str(data), "--map", "option_columns=A,B", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "gold positions" in result.output and "duplicate texts 1" in result.output
    summary = json.loads(out.read_text())
    assert summary["gold_counts"] == {"A": 2, "B": 1}
    assert summary["benchmark"]["provenance"]["rows_read"] == 3


def test_user_error_exits_2_with_one_message_and_no_traceback(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 5}\n')
    result = runner.invoke(app, ["inspect", str(data), "--format", "jsonl"])
    assert result.exit_code == 2
    assert "items.jsonl:1: field 'answer': answer index 5 is out of range" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_skip_policy_reports_rejected_rows(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 5}\n'
                    '{"question": "r", "choices": ["a", "b"], "answer": 1}\n')
    result = runner.invoke(app, ["inspect", str(data), "-f", "jsonl", "--on-error", "skip"])
    assert result.exit_code == 0, result.output
    assert "rejected 1" in result.output and "rejected: " in result.output


def test_bad_map_syntax_is_a_user_error(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 1}\n')
    result = runner.invoke(app, ["inspect", str(data), "--map", "question"])
    assert result.exit_code == 2
    assert "expected KEY=VALUE" in result.output


def test_demo_writes_the_planted_benchmarks_and_they_load_back(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--out", str(tmp_path), "--items", "60", "--seed", "1"])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in tmp_path.glob("*.jsonl"))
    assert written == ["control.jsonl", "cue-word.jsonl", "gold-position.jsonl", "longest-option.jsonl"]
    assert "planted" in result.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("pfungst ")


def test_audit_writes_json_items_and_fixed_copies(tmp_path: Path) -> None:
    from pfungst.data.synthetic import make_synthetic

    data = make_synthetic("gold-position", 200, seed=2).save(tmp_path / "gp.jsonl")
    result = runner.invoke(app, ["audit", str(data), "--bootstrap", "100", "--permutations", "100", "--quiet",
                                 "--json", str(tmp_path / "a.json"), "--items", str(tmp_path / "items.csv"),
                                 "--fix", str(tmp_path / "fixed")])
    assert result.exit_code == 0, result.output
    assert "verdict: predictable" in " ".join(result.output.split())
    assert json.loads((tmp_path / "a.json").read_text())["verdict"]["label"] == "predictable"
    assert (tmp_path / "items.csv").read_text().startswith("item_id,")
    assert sorted(p.name for p in (tmp_path / "fixed").iterdir()) == [
        "gp.counterbalanced.jsonl", "gp.filtered.jsonl", "gp.predictability.csv"]
    # The counterbalanced copy is audited again: its gold-position artifact is gone.
    assert "gp (counterbalanced)" in result.output


def test_audit_rejects_an_unknown_feature_set_before_any_work(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 1}\n')
    result = runner.invoke(app, ["audit", str(data), "--feature-set", "1-grams_tfdf"])
    assert result.exit_code == 2
    assert "Did you mean: 1-grams_tfidf" in result.output
