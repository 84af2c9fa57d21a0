"""``run_demo``: the planted benchmarks, their audits and the stress run on ``gold-position`` (scripted models here;
the embedded model runs through ``pfungst demo`` in tests/test_cli.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pfungst.audit.run import AuditConfig
from pfungst.data.loading import load
from pfungst.demo import run_demo
from pfungst.errors import ConfigError
from tests.evaluate.fakes import ScriptedModel

# One cheap probe and no heuristics: these tests are about the stress part.
QUICK = AuditConfig(
    feature_sets=("1-grams_presence",),
    n_repeats=1,
    n_splits=2,
    n_bootstrap=50,
    n_permutations=20,
    heuristics=False,
    cues=False,
)
STRESSED = 8


def _always_a() -> ScriptedModel:
    """Prefers the label A whatever the options say."""
    return ScriptedModel(next_token_script=lambda context, candidate: 0.0 if candidate.strip() == "A" else -5.0)


def _reads_the_options(seed: int) -> ScriptedModel:
    """Prefers the label of the gold option's line: right whatever the order."""
    from pfungst.data.synthetic import make_synthetic

    gold = {item.text: item.options[item.gold] for item in make_synthetic("gold-position", 60, seed=seed)}

    def script(context: str, candidate: str) -> float:
        answer = next(text for question, text in gold.items() if question in context)
        return 0.0 if f"\n{candidate.strip()}. {answer}\n" in context else -5.0

    return ScriptedModel(next_token_script=script)


@pytest.mark.slow  # the whole demo: four audits and a stress run
def test_a_model_drawn_to_a_scores_the_share_of_items_with_gold_in_a_and_is_caught(tmp_path: Path, seed: int) -> None:
    result = run_demo(tmp_path, seed=seed, n_items=60, config=QUICK, stress_items=STRESSED, model=_always_a())
    in_a = sum(item.gold == 0 for item in load(tmp_path / "gold-position.jsonl")[:STRESSED])
    assert result.stress.accuracy.value == pytest.approx(in_a / STRESSED)
    moved = result.stress.analysis("answer-moved")
    assert [estimate.value for estimate in moved.per_slot] == [1.0, 0.0, 0.0, 0.0]
    assert result.stress.analysis("pride").debiased.n == STRESSED
    assert f"slot A for {in_a} of them, and the model answers A for {STRESSED}." in result.conclusion[0]
    assert result.conclusion[1].endswith("Clever Hans: the score rides on where the answer sits, not on what it says.")
    assert result.stress.verdict.status == "bad" and result.stress.verdict.label.startswith("position dependent;")
    page = result.report_path.read_text(encoding="utf-8")
    assert (
        '<tr class="status-bad"><td class="status" data-label="status">\u2716 problem</td>'
        '<td class="name" data-label="benchmark">gold-position</td>'
    ) in page


@pytest.mark.slow  # the whole demo: four audits and a stress run
def test_a_model_that_reads_the_options_is_not_flagged(tmp_path: Path, seed: int) -> None:
    model = _reads_the_options(seed)
    result = run_demo(tmp_path, seed=seed, n_items=60, config=QUICK, stress_items=STRESSED, model=model)
    assert result.stress.accuracy.value == 1.0
    assert result.stress.analysis("answer-moved").gap.value == 0.0
    # Its cloze-raw answers are ties (a caution on the rule spread); its position is what the demo is about.
    assert "No evidence that the score rides on where the answer sits" in result.conclusion[1]
    assert result.stress.verdict.label.startswith("no position dependence found;")


def test_the_stress_result_is_written_with_every_outcome_and_summarised_in_to_dict(tmp_path: Path, seed: int) -> None:
    result = run_demo(tmp_path, seed=seed, n_items=60, config=QUICK, stress_items=STRESSED, model=_always_a())
    assert result.stress_path == tmp_path / "gold-position.stress.json"
    written = json.loads(result.stress_path.read_text())
    # identity 1 + answer-moved 4 questions per item, and PriDe's 4 rotations of a quarter of the items
    assert len(written["outcomes"]) == STRESSED * (1 + 4) + STRESSED // 4 * 4
    assert {"name": "pride", "params": {"fraction": 0.25}} in written["provenance"]["settings"]["perturbations"]
    assert written["provenance"]["seed"] == seed
    summary = json.loads(json.dumps(result.to_dict()))
    assert summary["stress"]["result"]["n_items"] == STRESSED and "outcomes" not in summary["stress"]["result"]
    assert summary["conclusion"] == list(result.conclusion)
    assert sorted(summary["benchmarks"]) == ["control", "cue-word", "gold-position", "longest-option"]


