"""The controls beside every verdict: the label-only baseline and the constant-answer check, planted and shown."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pfungst.audit import audit
from pfungst.audit.controls import GOLD_RECURRENCE_THRESHOLD, audit_controls
from pfungst.audit.result import AuditResult
from pfungst.data.benchmark import Benchmark
from pfungst.data.synthetic import make_synthetic
from pfungst.report.html import render_html
from pfungst.report.markdown import render_markdown

QUICK = {"n_bootstrap": 100, "n_permutations": 30, "n_repeats": 1, "cues": False}
TITLE = "The Famous Film"


def _recurring_gold(n_items: int = 200) -> Benchmark:
    """The synthetic control, but every item's gold option is the same string, never offered as a distractor."""
    base = make_synthetic("control", n_items, seed=4)
    items = tuple(
        replace(item, options=tuple(TITLE if k == item.gold else text for k, text in enumerate(item.options)))
        for item in base
    )
    return replace(base, name="recurring-gold", items=items)


def _balanced(n_items: int = 200) -> Benchmark:
    """Options drawn from one small pool, gold at random: every string is gold about once per three distractor uses."""
    base = make_synthetic("control", n_items, seed=5)
    rng = np.random.default_rng(5)
    pool = [f"answer {k}" for k in range(8)]
    items = tuple(replace(item, options=tuple(rng.choice(pool, 4, replace=False).tolist())) for item in base)
    return replace(base, name="balanced", items=items)


def _imbalanced_labels(n_items: int = 300) -> Benchmark:
    """The cue-word NLI benchmark with 70% of the gold labels set to its first label."""
    base = make_synthetic("cue-word", n_items, seed=6)
    items = tuple(replace(item, gold=0 if i % 10 < 7 else 1 + i % 2) for i, item in enumerate(base))
    return replace(base, items=items)


@pytest.fixture(scope="module")
def recurring() -> AuditResult:
    return audit(_recurring_gold(), feature_sets=("options_no_position",), **QUICK)


def test_a_gold_string_that_recurs_only_as_gold_is_flagged() -> None:
    check = audit_controls(_recurring_gold()).constant_answer
    assert check is not None
    assert check.flagged and check.recurrence_ratio > GOLD_RECURRENCE_THRESHOLD
    assert check.distinct_gold == 1 and check.top_coverage.value == 1.0
    top = check.top_gold[0]
    assert (top.text, top.as_gold, top.as_distractor) == (TITLE.casefold(), 200, 0)
    assert "RECUR AS GOLD FAR MORE THAN AS DISTRACTORS" in check.explanation


def test_gold_strings_that_recur_as_often_as_distractors_are_not_flagged() -> None:
    check = audit_controls(_balanced()).constant_answer
    assert check is not None
    assert check.distinct_gold == 8 and check.top_coverage.value == 1.0
    assert not check.flagged and 0.8 < check.recurrence_ratio < 1.25
    assert all(entry.as_distractor > entry.as_gold for entry in check.top_gold)


def test_the_label_only_baseline_of_an_imbalanced_shared_label_benchmark_is_its_majority_share() -> None:
    benchmark = _imbalanced_labels()
    controls = audit_controls(benchmark)
    prior = controls.label_only
    assert controls.constant_answer is None
    assert prior.majority == benchmark.labels[0]
    assert prior.majority_share.value == pytest.approx(0.7)
    assert prior.majority_share.ci is not None and prior.majority_share.ci.low < 0.7 < prior.majority_share.ci.high
    assert prior.constant_kappa.value == 0.0
    assert prior.prior_accuracy.value == pytest.approx(0.7)  # every training fold's majority is the first label
    assert prior.prior_score.value == pytest.approx(0.0)  # a constant answer: kappa 0


def test_the_audit_holds_its_controls_and_they_survive_the_json_round_trip(
    recurring: AuditResult, tmp_path: Path
) -> None:
    assert recurring.controls is not None and recurring.controls.constant_answer is not None
    assert recurring.controls.constant_answer.flagged
    path = recurring.save_json(tmp_path / "audit.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["controls"]["constant_answer"]["flagged"] is True
    assert AuditResult.from_dict(data, str(path)).controls == recurring.controls
    assert AuditResult.from_dict(recurring.to_dict()).controls == recurring.controls
    del data["controls"]
    assert AuditResult.from_dict(data, str(path)).controls is None


def test_the_html_and_markdown_reports_show_the_controls(recurring: AuditResult) -> None:
    html = render_html([recurring], plots=False)
    markdown = render_markdown([recurring]).replace("\\", "")
    for text in (html, markdown):
        assert "Controls" in text and "Label-only baseline" in text
        assert "GOLD STRINGS RECUR AS GOLD FAR MORE THAN AS DISTRACTORS" in text
        assert TITLE.casefold() in text
