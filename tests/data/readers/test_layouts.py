"""Common table layouts are read without a reader name or a mapping; a file that fits none still asks for one."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.errors import DataError


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_question_choices_answer_jsonl_with_index_letter_or_text_answers(tmp_path: Path) -> None:
    rows = [
        {"question": "2 + 2 =", "choices": ["3", "4", "5"], "answer": 1},
        {"question": "Sky?", "choices": ["blue", "red"], "answer": 0},
    ]
    for answers, name in (([1, 0], "index"), (["B", "A"], "letter"), (["4", "blue"], "text")):
        path = _jsonl(tmp_path / f"{name}.jsonl", [{**row, "answer": a} for row, a in zip(rows, answers, strict=True)])
        assert detect_format(path) == "jsonl"
        benchmark = pfungst.load(path)
        assert [item.text for item in benchmark] == ["2 + 2 =", "Sky?"]
        assert benchmark[0].options == ("3", "4", "5")
        assert [item.gold for item in benchmark] == [1, 0], name


def test_question_choices_answer_csv_with_an_index_answer_in_a_cell(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text('question,choices,answer\nFirst?,"[""x"", ""y"", ""z""]",2\nSecond?,"[""p"", ""q""]",0\n')
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "csv"
    assert benchmark[0].options == ("x", "y", "z") and [item.gold for item in benchmark] == [2, 0]


def test_hugging_face_mmlu_parquet_keeps_the_subject(tmp_path: Path) -> None:
    path = tmp_path / "mmlu.parquet"
    pd.DataFrame(
        {
            "question": ["Which is a prime?", "Capital of France?"],
            "subject": ["math", "geography"],
            "choices": [["4", "6", "7", "8"], ["Rome", "Paris", "Oslo", "Bern"]],
            "answer": [2, 1],
        }
    ).to_parquet(path)
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "parquet"
    assert [item.answer for item in benchmark] == ["7", "Paris"]
    assert benchmark[1].options == ("Rome", "Paris", "Oslo", "Bern")
    assert benchmark[0].metadata["subject"] == "math"


def test_arc_answer_keys_are_matched_against_the_choice_labels(tmp_path: Path) -> None:
    rows = [
        {"id": "q1", "question": "Hot?", "choices": {"text": ["ice", "fire"], "label": ["A", "B"]}, "answerKey": "B"},
        {
            "id": "q2",
            "question": "Wet?",
            "choices": {"text": ["sand", "rain", "dust"], "label": ["1", "2", "3"]},
            "answerKey": "2",
        },
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "arc.jsonl", rows))
    assert [item.id for item in benchmark] == ["q1", "q2"]
    assert benchmark[1].options == ("sand", "rain", "dust")
    assert [item.gold for item in benchmark] == [1, 1]


def test_arc_layout_in_parquet_reads_struct_choices(tmp_path: Path) -> None:
    path = tmp_path / "arc.parquet"
    pd.DataFrame(
        {
            "question": ["Cold?"],
            "choices": [{"text": ["snow", "sun", "lava"], "label": ["1", "2", "3"]}],
            "answerKey": ["1"],
        }
    ).to_parquet(path)
    benchmark = pfungst.load(path)
    assert benchmark[0].options == ("snow", "sun", "lava") and benchmark[0].gold == 0


def test_premise_hypothesis_label_is_a_shared_label_task(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("premise\thypothesis\tlabel\nA cat sleeps.\tAn animal rests.\t0\nA dog runs.\tA fish flies.\t2\n")
    benchmark = pfungst.load(path)
    assert benchmark.option_kind == "shared_labels" and benchmark.labels == ("0", "2")
    assert benchmark[0].text == "Premise: A cat sleeps.\nHypothesis: An animal rests."
    assert benchmark[1].fields == {"premise": "A dog runs.", "hypothesis": "A fish flies."}
    assert [item.answer for item in benchmark] == ["0", "2"]


def test_hellaswag_endings_with_a_string_index_label(tmp_path: Path) -> None:
    rows = [
        {"ctx": "She picks up the kettle and", "endings": ["flies.", "pours tea.", "sings.", "melts."], "label": "1"},
        {"ctx": "He opens the door and", "endings": ["walks in.", "dissolves.", "barks.", "wilts."], "label": "0"},
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "hellaswag.jsonl", rows))
    assert benchmark[0].text == "She picks up the kettle and"
    assert benchmark[0].options == ("flies.", "pours tea.", "sings.", "melts.")
    assert [item.answer for item in benchmark] == ["pours tea.", "walks in."]


def test_a_table_in_no_common_layout_still_asks_for_a_reader(tmp_path: Path) -> None:
    path = tmp_path / "mystery.csv"
    path.write_text("prompt_text,opts,k\nq,a,0\n")
    with pytest.raises(
        DataError,
        match=r"mystery\.csv: the format could not be detected: its columns \(prompt_text, "
        r"opts, k\) fit no common layout(.|\n)*Or pass --reader NAME",
    ):
        pfungst.load(path)


def test_a_mapping_still_wins_over_the_detected_layout(tmp_path: Path) -> None:
    rows = [{"question": "Which?", "choices": ["a", "b"], "answer": "b", "hint": "Pick b."}]
    benchmark = pfungst.load(_jsonl(tmp_path / "items.jsonl", rows), question="hint")
    assert benchmark[0].text == "Pick b." and benchmark[0].gold == 1
