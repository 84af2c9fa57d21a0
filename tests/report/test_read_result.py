"""``pfungst.read_result``: every result file back as its typed object, and a clear message for a wrong value."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import pfungst
from pfungst.audit.result import AuditResult
from pfungst.blocks import format_estimate
from pfungst.cli import app
from pfungst.data.summary import BenchmarkSummary
from pfungst.errors import ConfigError, ReaderError
from pfungst.evaluate.score_result import ScoreResult
from pfungst.reliance.result import RelianceResult
from pfungst.report.console_blocks import render_to_console
from pfungst.report.document import build_report
from pfungst.stress.comparison import StressComparison
from pfungst.stress.stress_result import StressResult

runner = CliRunner()


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    return path


def _json(data: Any) -> Any:
    """What a JSON file of ``data`` reads back as (NaN written as null, as ``save_json`` does)."""
    return json.loads(json.dumps(data, default=str).replace("NaN", "null"))


@pytest.mark.parametrize(
    ("name", "cls", "items"),
    [
        ("summary", BenchmarkSummary, None),
        ("audit", AuditResult, False),
        ("audit", AuditResult, True),
        ("score", ScoreResult, False),
        ("score", ScoreResult, True),
        ("reliance", RelianceResult, None),
    ],
)
def test_read_result_gives_back_the_object_that_wrote_the_file(
    demo_objects: dict[str, Any], tmp_path: Path, name: str, cls: type, items: bool | None
) -> None:
    original = demo_objects[name]
    written = _json(original.to_dict() if items is None else original.to_dict(items=items))
    read = pfungst.read_result(_write(tmp_path / f"{name}.json", written))
    assert isinstance(read, cls)
    again = read.to_dict() if items is None else read.to_dict(items=items)
    assert _json(again) == written


def test_read_result_gives_back_stress_runs_and_their_comparison_typed_not_as_dicts(
    demo_objects: dict[str, Any], tmp_path: Path
) -> None:
    stressed = _json(demo_objects["stress"][0].to_dict())
    comparison = {
        "schema_version": "pfungst.stress-comparison/1",
        "kind": "stress-comparison",
        "results": [_json(r.to_dict()) for r in demo_objects["stress"]],
        "rank_stability": _json(demo_objects["ranks"].to_dict()),
    }
    for name, data, cls in (("stress", stressed, StressResult), ("comparison", comparison, StressComparison)):
        read = pfungst.read_result(_write(tmp_path / f"{name}.json", data))
        assert isinstance(read, cls), f"{name}: read back as {type(read).__name__}, expected {cls.__name__}"
        assert _json(read.to_dict()) == data
    read = pfungst.read_result(tmp_path / "comparison.json")
    assert all(isinstance(result, StressResult) for result in read.results)
    assert [result.model for result in read.results] == [result.model for result in demo_objects["stress"]]


STRESS_WRONG = [
    (
        lambda d: d["accuracies"][0]["accuracy"].update(value="half"),
        r"stress\.json: field 'accuracies\[0\]\.accuracy\.value': expected a number, found 'half'",
    ),
    (lambda d: d["counts"].update(hits=1.5), r"stress\.json: field 'counts\.hits': expected a whole number"),
    (lambda d: d.update(seed="zero"), r"stress\.json: field 'seed': expected a whole number, found 'zero'"),
    (
        lambda d: d["rank_stability"].update(seed="zero"),
        r"comparison\.json: field 'rank_stability\.seed': expected a whole number, found 'zero'",
    ),
]


@pytest.mark.parametrize(("change", "message"), STRESS_WRONG)
def test_a_wrong_value_in_a_stress_run_or_comparison_is_named_by_file_and_field_path(
    demo_objects: dict[str, Any], tmp_path: Path, change: Any, message: str
) -> None:
    runs = demo_objects["stress"]
    comparison = StressComparison(tuple(runs), demo_objects["ranks"])
    data, name = (
        (_json(comparison.to_dict()), "comparison")
        if "rank_stability" in message
        else (_json(runs[0].to_dict()), "stress")
    )
    change(data)
    with pytest.raises(ReaderError, match=message):
        pfungst.read_result(_write(tmp_path / f"{name}.json", data))


def test_a_wrong_value_inside_an_analysis_is_named_by_its_path_in_the_stress_file(
    demo_objects: dict[str, Any], tmp_path: Path
) -> None:
    data = _json(demo_objects["stress"][0].to_dict())
    number = next(n for n, entry in enumerate(data["analyses"]) if entry["kind"] == "answer-moved")
    data["analyses"][number]["result"]["gap"]["value"] = "wide"
    message = rf"stress\.json: field 'analyses\[{number}\]\.result\.gap\.value': expected a number, found 'wide'"
    with pytest.raises(ReaderError, match=message):
        pfungst.read_result(_write(tmp_path / "stress.json", data))


def _audit_with(demo_objects: dict[str, Any], change: Any) -> dict[str, Any]:
    data = _json(demo_objects["audit"].to_dict())
    change(data)
    return data


WRONG = [
    (
        "audit",
        lambda d: d["probes"][0]["kappa"].update(value="zero point five"),
        r"audit\.json: field 'probes\[0\]\.kappa\.value': expected a number, found 'zero point five'",
    ),
    ("audit", lambda d: d.update(probes="all of them"), r"field 'probes': expected a list, found 'all of them'"),
    ("audit", lambda d: d.update(verdict=None), r"field 'verdict': expected an object, found null"),
    (
        "audit",
        lambda d: d["verdict"].update(feature_set="nothing"),
        r"field 'verdict\.feature_set': 'nothing' names no probe",
    ),
    ("score", lambda d: d.update(accuracy="0.5"), r"score\.json: field 'accuracy': expected an object, found '0\.5'"),
    (
        "score",
        lambda d: d["accuracy"].update(value="zero point five"),
        r"field 'accuracy\.value': expected a number, found 'zero point five'",
    ),
    ("score", lambda d: d.update(counts=[1, 2]), r"field 'counts': expected an object, found a list"),
    ("summary", lambda d: d["gold_counts"].update(A="3"), r"field 'gold_counts\.A': expected a whole number"),
    ("summary", lambda d: d["benchmark"].update(n_items=[48]), r"field 'benchmark\.n_items': expected a whole"),
    ("reliance", lambda d: d["models"][0].update(n_solvable=2.5), r"field 'models\[0\]\.n_solvable': expected a whole"),
    ("reliance", lambda d: d["families"][0].update(rejected="yes"), r"field 'families\[0\]\.rejected': expected true"),
]


@pytest.mark.parametrize(("name", "change", "message"), WRONG)
def test_a_value_of_the_wrong_type_is_named_by_file_and_field_path(
    demo_objects: dict[str, Any], tmp_path: Path, name: str, change: Any, message: str
) -> None:
    data = copy.deepcopy(_json(demo_objects[name].to_dict()))
    change(data)
    with pytest.raises(ReaderError, match=message):
        pfungst.read_result(_write(tmp_path / f"{name}.json", data))


IMPOSSIBLE = [
    (
        "score",
        lambda d: d["accuracy"]["ci"].update(low=0.8, high=0.2),
        r"score\.json: field 'accuracy\.ci': low 0\.8 is above high 0\.2",
    ),
    ("score", lambda d: d["accuracy"].update(n=-3), r"field 'accuracy\.n': a count cannot be negative, found -3"),
    ("score", lambda d: d["accuracy"].update(value=1.5), r"field 'accuracy\.value': an accuracy of 1\.5 is outside"),
    (
        "score",
        lambda d: d["accuracy"].update(value=float("nan")),
        r"'accuracy\.value': expected a finite number or null",
    ),
    ("score", lambda d: d["accuracy"]["ci"].update(high=float("inf")), r"'accuracy\.ci\.high': expected a finite"),
    (
        "audit",
        lambda d: d["probes"][0]["kappa"].update(pvalue=2.5),
        r"'probes\[0\]\.kappa\.pvalue': 2\.5 is outside \[0, 1\]",
    ),
    ("reliance", lambda d: d["families"][0].update(qvalue=-0.1), r"'families\[0\]\.qvalue': -0\.1 is outside \[0, 1\]"),
    (
        "reliance",
        lambda d: d["models"][0].update(n_solvable=-2),
        r"'models\[0\]\.n_solvable': a count cannot be negative",
    ),
]


@pytest.mark.parametrize(("name", "change", "message"), IMPOSSIBLE)
def test_an_impossible_value_is_named_by_file_and_field_path(
    demo_objects: dict[str, Any], tmp_path: Path, name: str, change: Any, message: str
) -> None:
    data = copy.deepcopy(_json(demo_objects[name].to_dict()))
    change(data)
    with pytest.raises(ReaderError, match=message):
        pfungst.read_result(_write(tmp_path / f"{name}.json", data))


def test_report_on_the_same_result_twice_exits_2_naming_both_paths(
    demo_objects: dict[str, Any], tmp_path: Path
) -> None:
    first = _write(tmp_path / "score.json", _json(demo_objects["score"].to_dict()))
    copied = tmp_path / "copy.json"
    copied.write_bytes(first.read_bytes())
    for pair in ([first, first], [first, copied]):
        result = runner.invoke(app, ["report", *map(str, pair), "-o", str(tmp_path / "report.html")])
        assert result.exit_code == 2, result.output
        text = " ".join(result.output.split())
        assert f"{pair[1]}: same content as {first}" in text
        assert not (tmp_path / "report.html").exists()


def test_report_on_a_file_with_a_wrong_type_exits_2_naming_the_field(
    demo_objects: dict[str, Any], tmp_path: Path
) -> None:
    data = _json(demo_objects["score"].to_dict())
    data["accuracy"]["value"] = "zero point five"
    path = _write(tmp_path / "score.json", data)
    result = runner.invoke(app, ["report", str(path), "-o", str(tmp_path / "report.html")])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "score.json: field 'accuracy.value': expected a number, found 'zero point five'" in text
    assert "Traceback" not in result.output and not (tmp_path / "report.html").exists()


def test_json_nested_a_thousand_deep_is_a_clear_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"schema_version": "pfungst.audit/3", "settings": ' + "[" * 1000 + "]" * 1000 + "}")
    with pytest.raises(ReaderError, match=r"deep\.json(:1)?: .*nested deeper than \d+ levels"):
        pfungst.read_result(path)
    result = runner.invoke(app, ["report", str(path), "-o", str(tmp_path / "report.html")])
    assert result.exit_code == 2 and "deep.json" in result.output and "Traceback" not in result.output
    shallow = '{"schema_version": "pfungst.audit/3", "settings": ' + "[" * 100 + "]" * 100 + "}"
    path.write_text(shallow)  # parses, but deeper than any result: refused before anything walks it
    with pytest.raises(ReaderError, match=r"deep\.json: field 'settings(\[0\])+': nested deeper than 64 levels"):
        pfungst.read_result(path)


def test_an_old_or_unknown_kind_says_which_kinds_are_known(tmp_path: Path) -> None:
    for version in ("pfungst.audit/0", "pfungst.timeline/1", "pfungst.report/1"):
        path = _write(tmp_path / "old.json", {"schema_version": version})
        with pytest.raises(ConfigError, match=rf"old\.json: unknown schema_version '{version}'\. Known: .*score/2"):
            pfungst.read_result(path)


def test_console_prints_every_interval_whole_even_in_a_narrow_log(demo_objects: dict[str, Any]) -> None:
    console = Console(file=io.StringIO(), width=60)
    render_to_console(demo_objects["audit"], console)
    render_to_console(demo_objects["reliance"], console)
    printed = console.file.getvalue()
    assert "verdict: predictable" in " ".join(printed.split())
    for probe in demo_objects["audit"].probes:
        estimate = getattr(probe, demo_objects["audit"].verdict.statistic)  # the verdict's statistic, named once
        assert format_estimate(estimate) in printed and probe.feature_set in printed
    for pair in demo_objects["reliance"].models:
        assert format_estimate(pair.difference) in printed


def test_board_opens_the_report_with_one_row_per_benchmark_and_model(demo_results: list[dict[str, Any]]) -> None:
    overview = build_report(demo_results).sections[0]
    assert overview.title == "Overview"
    board = overview.blocks[0].to_dict()
    assert board["kind"] == "board" and board["columns"][0] == "status"
    rows = {(row[2], row[3]): row for row in board["rows"]}
    audit_row = rows[("gold-position", "(data)")]
    headline = demo_results[1]["headline"]  # the audit's row is its headline: its sentence, in its status's words
    assert audit_row[4] == headline["sentence"] and audit_row[0] == headline["status"]
    data_rows = [row for row in board["rows"] if row[3] == "(data)"]  # the summary's row folds into the audit's
    assert len(data_rows) == 1 and demo_results[0]["benchmark"]["name"] == "gold-position"
    assert format_estimate(demo_results[0]["majority"]) in audit_row[5]
    assert {("gold-position", "prefers-A"), ("gold-position", "prefers-C"), ("gold-position", "scripted")} <= set(rows)
    assert all(row[1].split()[0] in "\u2716\u25b2\u2714\u25cf" for row in board["rows"])  # a symbol with each colour
