from __future__ import annotations

import json
from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.nli import MnliReader, SnliReader
from pfungst.errors import ReaderError

_LABELS = ("entailment", "neutral", "contradiction")
_MNLI_TSV_HEADER = (
    "gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
    "sentence1\tsentence2\tpromptID\tpairID\tgenre\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\n"
)


def _snli_record(gold: str, pair: str = "p1") -> str:
    return (
        json.dumps(
            {
                "annotator_labels": [gold],
                "captionID": "c1",
                "gold_label": gold,
                "pairID": pair,
                "sentence1": "A dog runs.",
                "sentence2": "An animal moves.",
            }
        )
        + "\n"
    )


def test_mnli_dev_matched_has_9815_items_and_keeps_quotes_as_text(shared_data: Path) -> None:
    path = shared_data / "mnli" / "dev_matched.tsv"
    assert MnliReader().sniff(path) and not SnliReader().sniff(path)
    assert detect_format(path) == "mnli"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "mnli"
    assert len(benchmark) == 9815
    assert benchmark.labels == _LABELS
    assert benchmark.gold_counts == {"entailment": 3479, "neutral": 3123, "contradiction": 3213}
    assert benchmark.provenance.rejected == ()
    first = benchmark[0]
    assert first.id == "0"
    assert first.text == (
        "Premise: The new rights are nice enough\nHypothesis: Everyone really likes the newest benefits "
    )
    assert first.answer == "neutral"
    assert first.fields["hypothesis"] == "Everyone really likes the newest benefits "
    assert first.metadata["correct_responses"] == 100
    quoted = benchmark[2642]
    assert quoted.id == "2642"
    assert quoted.fields["premise"].startswith('"If you people only knew how fatally easy it is to poison')
    assert quoted.answer == "neutral"


def test_snli_subset_rejects_the_23_rows_without_consensus(shared_data: Path) -> None:
    path = shared_data / "snli" / "snli_1.0_test_subset.jsonl"
    assert SnliReader().sniff(path) and not MnliReader().sniff(path)
    assert detect_format(path) == "snli"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "snli"
    assert benchmark.provenance.rows_read == 1277
    assert len(benchmark) == 1254
    assert len(benchmark.provenance.rejected) == 23
    rejection = benchmark.provenance.rejected[0]
    assert (rejection.line, rejection.field) == (33, "gold_label")
    assert "no consensus" in rejection.reason
    assert benchmark.gold_counts == {"entailment": 405, "neutral": 429, "contradiction": 420}
    first = benchmark[0]
    assert first.id == "2705099033.jpg#1r1c"
    assert first.text.startswith("Premise: Four young men sit on the floor close to a television")
    assert first.fields["hypothesis"] == "Four males are playing out in the yard."
    assert first.answer == "contradiction"
    assert first.metadata["captionID"] == "2705099033.jpg#1"
    assert first.metadata["annotator_labels"] == [
        "contradiction",
        "contradiction",
        "neutral",
        "contradiction",
        "contradiction",
    ]


def test_unknown_snli_label_names_file_line_and_gold_label(tmp_path: Path) -> None:
    path = tmp_path / "snli_toy.jsonl"
    path.write_text(_snli_record("entailment") + _snli_record("entailed", "p2"))
    assert detect_format(path) == "snli"
    with pytest.raises(ReaderError, match=r"snli_toy\.jsonl:2: field 'gold_label': label 'entailed' is not one"):
        pfungst.load(path)


def test_official_mnli_tsv_layout_is_detected_and_read(tmp_path: Path) -> None:
    path = tmp_path / "multinli_1.0_dev_matched.txt"
    rows = [
        'neutral\t( a )\t( b )\t(ROOT a)\t(ROOT b)\t"Quoted, unbalanced\tIt is so.\t63735\t63735n\tslate\t'
        "neutral\tentailment\tneutral\tneutral\tneutral\n",
        "-\t( a )\t( b )\t(ROOT a)\t(ROOT b)\tA premise.\tA hypothesis.\t1\t1e\tfiction\tneutral\tentailment\t\t\t\n",
    ]
    path.write_text(_MNLI_TSV_HEADER + "".join(rows))
    assert detect_format(path) == "mnli"
    benchmark = pfungst.load(path)
    assert len(benchmark) == 1 and len(benchmark.provenance.rejected) == 1
    item = benchmark[0]
    assert item.id == "63735n"
    assert item.fields["premise"] == '"Quoted, unbalanced'
    assert item.answer == "neutral"
    assert item.metadata["genre"] == "slate"
    assert item.metadata["annotator_labels"] == ["neutral", "entailment", "neutral", "neutral", "neutral"]


def test_official_mnli_jsonl_layout_is_not_mistaken_for_snli(tmp_path: Path) -> None:
    path = tmp_path / "multinli_1.0_dev_mismatched.jsonl"
    record = {
        "annotator_labels": ["contradiction"],
        "genre": "letters",
        "gold_label": "contradiction",
        "pairID": "75r",
        "promptID": "75",
        "sentence1": "Hi.",
        "sentence2": "Bye.",
    }
    path.write_text(json.dumps(record) + "\n")
    assert detect_format(path) == "mnli"
    assert pfungst.load(path)[0].metadata["promptID"] == "75"


def test_premise_hypothesis_tsv_with_bad_correct_count_names_the_column(tmp_path: Path) -> None:
    path = tmp_path / "dev.tsv"
    path.write_text(
        "index\tpremise\thypothesis\tgold_label\tnumber of correct responses (out of 100)\n0\tA.\tB.\tneutral\tmany\n"
    )
    with pytest.raises(
        ReaderError, match=r"dev\.tsv:2: field 'number of correct responses \(out of 100\)': expected an integer"
    ):
        pfungst.load(path, reader="mnli")


def test_missing_hypothesis_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "snli_toy.jsonl"
    path.write_text(json.dumps({"captionID": "c", "gold_label": "neutral", "sentence1": "A.", "pairID": "x"}) + "\n")
    with pytest.raises(ReaderError, match=r"snli_toy\.jsonl:1: field 'sentence2': missing field"):
        pfungst.load(path, reader="snli")
