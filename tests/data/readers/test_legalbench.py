from __future__ import annotations

from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.legalbench import LegalBenchReader
from pfungst.errors import ReaderError


@pytest.mark.parametrize(
    ("task", "count", "labels"),
    [
        ("abercrombie", 95, ("arbitrary", "descriptive", "fanciful", "generic", "suggestive")),
        ("proa", 95, ("No", "Yes")),
        ("corporate_lobbying", 490, ("No", "Yes")),
    ],
)
def test_legalbench_tasks_are_detected_with_sorted_shared_labels(
    shared_data: Path, task: str, count: int, labels: tuple[str, ...]
) -> None:
    path = shared_data / "legalbench" / f"{task}.test.tsv"
    assert LegalBenchReader().sniff(path)
    assert detect_format(path) == "legalbench"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "legalbench"
    assert benchmark.name == f"legalbench-{task}"
    assert len(benchmark) == count
    assert benchmark.option_kind == "shared_labels"
    assert benchmark.labels == labels
    assert benchmark.provenance.rejected == ()


def test_abercrombie_single_input_column_is_the_text(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "legalbench" / "abercrombie.test.tsv")
    assert benchmark.gold_counts == {label: 19 for label in benchmark.labels}
    first = benchmark[0]
    assert first.id == "abercrombie/0"
    assert first.text == "The mark “Salt” for packages of sodium chloride."
    assert first.answer == "generic"
    assert dict(first.fields) == {"text": first.text}


def test_proa_counts_and_quoted_field(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "legalbench" / "proa.test.tsv")
    assert benchmark.gold_counts == {"No": 48, "Yes": 47}
    assert benchmark[0].answer == "Yes"
    assert sum(item.text.startswith("Each section of the petition shall be filed") for item in benchmark) == 1


def test_corporate_lobbying_reads_multi_line_fields_as_one_item(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "legalbench" / "corporate_lobbying.test.tsv")
    assert benchmark.gold_counts == {"No": 345, "Yes": 145}
    first, second = benchmark[0], benchmark[1]
    assert first.id == "corporate_lobbying/0"
    assert first.answer == "No"
    assert list(first.fields) == ["bill_title", "bill_summary", "company_name", "company_description"]
    assert first.fields["company_name"] == "Monster Beverage Corp."
    assert first.fields["bill_summary"].startswith(
        "America's Natural Treasures of Immeasurable Quality Unite, Inspire, and Together Improve the Economies of "
        "States Act or the ANTIQUITIES Act\n\nThis bill provides for the administration of certain National"
    )
    assert first.text.startswith("Bill title: To provide for the administration of certain national monuments")
    assert "\nBill summary: America's Natural Treasures" in first.text
    assert "\nCompany name: Monster Beverage Corp.\nCompany description: " in first.text
    # The first record spans lines 2-12 of the file; the next starts on line 13.
    assert (first.metadata["source_line"], second.metadata["source_line"]) == (2, 13)
    assert benchmark[-1].id == "corporate_lobbying/489"


def test_legalbench_index_column_becomes_the_id(tmp_path: Path) -> None:
    path = tmp_path / "toy_task.test.tsv"
    path.write_text("index\ttext\tlabel\n7\tIs this fine?\tYes\n9\tIs that fine?\tNo\n")
    assert detect_format(path) == "legalbench"
    benchmark = pfungst.load(path)
    assert [item.id for item in benchmark] == ["toy_task/7", "toy_task/9"]
    assert benchmark.labels == ("No", "Yes")


def test_legalbench_empty_label_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "toy_task.test.tsv"
    path.write_text("text\tlabel\nIs this fine?\tYes\nIs that fine?\t\n")
    with pytest.raises(ReaderError, match=r"toy_task\.test\.tsv:3: field 'label': the label '' is empty"):
        pfungst.load(path)


def test_legalbench_file_without_label_column_is_not_claimed(tmp_path: Path) -> None:
    path = tmp_path / "toy_task.test.tsv"
    path.write_text("text\tanswer\nIs this fine?\tYes\n")
    assert not LegalBenchReader().sniff(path)
