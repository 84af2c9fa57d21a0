from __future__ import annotations

from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.arct import ArctReader
from pfungst.errors import ReaderError

_HEADER = "#id\twarrant0\twarrant1\tcorrectLabelW0orW1\treason\tclaim\tdebateTitle\tdebateInfo\n"
_ROW = "a1\tit is safe\tit is not safe\t{label}\tPeople drive.\tCars are fine\tCars?\tAre cars good?\n"


@pytest.mark.parametrize(
    ("split", "count", "duplicate_texts"),
    [
        ("train", 1210, 441),
        ("dev", 316, 111),
        ("test", 444, 155),
        ("dev-adv-negated", 632, 222),
        ("test-adv-negated", 888, 329),
    ],
)
def test_arct_files_are_detected_and_read_with_two_warrants(
    shared_data: Path, split: str, count: int, duplicate_texts: int
) -> None:
    path = shared_data / "arct" / f"{split}.tsv"
    assert ArctReader().sniff(path)
    assert detect_format(path) == "arct"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "arct"
    assert len(benchmark) == count
    assert benchmark.option_counts == {2: count}
    assert benchmark.provenance.rejected == ()
    # Arguments share a reason and claim and differ in their warrants: the text (no warrants) repeats.
    assert benchmark.provenance.duplicate_texts == duplicate_texts
    assert benchmark.provenance.duplicate_ids == 0


def test_arct_dev_item_keeps_warrants_verbatim_as_options(shared_data: Path) -> None:
    item = pfungst.load(shared_data / "arct" / "dev.tsv")[0]
    assert item.id == "14666389_480_A1CF6U3GF7DZEJ"
    assert item.text == (
        "Reason: Police use the excuse of fear for life to abuse use of force.\n"
        "Claim: Police is too willing to use force"
    )
    assert item.options == ("the excuse is sometimes warranted", "the excuse is rarely warranted")
    assert item.gold == 1
    assert item.fields["debate_title"] == "Do Police Use Deadly Force Too Often?"
    assert item.fields["claim"] == "Police is too willing to use force"


def test_arct_adversarial_test_set_is_read_by_column_name_and_balanced(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "arct" / "test-adv-negated.tsv")
    assert benchmark.gold_counts == {"0": 444, "1": 444}
    assert sum(item.metadata["adversarial"] for item in benchmark) == 444
    first = benchmark[0]
    assert first.id == "18249360_112_A104V8NZIQFN2F"
    assert first.options == (
        "comments sections are a welcome distraction from my work",
        "comments sections always distract me from my work",
    )
    assert first.answer == "comments sections are a welcome distraction from my work"
    assert first.metadata["adversarial"] is False
    assert first.fields["reason"] == "They add a lot to the piece and I look forward to reading comments."


def test_arct_adversarial_quoted_fields_are_unquoted(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "arct" / "dev-adv-negated.tsv")
    texts = [item.fields["debate_info"] for item in benchmark]
    assert 'Will the I.O.C.\'s announcement legitimize this "counterculture" sport?' in texts


def test_arct_label_other_than_0_or_1_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "toy.tsv"
    path.write_text(_HEADER + _ROW.format(label="0") + _ROW.format(label="2"))
    with pytest.raises(ReaderError, match=r"toy\.tsv:3: field 'correctLabelW0orW1': answer index '2' is out of"):
        pfungst.load(path, reader="arct")


def test_arct_empty_warrant_names_its_column(tmp_path: Path) -> None:
    path = tmp_path / "toy.tsv"
    path.write_text(_HEADER + _ROW.format(label="0").replace("it is not safe", ""))
    with pytest.raises(ReaderError, match=r"toy\.tsv:2: field 'warrant1': the value is empty"):
        pfungst.load(path, reader="arct")
