"""One shortcut score per item, and accuracy split by it, on planted audits where every answer is known."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.errors import ConfigError
from pfungst.reliance import ModelOutcomes, RelianceResult, reliance, shortcut_table
from tests.reliance.audit_files import audit_file

IDS = [f"q{i}" for i in range(40)]
PROBE = set(IDS[:10])
"""The audit's best probe solves q0-q9."""
LONGEST = set(IDS[10:20])
"""The longest-option heuristic solves q10-q19 and abstains on q39."""
CLASSIFIER = set(IDS[5:15])
"""The classifier choices-only probe solves q5-q14 (overlapping both)."""
MODEL = set(IDS[20:25])
"""The model asked without the question solves q20-q24."""
ANY = PROBE | LONGEST | MODEL
"""q0-q24: solvable by some shortcut; q25-q39: by none (gold position solves nothing)."""


def _probe(name: str, solved: set[str]) -> dict:
    items = [
        {"item_id": item, "gold_class": "AB"[i % 2], "prediction": 0, "share_correct": float(item in solved)}
        for i, item in enumerate(IDS)
    ]
    return {"feature_set": name, "items": items, "kappa": {"value": 0.5, "pvalue": 0.001}, "chance": 0.25}


def _heuristic(name: str, solved: set[str], abstain: tuple[str, ...] = ()) -> dict:
    rows = [{"item_id": item, "gold": 0, "correct": None if item in abstain else item in solved} for item in IDS]
    return {"name": name, "items": rows}


def _audit() -> dict:
    """An audit dict as ``pfungst audit --json`` writes it (with items), its probes and heuristics planted."""
    return audit_file(
        "d",
        [_probe("options", PROBE), _probe("options_1-grams_presence", CLASSIFIER)],
        "options",
        [
            _heuristic("longest_option", LONGEST, abstain=("q39",)),
            _heuristic("gold_position", set()),
            _heuristic("shortest_option", set(IDS)),  # not a joined heuristic
        ],
    )


def _outcomes(model: str, right: set[str]) -> ModelOutcomes:
    return ModelOutcomes(model, "d", {item: item in right for item in IDS}, "test", "csv")


CHOICES_ONLY = [_outcomes("blind", MODEL)]


def test_the_table_joins_every_shortcut_and_scores_each_item() -> None:
    table = shortcut_table(_audit(), CHOICES_ONLY)
    assert table.shortcuts == (
        "probe:options",
        "probe:options_1-grams_presence",
        "heuristic:longest_option",
        "heuristic:gold_position",
        "model-choices-only:blind",
    )
    frame = table.to_frame().set_index("item_id")
    assert frame.loc["q7", "n_solving"] == 2 and frame.loc["q7", "score"] == pytest.approx(2 / 5)
    assert frame.loc["q22", "n_solving"] == 1
    assert frame.loc["q39", "n_shortcuts"] == 4  # the heuristic abstains: no verdict, not wrong
    assert frame["heuristic:longest_option"].isna().sum() == 1
    assert set(frame.index[frame["any_shortcut"]]) == ANY
    summary = table.summary()
    assert (summary.n_items, summary.n_any, summary.n_none) == (40, 25, 15)
    assert summary.score_counts == (15, 15, 10, 0, 0, 0)  # q0-4, q15-24 once; q5-14 twice
    assert summary.n_solving == (10, 10, 10, 0, 5)


