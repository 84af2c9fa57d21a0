"""The findings report: a summary table, each finding with its ids, every id in the CSV, honest wording."""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from pfungst.audit.result import AuditResult
from pfungst.audit.run import audit
from pfungst.data.item_findings import ItemFinding, ItemFindings
from pfungst.data.loading import load
from pfungst.errors import ConfigError
from pfungst.report import findings_frame, render_findings, write_findings
from tests.audit.planted import longest_in_half

PLANTED = tuple(f"half.jsonl:{row}" for row in range(1, 201, 2))
"""The items whose gold option is the unique longest."""


@pytest.fixture(scope="module")
def half(tmp_path_factory: pytest.TempPathFactory) -> AuditResult:
    """An audit of 200 items, the longest option gold in the odd rows, with two planted duplicate findings."""
    path = longest_in_half(tmp_path_factory.mktemp("half") / "half.jsonl", 200, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = audit(load(path), n_bootstrap=50, n_permutations=20, n_repeats=1, n_refits=0, cues=False)
    duplicates = ItemFinding.of(
        "exact-duplicate",
        "exact duplicates",
        ("half.jsonl:4", "half.jsonl:9"),
        200,
        groups=(("half.jsonl:4", "half.jsonl:9"),),
        breakdown={"within subject": 2},
        method="normalised question and options equal",
        fix="drop all but one copy",
    )
    empty = ItemFinding.of("empty-option", "empty options", (), 200, method="an empty option", fix="write it")
    return replace(result, item_findings=ItemFindings((duplicates, empty), 200, 0.8, 0))


def test_the_report_opens_with_the_headline_and_a_summary_row_per_finding(half: AuditResult) -> None:
    text = render_findings(half, csv_name="f.csv")
    assert text.startswith("# Item findings: half\n")
    assert f"**Headline:** {half.headline.sentence[:40]}" in text
    summary = text.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "| finding | items | share [exact interval] | chance would give | status | what to do |" in summary
    rows = {line.split("`")[1]: line for line in summary.splitlines() if line.startswith("| ") and "`" in line}
    assert set(rows) == {"options-only", "heuristic", "gold-position", "exact-duplicate", "empty-option"}
    assert "| 100 | 50.0% [" in rows["heuristic"] and "| 50.0 (25.0%) | **found**" in rows["heuristic"]
    assert "| 0 |" in rows["empty-option"] and "none found" in rows["empty-option"]
    assert "`f.csv`" in summary


def test_each_finding_lists_its_first_ids_evidence_method_command_and_fix(half: AuditResult) -> None:
    text = render_findings(half, command="pfungst audit half.jsonl --findings f.md")
    section = text.split("(`heuristic`)\n", 1)[1].split("\n## ", 1)[0]
    shown = [item.replace("\\", "") for item in section.split("**Items:** ", 1)[1].split(" (all", 1)[0].split(", ")]
    assert shown == list(PLANTED[:10]) and "(all 100 in the CSV)" in section
    assert "| half.jsonl:1 | longest_option picks " in section
    assert "**How it was found:** the zero-training heuristic 'longest_option'" in section
    assert "```bash\npfungst audit half.jsonl --findings f.md\n```" in section
    assert "**Fix:** rewrite the flagged items" in section
    duplicates = text.split("(`exact-duplicate`)\n", 1)[1]
    assert "2 of 200 items" in duplicates and "in 1 groups; within subject 2" in duplicates
    assert "(`empty-option`)\n" not in text  # no section for a finding that affects no item


def test_a_flag_at_chance_is_said_to_be_no_evidence_not_a_finding(half: AuditResult) -> None:
    assert half.item_flags is not None
    position = half.item_flags["gold-position"]
    assert position.certainty == "no evidence"  # the planted file shuffles the slots
    text = render_findings(half)
    row = next(line for line in text.splitlines() if "(`gold-position`)" in line and line.startswith("| "))
    assert row.endswith("| no evidence beyond chance | - |")
    assert "no evidence beyond chance. The ids are listed for completeness" in text


def test_the_csv_lists_every_id_of_every_finding(half: AuditResult, tmp_path: Path) -> None:
    markdown, csv = write_findings(half, tmp_path / "out" / "findings.md")
    assert csv == tmp_path / "out" / "findings.csv" and markdown.read_text().startswith("# Item findings")
    frame = pd.read_csv(csv, keep_default_na=False)
    assert list(frame.columns) == ["finding", "title", "item_id", "group", "evidence"]
    assert tuple(frame.loc[frame["finding"] == "heuristic", "item_id"]) == PLANTED
    flags = half.item_flags
    assert flags is not None
    for column in flags:
        assert tuple(frame.loc[frame["finding"] == column.code, "item_id"]) == flags.flagged_ids(column.code)
    duplicates = frame[frame["finding"] == "exact-duplicate"]
    assert list(duplicates["item_id"]) == ["half.jsonl:4", "half.jsonl:9"] and set(duplicates["group"]) == {1}
    assert frame.equals(findings_frame(half).astype({"group": "int64"}))


def test_paths_are_checked_before_anything_is_written(half: AuditResult, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--findings .*report\.txt: the findings report is Markdown"):
        write_findings(half, tmp_path / "report.txt")
    screen = tmp_path / "keys.csv"  # an input of that name: the report's CSV would overwrite it
    screen.write_text("not read\n")
    with pytest.raises(ConfigError, match=r"--findings \(its CSV\) .*keys\.csv: this is the input"):
        write_findings(half, tmp_path / "keys.md", validity=screen)
    assert screen.read_text() == "not read\n" and not (tmp_path / "keys.md").exists()
