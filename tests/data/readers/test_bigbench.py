from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.bigbench import BigBenchReader
from pfungst.errors import ReaderError

# task path: (items, labels (shared) or None (per item), option counts, duplicate texts, of which conflicting)
TASKS = {
    "fantasy_reasoning": (201, ("Yes.", "No."), {2: 201}, 0, 0),
    "moral_permissibility": (342, ("Yes", "No"), {2: 342}, 0, 0),
    "causal_judgment": (190, ("Yes", "No"), {2: 190}, 2, 2),
    "metaphor_boolean": (680, ("True", "False"), {2: 680}, 0, 0),
    "logical_deduction/three_objects": (300, None, {3: 300}, 200, 200),
    "logical_deduction/five_objects": (500, None, {5: 500}, 400, 400),
    "navigate": (1000, ("True", "False"), {2: 1000}, 0, 0),
    "strategyqa": (2290, ("Yes", "No"), {2: 2290}, 1, 0),
    "snarks": (181, ("(a)", "(b)"), {2: 181}, 0, 0),
    "date_understanding": (369, None, {5: 58, 6: 311}, 0, 0),
}


@pytest.mark.parametrize("task", list(TASKS))
def test_each_task_file_has_its_count_options_and_duplicates(shared_data: Path, task: str) -> None:
    path = shared_data / "bigbench" / task / "task.json"
    assert detect_format(path) == "bigbench"
    benchmark = pfungst.load(path)
    n_items, labels, option_counts, duplicates, conflicting = TASKS[task]
    assert benchmark.provenance.format == "bigbench"
    assert benchmark.name == task.split("/")[-1]
    assert len(benchmark) == benchmark.provenance.rows_read == n_items
    assert benchmark.option_kind == ("per_item" if labels is None else "shared_labels")
    assert benchmark.labels == (labels or ())
    assert benchmark.option_counts == option_counts
    assert benchmark.provenance.duplicate_texts == duplicates
    assert benchmark.provenance.conflicting_duplicates == conflicting
    assert [item.id for item in benchmark][:2] == [f"{benchmark.name}:0", f"{benchmark.name}:1"]


def test_logical_deduction_folder_concatenates_its_subtasks(shared_data: Path) -> None:
    path = shared_data / "bigbench" / "logical_deduction"
    assert detect_format(path) == "bigbench"
    benchmark = pfungst.load(path)
    assert benchmark.name == "logical_deduction"
    assert len(benchmark) == 800
    assert benchmark.option_kind == "per_item"
    assert benchmark.option_counts == {3: 300, 5: 500}
    assert [item.metadata["subtask"] for item in benchmark].count("three_objects") == 300
    assert benchmark.provenance.duplicate_ids == 0
    first = benchmark[0]
    assert (first.id, first.metadata["subtask"]) == ("five_objects:0", "five_objects")
    assert first.text.startswith("On a shelf, there are five books: a gray book, a red book, a purple book")
    assert first.answer == "The black book is the leftmost."
    assert first.metadata["task_prefix"].startswith("The following paragraphs each describe a set of five objects")


def test_task_folder_reads_like_its_task_file(shared_data: Path) -> None:
    folder = pfungst.load(shared_data / "bigbench" / "causal_judgment")
    assert len(folder) == 190 and folder.name == "causal_judgment"
    assert folder.provenance.source.endswith("task.json")


def test_causal_judgment_item_has_text_options_gold_and_task_prefix(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "bigbench" / "causal_judgment" / "task.json")
    first = benchmark[0]
    assert first.text.startswith("The CEO of a company is sitting in his office when his Vice President of R&D")
    assert first.options == ("Yes", "No") and first.answer == "Yes"
    assert first.metadata["task_prefix"] == (
        "How would a typical person answer each of the following questions about causation?\n\n"
    )
    assert first.metadata["source_line"] == 20
    assert benchmark.gold_counts == {"Yes": 99, "No": 91}


def test_per_item_options_keep_target_scores_order(shared_data: Path) -> None:
    first = pfungst.load(shared_data / "bigbench" / "date_understanding" / "task.json")[0]
    assert first.text == "Yesterday was April 30, 2021. What is the date today in MM/DD/YYYY?"
    assert first.options == ("05/01/2021", "02/23/2021", "03/11/2021", "05/09/2021", "06/12/2021", "04/29/2021")
    assert first.gold == 0


def test_shared_labels_allow_options_in_another_order(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "bigbench" / "fantasy_reasoning" / "task.json")
    assert benchmark.gold_counts == {"Yes.": 72, "No.": 129}


def _write_task(path: Path, examples: list[dict], **settings: object) -> Path:
    path.write_text(json.dumps({"name": "toy", **settings, "examples": examples}, indent=2))
    return path


def test_missing_target_scores_names_the_example_line(tmp_path: Path) -> None:
    examples = [{"input": "Q1", "target_scores": {"a": 1, "b": 0}}, {"input": "Q2", "target": "a"}]
    path = _write_task(tmp_path / "task.json", examples)
    with pytest.raises(ReaderError, match=r"task\.json:11: field 'target_scores': missing"):
        pfungst.load(path, reader="bigbench")
    skipped = pfungst.load(path, reader="bigbench", on_error="skip")
    assert len(skipped) == 1 and skipped.provenance.rejected[0].line == 11


def test_several_highest_scores_are_an_error(tmp_path: Path) -> None:
    examples = [{"input": "Q1", "target_scores": {"a": 1, "b": 0}}, {"input": "Q2", "target_scores": {"a": 1, "b": 1}}]
    path = _write_task(tmp_path / "task.json", examples)
    with pytest.raises(ReaderError, match=r"task\.json:11: field 'target_scores': 2 options share the highest score"):
        pfungst.load(path, reader="bigbench")


def test_task_without_examples_is_an_error(tmp_path: Path) -> None:
    path = _write_task(tmp_path / "task.json", [])
    with pytest.raises(ReaderError, match=r"task\.json:1: field 'examples': the task has no examples"):
        pfungst.load(path, reader="bigbench")


def test_example_input_prefix_starts_the_text(tmp_path: Path) -> None:
    examples = [{"input": "Q1", "target_scores": {"a": 0, "b": 1}}, {"input": "Q2", "target_scores": {"c": 1, "b": 0}}]
    benchmark = pfungst.load(_write_task(tmp_path / "task.json", examples, example_input_prefix="Q: "))
    assert [item.text for item in benchmark] == ["Q: Q1", "Q: Q2"]
    assert benchmark.option_kind == "per_item"
    assert [item.answer for item in benchmark] == ["b", "c"]


def test_sniff_claims_task_files_and_task_folders_only(shared_data: Path, tmp_path: Path) -> None:
    reader = BigBenchReader()
    assert reader.sniff(shared_data / "bigbench" / "snarks")
    assert not reader.sniff(shared_data / "bigbench")  # a folder of unrelated tasks
    assert not reader.sniff(shared_data / "truthfulqa" / "mc_task.json")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"examples": [{"input": "x", "target": "y"}]}))
    assert not reader.sniff(other)
