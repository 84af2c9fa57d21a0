"""The model-side probes: choices-only, "None of the above" substitution, letter versus text, and CKLD, each on
planted data whose answer is known, through the Python API, the JSON, the console and the HTML report."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import pytest
from rich.console import Console
from scipy import stats as scipy_stats
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.data import Benchmark, Item
from pfungst.evaluate.outcome import Outcome
from pfungst.report.console_blocks import render_to_console
from pfungst.report.html import render_html
from pfungst.stress.metrics import selection_bias
from pfungst.stress.perturbations.choices_only.metric import ChoicesOnlyAccuracy
from pfungst.stress.perturbations.letter_text.metric import LetterTextAgreement
from pfungst.stress.perturbations.none_of_the_above.metric import NoneOfTheAboveEffect
from pfungst.stress.perturbations.none_of_the_above.variant import (
    NONE_OF_THE_ABOVE,
    assign_replacements,
    has_collective_option,
)
from pfungst.stress.stress_result import StressResult
from tests.evaluate.fakes import ScriptedModel

SMALL = {"cache": False, "n_bootstrap": 200}
PROBES = ("choices-only", "none-of-the-above", "letter-text")


def _options(context: str) -> tuple[str, dict[str, str]]:
    """The question line and ``label -> option text`` of a rendered ``mmlu`` prompt."""
    lines = context.split("\n")
    options = dict(re.match(r"([A-E])\. (.*)", line).groups() for line in lines if re.match(r"[A-E]\. ", line))
    return lines[0], options


def _reader(context: str) -> str:
    """The label a planted model answers: an option marked 'obviously' gives itself away; otherwise the option the
    question names ('pick X'); otherwise "None of the above" when it is shown; otherwise A."""
    question, options = _options(context)
    for label, text in options.items():
        if text.startswith("obviously"):
            return label
    for label, text in options.items():
        if f"pick {text}?" in question:
            return label
    for label, text in options.items():
        if text == NONE_OF_THE_ABOVE:
            return label
    return "A"


def _model(generate: str = " A") -> ScriptedModel:
    return ScriptedModel(
        next_token_script=lambda context, label: 0.0 if label.strip() == _reader(context) else -4.0,
        loglikelihood_script=lambda context, continuation: -len(continuation),
        generate_script=lambda prompt: generate,
    )


def _benchmark() -> Benchmark:
    """Twelve items, gold at positions 0-3 in turn; items 0-5 give the answer away in their options, items 6-11
    need the question; item 11 also offers 'All of the above'."""
    items = []
    for i in range(12):
        gold = i % 4
        options = [f"option {i}-{k}" for k in range(4)]
        if i < 6:
            options[gold] = f"obviously right {i}"
        if i == 11:
            options[(gold + 1) % 4] = "All of the above"
        items.append(Item(f"q{i}", f"Question {i}: pick {options[gold]}?", tuple(options), gold))
    return Benchmark("planted", tuple(items))


@pytest.fixture(scope="module")
def probed() -> StressResult:
    return pfungst.stress.stress(_benchmark(), _model(), perturbations=PROBES, rules=("letter", "generate"), **SMALL)


def test_choices_only_solves_exactly_the_items_whose_options_give_the_answer_away(probed: StressResult) -> None:
    result = probed.analysis(ChoicesOnlyAccuracy, perturbation="choices-only", rule="letter")
    # q0-q5 give it away; without a question the model answers A, right only for q8 (gold at A)
    assert result.solved == ("q0", "q1", "q2", "q3", "q4", "q5", "q8")
    assert result.accuracy.value == pytest.approx(7 / 12) and result.accuracy.baseline == 0.25
    assert result.accuracy.pvalue == pytest.approx(scipy_stats.binomtest(7, 12, 0.25, alternative="greater").pvalue)
    assert (result.majority_position, result.majority.value) == ("A", 0.25)  # gold spread evenly, ties to A
    assert result.versus_majority.value == pytest.approx(7 / 12 - 3 / 12)
    assert result.full_accuracy.value == 1.0 and result.crosstab == (7, 5, 0, 0)
    assert result.versus_full.value == pytest.approx(-5 / 12) and result.versus_full.pvalue == pytest.approx(1 / 16)


def test_choices_only_runs_under_every_rule_and_asks_the_plain_questions_once(probed: StressResult) -> None:
    rules = {a.rule for a in probed.analyses if a.perturbation == "choices-only"}
    assert rules == {"letter", "generate"}
    generate = probed.analysis(ChoicesOnlyAccuracy, perturbation="choices-only", rule="generate")
    assert generate.accuracy.value == 0.25 and generate.full_accuracy.value == 0.25  # " A" to everything
    plain_letter = [o for o in probed.outcomes if o.perturbation != "identity" and o.variant == "original"]
    assert {o.rule for o in plain_letter} == {"generate"}  # letter's plain questions are identity's


def test_none_of_the_above_costs_the_gold_half_everything_and_the_distractor_half_nothing(
    probed: StressResult,
) -> None:
    result = probed.analysis(NoneOfTheAboveEffect, perturbation="none-of-the-above", rule="letter")
    assert result.skipped == ("q11",)
    assert result.overall.n_items == 11 and result.gold_replaced.n_items == 5
    # With the gold gone the planted model picks "None of the above", the new gold: it reads content.
    assert result.gold_replaced.first_accuracy.value == 1.0 and result.gold_replaced.second_accuracy.value == 1.0
    assert result.distractor_replaced.difference.value == 0.0 and result.nota_chosen.value == 0.0
    assert any("1 items skipped" in warning for warning in probed.warnings)


def test_a_model_that_only_recognises_the_right_answer_fails_when_it_is_replaced() -> None:
    def recognise(context: str, label: str) -> float:
        if _options(context)[1].get(label.strip(), "").startswith("obviously"):
            return 0.0
        return -2.0 if label.strip() == "A" else -4.0

    recogniser = ScriptedModel(next_token_script=recognise)
    items = [
        Item(f"q{i}", f"Q{i}?", tuple("obviously right" if k == i % 4 else f"o{i}{k}" for k in range(4)), i % 4)
        for i in range(16)
    ]
    found = pfungst.stress.stress(
        Benchmark("b", tuple(items)), recogniser, perturbations=("none-of-the-above",), **SMALL
    )
    result = found.analysis(NoneOfTheAboveEffect, rule="letter")
    assert result.gold_replaced.n_items == 8 and result.gold_replaced.second_accuracy.value == 1.0
    assert result.gold_replaced.first_accuracy.value == 0.0  # it answers A; "None of the above" is D
    assert result.gold_replaced.difference.pvalue == pytest.approx(2 / 2**8)
    assert result.distractor_replaced.difference.value == 0.0


def test_the_substituted_half_is_seeded_and_collective_options_are_recognised() -> None:
    items = [Item(f"q{i}", "?", ("a", "b", "c"), i % 3) for i in range(10)]
    first, again, other = (assign_replacements(items, seed) for seed in (0, 0, 1))
    assert first == again and first != other
    assert sum(kind == "gold" for kind, _ in first.values()) == 5
    assert all(index != item.gold for item in items for kind, index in [first[item.id]] if kind == "distractor")
    for text, collective in (("None of the above", True), ("all of these", True), ("Both of them", True)):
        assert has_collective_option(Item("x", "?", ("a", text), 0)) is collective
    assert not has_collective_option(Item("x", "?", ("all mammals", "none"), 0))


def test_letter_and_text_agreement_with_its_cross_table(probed: StressResult) -> None:
    result = probed.analysis(LetterTextAgreement, perturbation="letter-text")
    # letter is right everywhere (gold at A, B, C, D in turn); generation always says A
    assert result.letter_accuracy.value == 1.0 and result.text_accuracy.value == 0.25
    assert result.agreement.value == 0.25 and result.agreement.baseline == pytest.approx(0.25)
    assert result.crosstab == tuple(tuple(3 if c == 0 else 0 for c in range(5)) for _ in range(4))
    assert result.labels == ("A", "B", "C", "D") and len(result.disagreements) == 9


def test_unparsed_generations_disagree_and_have_their_own_column() -> None:
    found = pfungst.stress.stress(_benchmark(), _model(generate="xyzzy"), perturbations=("letter-text",), **SMALL)
    result = found.analysis(LetterTextAgreement)
    assert result.n_unparsed == 12 and result.agreement.value == 0.0
    assert [row[-1] for row in result.crosstab] == [3, 3, 3, 3]


def _coded(gold: list[int], chosen: list[int]) -> list[Outcome]:
    return [
        Outcome(
            f"q{i}",
            "identity",
            "identity",
            "letter",
            "mmlu",
            (0, 1, 2, 3),
            ("A", "B", "C", "D"),
            g,
            c,
            c,
            "ok",
            (0.0,) * 4,
        )
        for i, (g, c) in enumerate(zip(gold, chosen, strict=True))
    ]


def test_ckld_sees_a_skewed_gold_distribution_that_rstd_misses() -> None:
    # gold at A for 16 items, at B, C, D for 8 each; the model picks each position equally often in every group
    gold = [0] * 16 + [1] * 8 + [2] * 8 + [3] * 8
    chosen = [k % 4 for k in range(16)] + [(k % 4) for k in range(8)] * 3
    bias = selection_bias(_coded(gold, chosen), seed=0, n_bootstrap=200)
    assert bias.rstd.value == pytest.approx(0.0) and bias.predicted == (10, 10, 10, 10)
    expected = 0.4 * math.log(0.4 / 0.25) + 3 * 0.2 * math.log(0.2 / 0.25)
    assert bias.ckld.value == pytest.approx(expected) and bias.ckld.baseline == 0.0
    assert bias.ckld.ci.low <= expected <= bias.ckld.ci.high


def test_ckld_of_a_model_that_always_answers_a_on_even_gold() -> None:
    gold = [k % 4 for k in range(40)]
    bias = selection_bias(_coded(gold, [0] * 40), seed=0, n_bootstrap=100)
    q = [40.5 / 42, 0.5 / 42, 0.5 / 42, 0.5 / 42]
    assert bias.rstd.value == pytest.approx(43.30127)
    assert bias.ckld.value == pytest.approx(sum(0.25 * math.log(0.25 / p) for p in q))
    right = selection_bias(_coded(gold, gold), seed=0, n_bootstrap=100)
    assert right.ckld.value == pytest.approx(0.0) and right.rstd.value == 0.0


def test_every_probe_round_trips_through_json_and_renders(probed: StressResult, tmp_path: Path) -> None:
    data = json.loads(json.dumps(probed.to_dict(items=True)))
    again = StressResult.from_dict(data)
    assert again.to_dict(items=True) == probed.to_dict(items=True)
    kinds = {a.kind for a in again.analyses}
    assert {"choices-only", "none-of-the-above", "letter-text"} <= kinds
    console = Console(file=io.StringIO(), width=140)
    render_to_console(again, console)
    shown = console.file.getvalue()
    assert "Choices-only accuracy against its baselines" in shown and "solved items: q0, q1" in shown
    assert "gold replaced: change" in shown and "letter \\ text" in shown and "CKLD" in shown
    page = render_html([again], plots=False)
    for title in ("Choices-only baseline", "None of the above substitution (WiCkeD)", "Letter versus text agreement"):
        assert title in page


def test_the_command_line_runs_the_probes_on_the_embedded_model(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from pfungst.errors import MissingDependency
    from pfungst.models.embedded import embedded_model_path

    try:
        embedded_model_path()
    except MissingDependency as exc:
        pytest.skip(str(exc))
    data = tmp_path / "tiny.jsonl"
    rows = [
        {"id": "sky", "text": "What colour is the sky?", "options": ["green", "blue", "red", "black"], "gold": 1},
        {"id": "sum", "text": "What is 2 + 2?", "options": ["3", "5", "6", "4"], "gold": 3},
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "probes.json"
    options = ["-p", "choices-only", "-p", "none-of-the-above", "-p", "letter-text", "--rules", "letter,generate"]
    result = CliRunner().invoke(
        app,
        [
            "stress",
            str(data),
            *options,
            "--threads",
            "1",
            "--n-bootstrap",
            "50",
            "--cache",
            str(tmp_path / "c.sqlite"),
            "--quiet",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text())
    names = [(a["name"], a["rule"]) for a in written["analyses"]]
    assert ("choices-only", "letter") in names and ("choices-only", "generate") in names
    assert ("none-of-the-above", "letter") in names and ("letter-text", "letter") in names
