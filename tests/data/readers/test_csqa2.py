from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.errors import ReaderError


def test_commonsenseqa2_dev_has_2541_yes_no_items(shared_data: Path) -> None:
    path = shared_data / "csqa2" / "CSQA2_dev.json.gz"
    assert detect_format(path) == "csqa2"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "csqa2"
    assert len(benchmark) == 2541
    assert benchmark.option_kind == "shared_labels"
    assert benchmark.labels == ("yes", "no")
    assert benchmark.gold_counts == {"yes": 1225, "no": 1316}
    first = benchmark[0]
    assert first.id == "002b0d519076a42e3cd2aae8c3480450"
    assert first.text.startswith("Most of the information an old map is capable of providing")
    assert first.answer == "yes"
    assert first.metadata["confidence"] == 0.55
    assert first.metadata["topic_prompt"] == "map"
    assert benchmark[1].answer == "no"


def test_commonsenseqa2_answer_that_is_not_yes_or_no_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "csqa2.json.gz"
    lines = [
        {"id": "a", "question": "Is ice cold?", "answer": "yes", "confidence": 1.0},
        {"id": "b", "question": "Is fire cold?", "answer": "maybe", "confidence": 1.0},
    ]
    path.write_bytes(gzip.compress("\n".join(json.dumps(line) for line in lines).encode()))
    assert detect_format(path) == "csqa2"
    with pytest.raises(ReaderError, match=r"csqa2\.json\.gz:2: field 'answer': 'maybe' is not 'yes' or 'no'"):
        pfungst.load(path)
