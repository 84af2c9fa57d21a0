from __future__ import annotations

from pathlib import Path

import pytest

import pfungst
from pfungst.errors import ConfigError

datasets = pytest.importorskip("datasets", reason="the 'datasets' extra is not installed")


def _save(tmp_path: Path) -> Path:
    dataset = datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_dict({"question": ["t?"], "choices": [["a", "b"]], "answer": [0]}),
            "test": datasets.Dataset.from_dict(
                {
                    "question": ["Which is a fruit?", "Which is a colour?"],
                    "choices": [
                        {"label": ["A", "B"], "text": ["apple", "chair"]},
                        {"label": ["A", "B"], "text": ["table", "red"]},
                    ],
                    "answerKey": ["A", "B"],
                }
            ),
        }
    )
    path = tmp_path / "saved"
    dataset.save_to_disk(str(path))
    return path


def test_saved_dataset_folder_is_detected_and_read_from_the_test_split(tmp_path: Path) -> None:
    benchmark = pfungst.load(_save(tmp_path))
    assert benchmark.provenance.format == "huggingface"
    assert len(benchmark) == 2
    assert benchmark[0].options == ("apple", "chair")
    assert [item.answer for item in benchmark] == ["apple", "red"]


def test_split_is_selectable_and_an_unknown_split_lists_the_available(tmp_path: Path) -> None:
    path = _save(tmp_path)
    assert len(pfungst.load(path, reader="huggingface", split="train", answer="answer")) == 1
    with pytest.raises(ConfigError, match=r"no split 'validation'\. Available: train, test"):
        pfungst.load(path, reader="huggingface", split="validation")


def test_local_data_files_folder(tmp_path: Path) -> None:
    folder = tmp_path / "local"
    folder.mkdir()
    (folder / "test.jsonl").write_text('{"query": "Up or down?", "endings": ["up", "down"], "gold": 1}\n')
    benchmark = pfungst.load(folder, reader="huggingface")
    assert benchmark[0].answer == "down"
