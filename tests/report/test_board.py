"""The report's board and stress chapter show the verdict the stress run wrote: symbol, words and colour."""

from __future__ import annotations

import json

import pytest

import pfungst
from pfungst.blocks import STATUSES, Board, Text
from pfungst.report.document import build_report
from pfungst.report.html import render_html
from pfungst.report.markdown import render_markdown
from pfungst.stress.stress_result import StressResult
from tests.evaluate.fakes import ScriptedModel
from tests.stress.test_suite import FAST, _a_lover, _benchmark, _knows_the_answer

POSITION = ("identity", "cyclic", "answer-moved")


@pytest.fixture(scope="module")
def always_a() -> StressResult:
    return pfungst.stress.stress(_benchmark(), _a_lover(), perturbations=POSITION, **FAST)


def _board(result: object) -> Board:
    (board,) = [block for block in build_report([result]).sections[0].blocks if isinstance(block, Board)]
    return board


def test_the_board_row_of_a_model_that_always_answers_a_says_position_dependent(always_a: StressResult) -> None:
    # Read back from its JSON, as `pfungst report` reads a file.
    (row,) = _board(json.loads(json.dumps(always_a.to_dict()))).rows
    benchmark, model, verdict, headline, status = row
    assert status == "bad"
    assert verdict.startswith("position dependent;")
    assert "answer-moved gap 1.000 [1.000, 1.000], above 0.100" in headline


def test_the_html_board_shows_the_verdict_with_the_audit_rows_symbol_words_and_colour(always_a: StressResult) -> None:
    page = render_html([always_a])
    symbol, words, colour = STATUSES["bad"]
    assert f'<tr class="status-bad"><td class="status" data-label="status">{symbol} {words}</td>' in page
    assert colour in page
    assert (
        '<td class="verdict" data-label="verdict">position dependent; formats not measured; rules not measured</td>'
        in page
    )


def test_a_model_that_reads_the_options_has_an_ok_row() -> None:
    knower = pfungst.stress.stress(
        _benchmark(), ScriptedModel(next_token_script=_knows_the_answer), perturbations=POSITION, **FAST
    )
    (row,) = _board(knower).rows
    assert row[4] == "good" and row[2].startswith("no position dependence found")


def test_the_stress_chapter_opens_with_the_finding_in_one_sentence(always_a: StressResult) -> None:
    report = build_report([always_a])
    chapter = next(section for section in report.sections if section.title.startswith("Model stress:"))
    first = chapter.blocks[0]
    assert isinstance(first, Text) and first.tone == "bad"
    assert first.text == "Clever Hans: the score rides on where the answer sits, not on what it says."
    chapter_text = render_markdown([always_a]).split("## Model stress: scripted on toy\n")[1]
    assert chapter_text.lstrip("\n").startswith(f"> {first.text}\n")


def test_a_file_without_a_verdict_still_has_a_board_row(always_a: StressResult) -> None:
    written = always_a.to_dict()
    del written["verdict"]
    (row,) = _board(written).rows
    assert row[4] == "bad" and row[2].startswith("position dependent")


def test_a_full_input_audit_is_a_bad_row_unless_declared_and_a_partial_input_one_names_its_fields() -> None:
    from pfungst.data.synthetic import make_synthetic

    quick = {"n_bootstrap": 100, "n_permutations": 20, "n_repeats": 1, "cues": False}
    benchmark = make_synthetic("cue-word", 300)
    full = pfungst.audit.audit(benchmark, feature_sets=("1-grams_presence",), **quick)
    declared = pfungst.audit.audit(benchmark, feature_sets=("1-grams_presence",), lexical_task=True, **quick)
    partial = pfungst.audit.audit(benchmark, feature_sets=("1-grams_presence",), fields=("hypothesis",), **quick)
    (full_row,) = _board(full).rows
    (declared_row,) = _board(declared).rows
    (partial_row,) = _board(partial).rows
    assert full_row[2].startswith("Predictable from the full input: ") and full_row[4] == "bad"
    assert declared_row[2].startswith("Predictable from the full input, as this task expects (declared with")
    assert declared_row[4] == "warn"
    assert partial_row[2].startswith("Predictable from the partial input (hypothesis): ")
    assert partial_row[4] == "bad"
