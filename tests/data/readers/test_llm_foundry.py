from __future__ import annotations

from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.errors import ReaderError

_FILES = {
    "arc_easy": (2376, {4: 2376}),
    "openbook_qa": (500, {4: 500}),
    "piqa": (1838, {2: 1838}),
    "winogrande": (1267, {2: 1267}),
    "boolq": (3270, {2: 3270}),
    "logi_qa": (651, {4: 651}),
}


@pytest.mark.parametrize("stem", sorted(_FILES))
def test_llm_foundry_files_have_their_published_counts(shared_data: Path, stem: str) -> None:
    path = shared_data / "llm_foundry" / f"{stem}.jsonl"
    assert detect_format(path) == "llm-foundry"
    benchmark = pfungst.load(path)
    count, option_counts = _FILES[stem]
    assert benchmark.provenance.format == "llm-foundry"
    assert len(benchmark) == count
    assert benchmark.option_counts == option_counts
    assert benchmark.provenance.rejected == ()
    assert benchmark[0].id == f"{stem}/1"


def test_llm_foundry_multiple_choice_item_keeps_query_and_choices(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "llm_foundry" / "openbook_qa.jsonl")
    first = benchmark[0]
    assert first.text.startswith("A person wants to start saving money")
    assert first.options == (
        "make more phone calls",
        "quit eating lunch out",
        "buy less with monopoly money",
        "have lunch with friends",
    )
    assert first.answer == "quit eating lunch out"
    assert first.metadata["layout"] == "multiple_choice"
    assert len(pfungst.load(shared_data / "llm_foundry" / "arc_easy.jsonl").provenance.warnings) == 7


def test_llm_foundry_winogrande_schema_options_are_the_contexts(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "llm_foundry" / "winogrande.jsonl")
    first = benchmark[0]
    assert first.text == "always got the easier cases."
    assert first.options == (
        "Sarah was a much better surgeon than Maria so Sarah",
        "Sarah was a much better surgeon than Maria so Maria",
    )
    assert first.gold == 1
    assert first.fields["continuation"] == first.text
    assert first.metadata["layout"] == "schema"
    # Twin sentences share a continuation and flip the answer: equal texts are expected in this layout.
    assert benchmark.provenance.duplicate_texts == 115


def test_llm_foundry_gold_out_of_range_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "toy.jsonl"
    path.write_text(
        '{"query": "Q: 1+1?", "choices": ["1", "2"], "gold": 1}\n'
        '{"query": "Q: 2+2?", "choices": ["4", "5"], "gold": 2}\n'
    )
    assert detect_format(path) == "llm-foundry"
    with pytest.raises(ReaderError, match=r"toy\.jsonl:2: field 'gold': answer index 2 is out of range"):
        pfungst.load(path)


def test_llm_foundry_schema_record_without_continuation_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "schema.jsonl"
    path.write_text('{"context_options": ["a", "b"], "gold": 0}\n')
    with pytest.raises(ReaderError, match=r"schema\.jsonl:1: field 'continuation': missing field"):
        pfungst.load(path, reader="llm-foundry")
