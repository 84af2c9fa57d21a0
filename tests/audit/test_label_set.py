"""A fixed label set written as per-item options is audited as shared labels: one task, one verdict, any layout."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.audit.run import AuditConfig, audit
from pfungst.cli import app
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError

runner = CliRunner()
FAST = AuditConfig(feature_sets=("1-grams_presence", "2-grams_tfidf"), n_bootstrap=200, n_permutations=200, n_repeats=1)
TASKS = ("fantasy_reasoning", "metaphor_boolean", "causal_judgment")
"""Imbalanced Yes. / No. in varying order; imbalanced True / False; Yes / No with repeated inputs."""


def _as_per_item_jsonl(task_json: Path, out: Path) -> Path:
    """The task as a user would convert it: one ``{id, question, choices, answer}`` line per example."""
    task = json.loads(task_json.read_text())
    with out.open("w") as handle:
        for index, example in enumerate(task["examples"]):
            scores = example["target_scores"]
            choices = list(scores)
            answer = max(range(len(choices)), key=lambda k: scores[choices[k]])
            record = {"id": f"{task['name']}:{index}", "question": example["input"], "choices": choices}
            handle.write(json.dumps({**record, "answer": answer}) + "\n")
    return out


@pytest.mark.parametrize("task", TASKS)
def test_a_bigbench_task_gets_the_same_audit_as_task_json_and_as_per_item_jsonl(
    task: str, shared_data: Path, tmp_path: Path, seed: int
) -> None:
    task_json = shared_data / "bigbench" / task / "task.json"
    shared = audit(pfungst.load(task_json), FAST, seed=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        per_item = audit(pfungst.load(_as_per_item_jsonl(task_json, tmp_path / f"{task}.jsonl")), FAST, seed=seed)
    assert per_item.verdict.to_dict() == shared.verdict.to_dict()
    # The same items in the same order with the same seed: every figure is equal, not only the verdict.
    assert _figures(per_item.to_dict()) == _figures(shared.to_dict())
    assert per_item.benchmark["option_kind"] == shared.benchmark["option_kind"] == "shared_labels"
    assert per_item.benchmark["labels"] == shared.benchmark["labels"]
    assert per_item.position_content is not None and per_item.position_content.position is None
    assert per_item.provenance.settings["label_set_detection"]["detected"]
    assert not shared.provenance.settings["label_set_detection"]["detected"]
    notices = [str(w.message) for w in caught if "fixed label set detected" in str(w.message)]
    assert notices and notices[0].startswith(f"benchmark '{task}': fixed label set detected")


def _figures(result: dict[str, Any]) -> dict[str, Any]:
    """A result's dict without what differs by source (data file, environment, detection record, run times)."""
    probes = [{key: value for key, value in probe.items() if key != "seconds"} for probe in result["probes"]]
    settings = {key: value for key, value in result["provenance"]["settings"].items() if key != "label_set_detection"}
    kept = {key: value for key, value in result.items() if key not in ("benchmark", "provenance")}
    return {**kept, "probes": probes, "settings": settings}


def _yes_no(n: int = 60) -> Benchmark:
    """Per-item Yes / No options in every item; 'sunny' marks the Yes items."""
    words = ("sunny", "rainy")
    items = [Item(f"q{i}", f"is it {words[i % 2]} on day {i}?", ("Yes", "No"), i % 2) for i in range(n)]
    return Benchmark("weather", tuple(items))


def test_the_detection_is_recorded_in_settings_and_provenance() -> None:
    with pytest.warns(UserWarning, match=r"pass --no-detect-label-set \(detect_label_set=False\)"):
        result = audit(_yes_no(), FAST, heuristics=False, cues=False)
    assert result.verdict.statistic == "kappa"
    assert result.provenance.settings["detect_label_set"] is True
    assert result.provenance.settings["label_set_detection"]["labels"] == ["Yes", "No"]
    assert "fixed label set detected" in result.provenance.data[0].steps[-1]


def test_detect_label_set_false_audits_the_options_per_item() -> None:
    result = audit(_yes_no(), FAST, heuristics=False, cues=False, detect_label_set=False)
    assert result.benchmark["option_kind"] == "per_item"
    assert result.verdict.statistic == "chance_corrected_accuracy"
    assert result.provenance.settings["label_set_detection"]["enabled"] is False


def test_an_option_level_feature_set_on_a_detected_label_set_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"benchmark 'weather': every item offers the same options \('Yes', 'No'\)"):
        audit(_yes_no(), FAST, feature_sets=("options",))


def test_the_cli_says_it_on_stderr_and_no_detect_label_set_turns_it_off(tmp_path: Path) -> None:
    data = _yes_no().save(tmp_path / "weather.jsonl")
    fast = ["--feature-set", "1-grams_presence", "--n-bootstrap", "50", "--n-permutations", "50", "--quiet"]
    detected = runner.invoke(app, ["audit", str(data), *fast, "--json", "-"])
    assert detected.exit_code == 0, detected.output
    assert "warning: benchmark 'weather': fixed label set detected" in " ".join(detected.stderr.split())
    assert json.loads(detected.stdout)["benchmark"]["option_kind"] == "shared_labels"
    kept = runner.invoke(app, ["audit", str(data), *fast, "--no-detect-label-set", "--json", "-"])
    assert kept.exit_code == 0, kept.output
    assert "fixed label set" not in kept.stderr
    assert json.loads(kept.stdout)["benchmark"]["option_kind"] == "per_item"