def test_a_rerun_takes_every_answer_from_the_cache_in_the_output_folder(tmp_path: Path, seed: int) -> None:
    first = run_demo(tmp_path, seed=seed, n_items=60, config=QUICK, stress_items=STRESSED, model=_always_a())
    again = run_demo(tmp_path, seed=seed, n_items=60, config=QUICK, stress_items=STRESSED, model=_always_a())
    assert first.stress.counts.misses == first.stress.counts.unique_requests > 0
    assert (again.stress.counts.misses, again.stress.counts.hits) == (0, first.stress.counts.unique_requests)
    assert again.conclusion == first.conclusion


@pytest.mark.parametrize("count", [0, -3])
def test_stress_items_must_be_positive_and_is_checked_before_any_work(tmp_path: Path, count: int) -> None:
    with pytest.raises(
        ConfigError, match=rf"stress_items \(--stress-items\) must be a number of .* from 1 .* got {count}"
    ):
        run_demo(tmp_path / "demo", stress_items=count, model=_always_a())
    assert not (tmp_path / "demo").exists()


def test_the_planted_gold_position_shows_as_a_position_artifact_in_the_report_and_the_verdicts(
    tmp_path: Path, seed: int
) -> None:
    from pfungst.audit.summary_lines import verdict_line

    config = replace(QUICK, feature_sets=(), heuristics=True)  # the defaults: per-item ones are blind to slots too
    result = run_demo(tmp_path, seed=seed, n_items=60, config=config, stress_items=STRESSED, model=_always_a())
    in_a = sum(item.gold == 0 for item in load(tmp_path / "gold-position.jsonl"))
    sentence = f"gold is the first option (A) in {in_a} of 60 items (uniform: 15)"
    parts = result.audits["gold-position"].position_content
    assert parts is not None and parts.position is not None and parts.position.slot_pattern == sentence
    assert sentence in result.report_path.read_text(encoding="utf-8")
    line = verdict_line("gold-position", result.audits["gold-position"])
    assert f"content: {parts.content.label}; position artifact: {sentence}" in line


def _quick_cli_demo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *flags: str) -> str:
    """``pfungst demo`` on 60 items with the quick audit and a model drawn to A (the embedded one is slow); its
    standard output."""
    from typer.testing import CliRunner

    import pfungst.demo
    from pfungst.cli import app

    monkeypatch.setattr(
        pfungst.demo, "run_demo", lambda out, **kwargs: run_demo(out, **kwargs, config=QUICK, model=_always_a())
    )
    args = ["demo", "--out", str(tmp_path / "demo"), "--items", "60", "--stress-items", str(STRESSED), "--quiet"]
    result = CliRunner().invoke(app, [*args, *flags])
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())


def test_the_demo_prints_each_short_answer_and_where_it_wrote_and_every_table_only_with_verbose(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "demo"
    short = _quick_cli_demo(monkeypatch, tmp_path)
    for name in ("longest-option", "cue-word", "gold-position", "control"):
        assert f"Audit of {name} (60 items" in short and f"{name}: " in short.split("demo: verdicts")[1]
    assert f"Stress of scripted on gold-position ({STRESSED} items" in short
    assert (
        short.count("Clever Hans: the score rides on where the answer sits") == 2
    )  # the stress answer, the conclusion
    assert f"in {folder}/ (seed 0):" in short
    assert "benchmarks: longest-option.jsonl, cue-word.jsonl, gold-position.jsonl, control.jsonl" in short
    assert "stress run: gold-position.stress.json" in short and f"report: {folder / 'report.html'}" in short
    assert "rows read 60" not in short and "Surface-feature probes" not in short
    assert "In short" not in short

    every = _quick_cli_demo(monkeypatch, tmp_path, "--verbose")
    assert every.count("rows read 60, kept 60, rejected 0") == 4 and every.count("Surface-feature probes") == 4
    assert every.count("In short") == 5  # after each audit's tables and the stress run's
    assert f"report: {folder / 'report.html'}" in every