def test_a_model_right_exactly_where_some_shortcut_works_shows_it_split_by_split() -> None:
    hans, steady = _outcomes("hans-1", ANY), _outcomes("steady-1", set(IDS[::2]))
    result = reliance([_audit()], [hans, steady], split="any-shortcut", choices_only=CHOICES_ONLY)
    by_model = {m.model: m for m in result.models}
    assert (by_model["hans-1"].n_solvable, by_model["hans-1"].n_rest) == (25, 15)
    assert by_model["hans-1"].difference.value == 1.0 and by_model["hans-1"].difference.pvalue < 1e-9
    assert by_model["steady-1"].difference.pvalue > 0.05
    frame = result.shortcuts_frame()
    hans_rows = frame[frame.model == "hans-1"].set_index("shortcut")
    assert hans_rows.loc["probe:options", "accuracy_solvable"] == 1.0
    assert hans_rows.loc["probe:options", "accuracy_rest"] == pytest.approx(15 / 30)
    assert math.isnan(hans_rows.loc["heuristic:gold_position", "difference"])  # solves nothing: one side empty
    assert hans_rows.loc["heuristic:longest_option", "n_rest"] == 29  # the abstained item is left out
    assert result.models_frame("model-choices-only:blind").shape[0] == 2
    assert not any("better than chance" in w for w in result.warnings)


def test_the_json_reads_back_with_the_table_and_each_shortcut(tmp_path: Path) -> None:
    result = reliance([_audit()], [_outcomes("hans-1", ANY)], split="any-shortcut", choices_only=CHOICES_ONLY)
    text = result.save_json(tmp_path / "r.json").read_text()
    assert "NaN" not in text
    data = json.loads(text)
    assert data["provenance"]["settings"]["split"] == "any-shortcut"
    assert data["shortcut_tables"][0]["n_any"] == 25
    back = RelianceResult.from_dict(data)
    assert back.shortcut_tables == result.shortcut_tables
    assert [b.shortcut for b in back.per_shortcut] == [b.shortcut for b in result.per_shortcut]
    assert back.per_shortcut[0].models[0].difference.value == result.per_shortcut[0].models[0].difference.value


def test_the_default_split_is_the_probe_and_choices_only_needs_the_table() -> None:
    result = reliance([_audit()], [_outcomes("hans-1", ANY)])
    assert result.models[0].n_solvable == 10 and not result.per_shortcut and not result.shortcut_tables
    with pytest.raises(ConfigError, match="any-shortcut"):
        reliance([_audit()], [_outcomes("hans-1", ANY)], choices_only=CHOICES_ONLY)
    with pytest.raises(ConfigError, match=r"split \(--split\) must be .probe. or .any-shortcut., not .every."):
        reliance([_audit()], [_outcomes("hans-1", ANY)], split="every")


def test_the_cli_splits_by_any_shortcut_with_a_stress_file(tmp_path: Path) -> None:
    """The stress file holds choices-only outcomes under two rules; the letter rule's are the column by default."""
    audit = tmp_path / "d.audit.json"
    audit.write_text(json.dumps(_audit()))
    outcomes = tmp_path / "o.csv"
    outcomes.write_text("model,item_id,correct,dataset\n" + "".join(f"hans-1,{i},{int(i in ANY)},d\n" for i in IDS))
    stress = tmp_path / "blind.jsonl"
    lines = [
        {
            "item_id": i,
            "perturbation": "choices-only",
            "variant": "choices only",
            "rule": "letter",
            "format": "f",
            "correct": i in MODEL,
        }
        for i in IDS
    ]
    lines += [
        {
            "item_id": i,
            "perturbation": "identity",
            "variant": "identity",
            "rule": "letter",
            "format": "f",
            "correct": True,
        }
        for i in IDS
    ]
    lines += [
        {**line, "rule": "cloze-raw", "correct": not line["correct"]}
        for line in lines
        if line["perturbation"] == "choices-only"
    ]
    stress.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "r.json"
    args = ["reliance", str(audit), "--outcomes", str(outcomes), "--shortcut-stress", str(stress), "--json", str(out)]
    args.append("--verbose")  # the shortcut table is a detail
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["models"][0]["n_solvable"] == 25
    assert "model-choices-only:blind" in data["shortcut_tables"][0]["shortcuts"]
    assert "One shortcut score per item" in result.output or "shortcuts joined per item" in result.output
