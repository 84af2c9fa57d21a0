"""``pfungst validity`` from the command line: a planted wrong key in a CSV of several models' answers."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pfungst.cli import app

runner = CliRunner()


def _answers(path: Path) -> Path:
    """Eight models; item 'miskeyed' is keyed A but every model answers B; the other items are keyed right."""
    rows = ["model,item_id,correct,answer,gold,text"]
    for m in range(8):
        rows.append(f"m{m},miskeyed,0,B,A,Which planet is largest? A) Mars B) Jupiter")
        for i in range(30):
            answer = "A" if (i + m) % 4 else "C"  # each model misses a different quarter of the items
            rows.append(f"m{m},q{i},{int(answer == 'A')},{answer},A,Question {i}?")
    path.write_text("\n".join(rows) + "\n")
    return path


def test_validity_ranks_the_planted_key_first_and_writes_json_and_a_report(tmp_path: Path) -> None:
    out = tmp_path / "validity.json"
    result = runner.invoke(app, ["validity", "--outcomes", str(_answers(tmp_path / "a.csv")), "--json", str(out)])
    assert result.exit_code == 0, result.output
    shown = " ".join(result.stdout.split())
    assert "Which planet is largest?" in shown and "1 of 31 keys suspected wrong" in shown
    data = json.loads(out.read_text())
    assert data["schema_version"] == "pfungst.validity/3"
    top = data["datasets"][0]["items"][0]
    assert (top["item_id"], top["key"], top["agreed_answer"], top["suspected"]) == ("miskeyed", "A", "B", True)
    page = tmp_path / "report.html"
    report = runner.invoke(app, ["report", str(out), "-o", str(page)])
    assert report.exit_code == 0, report.output
    html = page.read_text()
    assert "Item validity" in html and "Which planet is largest?" in html and "1 key(s) suspected wrong" in html


def test_an_unknown_irt_method_exits_2_with_the_choices(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validity", "--outcomes", str(_answers(tmp_path / "a.csv")), "--irt", "bayes"])
    assert result.exit_code == 2
    assert "--irt must be jml, mml or none" in result.output


def test_the_same_outcome_file_twice_or_a_copy_exits_2_naming_both_paths(tmp_path: Path) -> None:
    first = _answers(tmp_path / "a.csv")
    copied = tmp_path / "copy.csv"
    copied.write_bytes(first.read_bytes())
    for second in (first, copied):
        result = runner.invoke(app, ["validity", "--outcomes", str(first), "--outcomes", str(second)])
        assert result.exit_code == 2, result.output
        assert f"--outcomes {second}: same content as {first}" in " ".join(result.output.split())


def test_an_unreadable_outcome_file_names_the_option_and_the_missing_column(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("model,item,correct\nm,q1,1\n")
    result = runner.invoke(app, ["validity", "--outcomes", str(path)])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "a table needs the columns item_id and correct; missing: item_id" in text
    assert "Pass --outcome-format one of: openai-evals," in text and "format=" not in text
