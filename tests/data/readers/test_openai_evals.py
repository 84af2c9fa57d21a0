from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.openai_evals import OpenAIEvalsReader, read_model_answers
from pfungst.errors import ReaderError

MODELS = (
    "gpt-3.5-turbo-0125",
    "gpt-3.5-turbo-0301",
    "gpt-3.5-turbo-0613",
    "gpt-3.5-turbo-1106",
    "gpt-4-0125-preview",
    "gpt-4-0314",
    "gpt-4-0613",
    "gpt-4-1106-preview",
    "text-ada-001",
    "text-babbage-001",
    "text-curie-001",
    "text-davinci-001",
    "text-davinci-002",
    "text-davinci-003",
)
# task: (items, labels, duplicate texts, of which with a different label)
TASKS = {
    "causal_judgment": (186, ("no", "yes"), 2, 2),
    "moral_permissibility": (338, ("no", "yes"), 0, 0),
    "neubaroco": (371, ("contradiction", "entailment", "neutral"), 8, 0),
    "commonsense_qa_2": (2537, ("no", "yes"), 0, 0),
}
LOGS = [(task, model) for task in TASKS for model in MODELS]


@pytest.mark.parametrize(("task", "model"), LOGS)
def test_every_log_reads_its_task_counts_labels_and_duplicates(shared_data: Path, task: str, model: str) -> None:
    path = shared_data / "pacchiardi" / task / f"{model}.jsonl"
    benchmark = pfungst.load(path)
    n_items, labels, duplicates, conflicting = TASKS[task]
    assert benchmark.provenance.format == "openai-evals"
    assert benchmark.name == task
    assert len(benchmark) == benchmark.provenance.rows_read == n_items
    assert benchmark.option_kind == "shared_labels"
    assert benchmark.labels == labels
    assert benchmark.provenance.duplicate_texts == duplicates
    assert benchmark.provenance.conflicting_duplicates == conflicting
    assert benchmark.provenance.duplicate_ids == 0
    assert {item.metadata["model"] for item in benchmark} == {model}


def test_evals_logs_are_detected_as_openai_evals(shared_data: Path) -> None:
    assert detect_format(shared_data / "pacchiardi" / "neubaroco" / "gpt-4-0613.jsonl") == "openai-evals"
    assert detect_format(shared_data / "pacchiardi" / "causal_judgment" / "text-ada-001.jsonl") == "openai-evals"


def test_item_is_the_user_message_with_the_lower_cased_expected_label(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "pacchiardi" / "neubaroco" / "gpt-4-0613.jsonl")
    first = benchmark[0]
    assert first.id == "neubaroco.test.331"
    assert first.text == (
        "Premises: No student is a horse. Some human being is a student.\n"
        "Conclusion: Some horse is not a human being.\n"
    )
    assert first.answer == "neutral"
    assert first.fields["user"] == first.text
    assert first.fields["system"].startswith("I will provide you with a syllogism composed of two premises")
    assert first.metadata["expected"] == "neutral"
    causal = pfungst.load(shared_data / "pacchiardi" / "causal_judgment" / "gpt-4-0613.jsonl")
    assert causal[0].id == "causal_judgment.test.57"
    assert causal[0].text.startswith("A person, Joe, is playing a casino game")
    assert causal[0].answer == "yes"
    assert causal[0].metadata["expected"] == "Yes"
    assert causal.gold_counts == {"no": 89, "yes": 97}


def test_causal_judgment_keeps_its_two_repeated_prompts_with_opposite_labels(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "pacchiardi" / "causal_judgment" / "gpt-4-0613.jsonl")
    by_id = {item.id: item for item in benchmark}
    for first, second in (
        ("causal_judgment.test.91", "causal_judgment.test.109"),
        ("causal_judgment.test.137", "causal_judgment.test.147"),
    ):
        assert by_id[first].text == by_id[second].text
        assert by_id[first].answer != by_id[second].answer


@pytest.mark.parametrize("task", list(TASKS))
def test_completion_model_text_prompts_split_into_the_same_items_as_chat_prompts(shared_data: Path, task: str) -> None:
    def items(model: str) -> dict[str, tuple[str, str, str]]:
        benchmark = pfungst.load(shared_data / "pacchiardi" / task / f"{model}.jsonl")
        return {item.id: (item.text, item.fields["system"], item.answer) for item in benchmark}

    assert items("text-davinci-003") == items("gpt-4-0613")


def test_model_answers_parse_case_and_punctuation_that_evals_counted_wrong(shared_data: Path) -> None:
    answers = read_model_answers(shared_data / "pacchiardi" / "commonsense_qa_2" / "gpt-4-0613.jsonl")
    assert (answers.model, answers.task, answers.labels, len(answers)) == (
        "gpt-4-0613",
        "commonsense_qa_2",
        ("no", "yes"),
        2537,
    )
    first = answers.answers[0]
    assert (first.item_id, first.sampled, first.expected, first.parsed) == (
        "commonsense_qa_2.test.1736",
        "Yes",
        "yes",
        "yes",
    )
    assert first.correct and not first.evals_correct
    assert not any(a.evals_correct for a in answers.answers)  # expected is lower-case, the model capitalises
    assert answers.unparsed == 20
    by_id = {a.item_id: a for a in answers.answers}
    assert by_id["commonsense_qa_2.test.604"].sampled == "Not necessarily."
    assert by_id["commonsense_qa_2.test.604"].parsed == ""
    assert not by_id["commonsense_qa_2.test.604"].correct


