from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import pfungst
from pfungst.errors import ConfigError, DataError


def test_parquet_with_a_list_column_and_text_answers(tmp_path: Path) -> None:
    path = tmp_path / "items.parquet"
    pd.DataFrame(
        {
            "id": ["a", "b"],
            "question": ["Sky colour?", "Grass colour?"],
            "choices": [["blue", "red"], ["green", "pink", "grey"]],
            "answer": ["blue", "green"],
            "difficulty": [1, 2],
        }
    ).to_parquet(path)
    benchmark = pfungst.load(path, reader="parquet", answer_format="text")
    assert [item.id for item in benchmark] == ["a", "b"]
    assert benchmark[1].options == ("green", "pink", "grey")
    assert [item.answer for item in benchmark] == ["blue", "green"]
    assert benchmark[1].metadata["difficulty"] == 2


def test_tsv_with_a_label_column_is_a_shared_label_task(tmp_path: Path) -> None:
    path = tmp_path / "nli.tsv"
    path.write_text("premise\thypothesis\tlabel\nA cat.\tAn animal.\tyes\nA dog.\tA fish.\tno\nA car.\tA bike.\tno\n")
    benchmark = pfungst.load(
        path,
        reader="tsv",
        text_template="{premise} / {hypothesis}",
        label="label",
        fields="premise,hypothesis",
        labels="yes,no",
    )
    assert benchmark.option_kind == "shared_labels"
    assert benchmark.labels == ("yes", "no")
    assert benchmark[0].text == "A cat. / An animal."
    assert benchmark[0].fields == {"premise": "A cat.", "hypothesis": "An animal."}
    assert benchmark.gold_counts == {"yes": 1, "no": 2}


def test_a_mapping_selects_the_generic_reader_by_suffix(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("stem,A,B,C,key\nOne?,x,y,z,3\n")
    benchmark = pfungst.load(path, question="stem", option_columns="A,B,C", answer="key", answer_format="index1")
    assert benchmark.provenance.format == "csv"
    assert benchmark[0].answer == "z"


def test_unknown_mapping_key_lists_the_valid_ones(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"question": "q", "choices": ["a", "b"], "answer": 0}) + "\n")
    with pytest.raises(ConfigError, match=r"Unknown mapping key\(s\) qestion\. Available: question"):
        pfungst.load(path, reader="jsonl", qestion="q")


def test_a_file_no_reader_claims_asks_for_a_format(tmp_path: Path) -> None:
    path = tmp_path / "mystery.jsonl"
    path.write_text(json.dumps({"prompt_text": "q", "opts": ["a", "b"], "k": 0}) + "\n")
    with pytest.raises(
        DataError,
        match=r"mystery\.jsonl: the format could not be detected: (.|\n)*--map "
        r"question=prompt_text --map options=opts --map answer=k (.|\n)*Or pass --reader NAME",
    ):
        pfungst.load(path)


def test_native_round_trip_keeps_items_and_label_sets(tmp_path: Path) -> None:
    path = tmp_path / "nli.tsv"
    path.write_text("text\tlabel\nfirst\tb\nsecond\ta\n")
    original = pfungst.load(path, reader="tsv", label="label", labels="b,a")
    reloaded = pfungst.load(original.save(tmp_path / "saved.jsonl"))
    assert reloaded.provenance.format == "pfungst"
    assert reloaded.labels == ("b", "a")

    def key(item):
        return item.id, item.text, item.options, item.gold

    assert [key(i) for i in reloaded] == [key(i) for i in original]


def test_the_reader_is_named_by_reader_and_format_is_refused_as_an_unknown_setting(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"question": "q", "choices": ["a", "b"], "answer": 1}) + "\n")
    with pytest.raises(ConfigError, match=r"Unknown mapping key\(s\) format\. Available: question"):
        pfungst.load(path, format="jsonl")
    assert pfungst.load(path, reader="jsonl").provenance.format == "jsonl"
