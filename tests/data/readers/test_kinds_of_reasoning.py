from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.kinds_of_reasoning import KindsOfReasoningReader
from pfungst.errors import ReaderError

# task: (items, labels, gold counts in label order, named fields besides system and user)
TASKS = {
    "fantasy_reasoning": (197, ("no", "yes"), (126, 71), ()),
    "metaphor_boolean": (676, ("false", "true"), (416, 260), ("option_1", "option_2")),
    "anli": (3196, ("contradiction", "entailment", "neutral"), (1059, 1070, 1067), ("context", "hypothesis")),
    "space_nli": (1600, ("contradiction", "entailment", "neutral"), (490, 580, 530), ("premise", "hypothesis")),
    "babi_task_16": (4996, ("gray", "green", "white", "yellow"), (1208, 1244, 1240, 1304), ("context", "question")),
    "alpha_nli": (1528, ("a", "b"), (778, 750), ("context", "question", "option_A", "option_B")),
    "copa": (496, ("1", "2"), (250, 246), ("fact", "question", "option_1", "option_2")),
    "cosmos_qa": (
        2981,
        ("a", "b", "c", "d"),
        (743, 728, 760, 750),
        ("context", "question", "option_A", "option_B", "option_C", "option_D"),
    ),
}


@pytest.mark.parametrize("task", list(TASKS))
def test_each_task_has_its_count_label_set_and_fields(shared_data: Path, task: str) -> None:
    path = shared_data / "kindsofreasoning" / f"{task}.jsonl"
    assert detect_format(path) == "kinds-of-reasoning"
    benchmark = pfungst.load(path)
    n_items, labels, gold_counts, fields = TASKS[task]
    assert benchmark.provenance.format == "kinds-of-reasoning"
    assert benchmark.name == task
    assert len(benchmark) == benchmark.provenance.rows_read == n_items
    assert benchmark.option_kind == "shared_labels"
    assert benchmark.labels == labels
    assert tuple(benchmark.gold_counts.values()) == gold_counts
    assert benchmark.provenance.duplicate_texts == 0
    assert {tuple(item.fields) for item in benchmark} == {("system", "user", *fields)}
    assert all(item.text == item.fields["user"] for item in benchmark)


def test_copa_item_keeps_its_id_and_the_options_from_the_prompt(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "kindsofreasoning" / "copa.jsonl")
    first = benchmark[0]
    assert first.id == "605"
    assert first.text == (
        "Fact: The man's voice sounded hoarse.\nQuestion: what is the most plausible cause of this?"
        "\n1. He had a cold.\n2. He quit smoking."
    )
    assert first.options == ("1", "2") and first.answer == "1"
    assert first.fields["option_1"] == "He had a cold."
    assert first.fields["question"] == "what is the most plausible cause of this?"
    assert first.metadata["asks_for"] == "cause"


def test_fantasy_reasoning_labels_drop_the_full_stop_and_case(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "kindsofreasoning" / "fantasy_reasoning.jsonl")
    first = benchmark[0]
    assert first.id == "fantasy_reasoning.jsonl:1"
    assert first.text.startswith("When you're 28, science discovers a drug that stops all effects of aging")
    assert first.answer == "no"
    assert first.metadata["ideal"] == "No."
    assert first.metadata["comment"] == "implicit"
    assert first.fields["system"] == (
        "I will provide you with a question about a fantasy world. Answer with 'Yes' or 'No'."
    )


def test_anli_splits_context_and_hypothesis_for_hypothesis_only_baselines(shared_data: Path) -> None:
    first = pfungst.load(shared_data / "kindsofreasoning" / "anli.jsonl")[0]
    assert first.fields["context"].startswith('El gato con botas ("Puss in Boots", in English) is a 1961')
    assert first.fields["hypothesis"] == "The screenplay for El gato con botas was written by Charles Perrault."
    assert first.answer == "contradiction"
    assert first.metadata["genre"] == "wikipedia"


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def _record(user: str = "Is it?", ideal: object = "Yes") -> dict:
    return {
        "input": [{"role": "system", "content": "Answer Yes or No."}, {"role": "user", "content": user}],
        "ideal": ideal,
    }


def test_missing_ideal_names_file_line_and_field(tmp_path: Path) -> None:
    record = _record()
    del record["ideal"]
    path = _write(tmp_path / "toy.jsonl", [_record(), record])
    with pytest.raises(ReaderError, match=r"toy\.jsonl:2: field 'ideal': missing field 'ideal'"):
        pfungst.load(path, reader="kinds-of-reasoning")
    skipped = pfungst.load(path, reader="kinds-of-reasoning", on_error="skip")
    assert len(skipped) == 1 and len(skipped.provenance.rejected) == 1


def test_acceptable_answers_naming_two_labels_are_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "toy.jsonl", [_record(ideal=["Yes", "yes."]), _record("Or?", ideal=["Yes", "No"])])
    with pytest.raises(ReaderError, match=r"toy\.jsonl:2: field 'ideal': the acceptable answers .* name 2 different"):
        pfungst.load(path, reader="kinds-of-reasoning")


def test_prompt_without_a_user_message_names_the_input_field(tmp_path: Path) -> None:
    record = {"input": [{"role": "system", "content": "Answer."}], "ideal": "A"}
    path = _write(tmp_path / "toy.jsonl", [_record(), record])
    with pytest.raises(ReaderError, match=r"toy\.jsonl:2: field 'input': expected one user message, found 0"):
        pfungst.load(path, reader="kinds-of-reasoning")


def test_repeated_prompts_are_kept_and_counted(tmp_path: Path) -> None:
    path = _write(tmp_path / "toy.jsonl", [_record(), _record(ideal="No."), _record()])
    benchmark = pfungst.load(path, reader="kinds-of-reasoning")
    assert [item.answer for item in benchmark] == ["yes", "no", "yes"]
    assert benchmark.provenance.duplicate_texts == 2
    assert benchmark.provenance.conflicting_duplicates == 1


def test_sniff_rejects_evals_logs_and_other_json_lines(tmp_path: Path) -> None:
    reader = KindsOfReasoningReader()
    assert reader.sniff(_write(tmp_path / "ok.jsonl", [_record()]))
    log = {"spec": {"completion_fns": ["m"], "run_id": "r"}}
    assert not reader.sniff(_write(tmp_path / "log.jsonl", [log, _record()]))
    assert not reader.sniff(_write(tmp_path / "qa.jsonl", [{"question": "q", "choices": ["a", "b"], "answer": 0}]))