def test_model_answers_agree_with_evals_when_case_and_whitespace_match(shared_data: Path) -> None:
    answers = read_model_answers(shared_data / "pacchiardi" / "causal_judgment" / "gpt-4-0613.jsonl")
    assert all(a.correct == a.evals_correct for a in answers.answers)
    assert answers.accuracy == pytest.approx(128 / 186)
    neubaroco = read_model_answers(shared_data / "pacchiardi" / "neubaroco" / "text-davinci-003.jsonl")
    leading_space = next(a for a in neubaroco.answers if a.item_id == "neubaroco.test.75")
    assert (leading_space.sampled, leading_space.parsed) == (" Entailment.", "entailment")
    assert leading_space.correct and not leading_space.evals_correct


def test_disagreements_with_evals_are_exactly_case_and_leading_whitespace(shared_data: Path) -> None:
    disagreements = 0
    for task, model in LOGS:
        answers = read_model_answers(shared_data / "pacchiardi" / task / f"{model}.jsonl")
        for answer in answers.answers:
            if answer.correct == answer.evals_correct:
                continue
            disagreements += 1
            assert answer.correct and not answer.evals_correct, answer
            assert answer.sampled.lstrip().lower().startswith(answer.expected), answer
    assert disagreements == 26349


def test_model_answers_frame_has_one_row_per_item(shared_data: Path) -> None:
    answers = read_model_answers(shared_data / "pacchiardi" / "moral_permissibility" / "gpt-4-0613.jsonl")
    frame = answers.to_frame()
    assert list(frame.columns) == ["model", "item_id", "sampled", "expected", "parsed", "correct", "evals_correct"]
    assert len(frame) == 338 and frame["item_id"].is_unique
    assert int((frame["parsed"] == "").sum()) == answers.unparsed == 158  # refusals
    assert answers.to_dict()["unparsed"] == 158
    assert json.dumps(answers.to_dict())


def _write_log(path: Path, events: list[dict]) -> Path:
    spec = {"spec": {"completion_fns": ["m"], "base_eval": "toy", "eval_name": "toy.test.v1", "run_id": "r"}}
    path.write_text("\n".join(json.dumps(e) for e in [spec, *events]) + "\n")
    return path


def _sampling(sample_id: str, user: str = "Is it?") -> dict:
    prompt = [{"role": "system", "content": "Answer Yes or No."}, {"role": "user", "content": user}]
    return {"sample_id": sample_id, "type": "sampling", "data": {"prompt": prompt, "sampled": ["Yes"]}}


def _match(sample_id: str, expected: object = "Yes") -> dict:
    return {"sample_id": sample_id, "type": "match", "data": {"expected": expected, "correct": True}}


def test_sampling_event_without_match_names_file_line_and_field(tmp_path: Path) -> None:
    path = _write_log(tmp_path / "log.jsonl", [_sampling("t.0"), _match("t.0"), _sampling("t.1")])
    with pytest.raises(
        ReaderError,
        match=r"log\.jsonl:4: field 'sample_id': the sampling event for 't\.1' has no "
        r"match event",
    ):
        pfungst.load(path, reader="openai-evals")
    skipped = pfungst.load(path, reader="openai-evals", on_error="skip")
    assert len(skipped) == 1 and skipped.provenance.rows_read == 2
    assert skipped.provenance.rejected[0].line == 4


def test_match_event_without_sampling_names_its_line(tmp_path: Path) -> None:
    path = _write_log(tmp_path / "log.jsonl", [_sampling("t.0"), _match("t.0"), _match("t.9")])
    with pytest.raises(
        ReaderError,
        match=r"log\.jsonl:4: field 'sample_id': the match event for 't\.9' has no "
        r"sampling event",
    ):
        pfungst.load(path, reader="openai-evals")


def test_missing_expected_answer_names_the_match_line(tmp_path: Path) -> None:
    path = _write_log(tmp_path / "log.jsonl", [_sampling("t.0"), _match("t.0", expected=None)])
    with pytest.raises(ReaderError, match=r"log\.jsonl:3: field 'data\.expected': expected one answer string"):
        read_model_answers(path)


def test_text_prompt_without_chat_turns_is_an_error(tmp_path: Path) -> None:
    sampling = {"sample_id": "t.0", "type": "sampling", "data": {"prompt": "just text", "sampled": ["Yes"]}}
    path = _write_log(tmp_path / "log.jsonl", [sampling, _match("t.0")])
    with pytest.raises(ReaderError, match=r"log\.jsonl:2: field 'data\.prompt'"):
        pfungst.load(path, reader="openai-evals")


def test_duplicate_prompts_in_a_small_log_are_counted(tmp_path: Path) -> None:
    events = [_sampling("t.0"), _match("t.0"), _sampling("t.1"), _match("t.1", expected="No")]
    benchmark = pfungst.load(_write_log(tmp_path / "log.jsonl", events), reader="openai-evals")
    assert [item.answer for item in benchmark] == ["yes", "no"]
    assert benchmark.provenance.duplicate_texts == 1
    assert benchmark.provenance.conflicting_duplicates == 1


def test_sniff_claims_evals_logs_only(tmp_path: Path) -> None:
    log = _write_log(tmp_path / "log.jsonl", [_sampling("t.0"), _match("t.0")])
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"input": [{"role": "user", "content": "x"}], "ideal": "A"}) + "\n")
    assert OpenAIEvalsReader().sniff(log)
    assert not OpenAIEvalsReader().sniff(other)
