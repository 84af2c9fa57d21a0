"""The stress verdict: position dependence, format and rule spread, each against its named threshold."""

from __future__ import annotations

import json

import pytest

import pfungst
from pfungst.errors import ReaderError
from pfungst.stats import ConfidenceInterval, Estimate
from pfungst.stress.analysis import Analysis
from pfungst.stress.perturbations.formats.metric import FormatSpread
from pfungst.stress.stress_result import StressResult
from pfungst.stress.verdict import FORMAT_SPREAD_THRESHOLD, judge
from tests.evaluate.fakes import ScriptedModel
from tests.stress.test_suite import FAST, _a_lover, _benchmark, _knows_the_answer

POSITION = ("identity", "cyclic", "answer-moved")


@pytest.fixture(scope="module")
def always_a() -> StressResult:
    """The A-lover (answers A on every item, whatever the options say) with every position perturbation."""
    return pfungst.stress.stress(_benchmark(), _a_lover(), perturbations=POSITION, **FAST)


def test_a_model_that_always_answers_a_is_judged_position_dependent(always_a: StressResult) -> None:
    verdict = always_a.verdict
    assert verdict.status == "bad"
    assert verdict.label.startswith("position dependent;")
    assert verdict.finding == "Clever Hans: the score rides on where the answer sits, not on what it says."
    assert verdict.headline == "answer-moved gap 1.000 [1.000, 1.000], above 0.100"
    checks = {check.name: check for check in verdict.checks}
    assert checks["answer-moved gap"].status == "bad" and checks["answer-moved gap"].estimate.value == 1.0
    assert checks["RStd by position"].status == "bad"
    assert checks["RStd by position"].estimate.value == pytest.approx(43.30127018922193)


def test_the_verdict_is_written_to_json_and_read_back(always_a: StressResult) -> None:
    written = json.loads(json.dumps(always_a.to_dict()))
    assert written["verdict"]["label"].startswith("position dependent")
    assert written["verdict"]["status"] == "bad"
    back = StressResult.from_dict(written)
    assert back.verdict == always_a.verdict


def test_a_file_without_a_verdict_is_judged_when_read(always_a: StressResult) -> None:
    written = always_a.to_dict()
    del written["verdict"]
    assert StressResult.from_dict(written).verdict == always_a.verdict


def test_a_model_that_reads_the_options_is_judged_free_of_position_dependence() -> None:
    knower = ScriptedModel(next_token_script=_knows_the_answer)
    verdict = pfungst.stress.stress(_benchmark(), knower, perturbations=POSITION, **FAST).verdict
    assert verdict.status == "good"
    assert verdict.label == "no position dependence found; formats not measured; rules not measured"
    assert verdict.finding == "No evidence that the score rides on where the answer sits."
    assert {check.status for check in verdict.checks if check.aspect == "position"} == {"good"}


def test_checks_whose_perturbation_did_not_run_are_not_measured() -> None:
    verdict = judge((), ())
    assert verdict.status == "info"
    assert verdict.label == "position not measured; formats not measured; rules not measured"
    assert verdict.finding.startswith("Whether the score rides on where the answer sits was not measured")
    assert {check.status for check in verdict.checks} == {"info"}
    assert all(check.estimate.method.startswith("not measured: run the") for check in verdict.checks)


def _spread(value: float, low: float, high: float) -> Analysis:
    estimate = Estimate(value, "paired bootstrap", 40, ConfidenceInterval(low, high))
    return Analysis("formats", "letter", FormatSpread((), estimate, "format 1", "format 2", 3))


@pytest.mark.parametrize(
    ("value", "low", "status", "words"),
    [
        (0.30, 0.15, "bad", "format sensitive"),
        (0.15, 0.02, "warn", "possibly format sensitive"),
        (0.05, -0.05, "good", "no format sensitivity found"),
    ],
)
def test_a_spread_is_a_problem_when_its_interval_clears_the_threshold_and_a_caution_when_its_value_does(
    value: float, low: float, status: str, words: str
) -> None:
    verdict = judge((), (_spread(value, low, value + 0.1),))
    (check,) = [check for check in verdict.checks if check.aspect == "format"]
    assert (check.status, check.threshold) == (status, FORMAT_SPREAD_THRESHOLD)
    assert words in verdict.label.split("; ")
    assert verdict.status == status
    if status != "good":
        assert verdict.finding.endswith(f"and the model is {words}.")


def test_a_file_with_an_unknown_verdict_status_names_the_field(always_a: StressResult) -> None:
    written = always_a.to_dict()
    written["verdict"]["status"] = "fine"
    with pytest.raises(
        ReaderError, match=r"stress\.json: field 'verdict\.status': expected one of bad, warn, good, info, found 'fine'"
    ):
        StressResult.from_dict(written, source="stress.json")
