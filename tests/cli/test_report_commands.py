"""``pfungst reliance`` and ``pfungst report`` from the command line, on a real (small) audit of a planted cue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.audit import AuditConfig
from pfungst.cli import app
from pfungst.data import make_synthetic
from pfungst.reliance import shortcut_items

runner = CliRunner()


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], list[str]]:
    """An audit JSON of the cue-word benchmark (hypothesis only), and its shortcut-solvable and other item ids."""
    folder = tmp_path_factory.mktemp("reliance")
    benchmark = make_synthetic("cue-word", n_items=150, seed=0).with_name("cue")
    config = AuditConfig(
        feature_sets=("1-grams_presence",),
        fields=("hypothesis",),
        n_bootstrap=100,
        n_permutations=100,
        heuristics=False,
        cues=False,
    )
    result = pfungst.audit.audit(benchmark, config)
    path = result.save_json(folder / "cue.audit.json", items=True)
    split = shortcut_items(result)
    solvable = [item for item, solved in split.solvable.items() if solved]
    rest = [item for item, solved in split.solvable.items() if not solved]
    return path, solvable, rest


def _outcomes(path: Path, solvable: list[str], rest: list[str]) -> Path:
    """Model 'hans' is right exactly on the solvable items; model 'steady' on every other item of both groups."""
    rows = ["model,item_id,correct,dataset"]
    rows += [f"hans-001,{item},1,cue" for item in solvable] + [f"hans-001,{item},0,cue" for item in rest]
    rows += [f"steady-001,{item},{index % 2},cue" for index, item in enumerate(solvable + rest)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_reliance_finds_the_model_that_is_right_only_where_the_shortcut_is(
    audited: tuple[Path, list[str], list[str]], tmp_path: Path
) -> None:
    audit_path, solvable, rest = audited
    assert len(solvable) > 20 and len(rest) > 20
    outcomes = _outcomes(tmp_path / "outcomes.csv", solvable, rest)
    out = tmp_path / "reliance.json"
    result = runner.invoke(app, ["reliance", str(audit_path), "--outcomes", str(outcomes), "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["schema_version"] == "pfungst.reliance/2"
    by_model = {row["model"]: row for row in data["models"]}
    assert by_model["hans-001"]["difference"]["value"] == pytest.approx(1.0)
    assert by_model["hans-001"]["difference"]["pvalue"] < 1e-6
    assert by_model["steady-001"]["difference"]["pvalue"] > 0.01
    assert "hans" in result.output and "steady" in result.output


def test_report_renders_audit_and_reliance_files_as_one_page(
    audited: tuple[Path, list[str], list[str]], tmp_path: Path
) -> None:
    audit_path, solvable, rest = audited
    reliance_json = tmp_path / "reliance.json"
    outcomes = _outcomes(tmp_path / "outcomes.csv", solvable, rest)
    assert (
        runner.invoke(
            app, ["reliance", str(audit_path), "--outcomes", str(outcomes), "--json", str(reliance_json)]
        ).exit_code
        == 0
    )
    for suffix in (".html", ".md", ".json"):
        out = tmp_path / f"report{suffix}"
        result = runner.invoke(app, ["report", str(audit_path), str(reliance_json), "-o", str(out)])
        assert result.exit_code == 0, result.output
        text = out.read_text()
        assert "hans-001" in text and "cue" in text


def test_report_of_a_file_that_is_no_result_exits_2(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}\n')
    result = runner.invoke(app, ["report", str(other), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "other.json" in result.output and "Traceback" not in result.output


def test_reliance_families_file_with_an_empty_field_exits_2_naming_the_line(
    audited: tuple[Path, list[str], list[str]], tmp_path: Path
) -> None:
    audit_path, solvable, rest = audited
    families = tmp_path / "families.csv"
    families.write_text("model,family\nhans-001,hans\nsteady-001,\n")
    outcomes = _outcomes(tmp_path / "outcomes.csv", solvable, rest)
    result = runner.invoke(app, ["reliance", str(audit_path), "--outcomes", str(outcomes), "--families", str(families)])
    assert result.exit_code == 2
    assert "families.csv:3" in result.output
