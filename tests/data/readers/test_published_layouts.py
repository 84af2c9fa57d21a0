"""Published benchmarks' table shapes (Hugging Face hub and raw releases) are read without a reader or a mapping.

Each fixture is a small file in the benchmark's public shape: its column names and value types as published.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import pfungst
from pfungst.data.layout_catalog import COPA_QUESTIONS
from pfungst.data.layouts import LayoutWarning
from pfungst.errors import ConfigError


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _layout(benchmark: pfungst.Benchmark) -> str:
    return benchmark.provenance.layout.split(";")[0]


@pytest.mark.parametrize(
    ("name", "text", "golds"),
    [
        (
            "question,A,B,C,D,answer\nWhat is 2+2?,3,4,5,6,B\nCapital of France?,Rome,Paris,Oslo,Bern,B\n",
            "letter",
            [1, 1],
        ),
        ("Question,option_a,option_b,option_c,Answer\nFirst?,x,y,z,0\nSecond?,p,q,r,2\n", "index from 0", [0, 2]),
        ("question,choice1,choice2,choice3,answer\nFirst?,x,y,z,3\nSecond?,p,q,r,1\n", "index from 1", [2, 0]),
        ("question,opa,opb,opc,opd,answer\nFirst?,w,x,y,z,y\nSecond?,p,q,r,s,p\n", "option text", [2, 0]),
    ],
    ids=["A-D letter", "option_a index", "choice1 index1", "opa text"],
)
def test_a_question_with_option_columns_in_csv_tsv_and_parquet(
    tmp_path: Path, name: str, text: str, golds: list[int]
) -> None:
    csv = tmp_path / "items.csv"
    csv.write_text(name)
    tsv = tmp_path / "items.tsv"
    tsv.write_text(name.replace(",", "\t"))
    parquet = tmp_path / "items.parquet"
    pd.read_csv(csv, dtype=str).to_parquet(parquet)
    for path in (csv, tsv, parquet):
        benchmark = pfungst.load(path)
        assert [item.gold for item in benchmark] == golds, (path.suffix, text)
        assert len(benchmark[0].options) == len(name.split("\n")[1].split(",")) - 2
        assert _layout(benchmark) == "question-option-columns"


def test_an_index_answer_that_could_count_from_0_or_1_is_read_as_the_columns_count_and_said(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("question,choice1,choice2,choice3,answer\nFirst?,x,y,z,2\nSecond?,p,q,r,1\n")
    with pytest.warns(LayoutWarning, match=r"may count from 0 or from 1; read as counting from 1"):
        benchmark = pfungst.load(path)
    assert [item.answer for item in benchmark] == ["y", "p"]
    assert "counting from 1" in benchmark.provenance.layout
    zero_based = pfungst.load(path, layout="question-option-columns", answer_format="index")
    assert [item.answer for item in zero_based] == ["z", "q"]


def test_hellaswag_as_released_with_an_integer_label(tmp_path: Path) -> None:
    rows = [
        {
            "ind": 4,
            "activity_label": "Tea",
            "ctx_a": "She",
            "ctx_b": "picks",
            "ctx": "She picks up the kettle and",
            "endings": ["flies.", "pours tea.", "sings.", "melts."],
            "source_id": "x",
            "split": "val",
            "label": 1,
        },
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "hellaswag_val.jsonl", rows))
    assert benchmark[0].answer == "pours tea." and _layout(benchmark) == "hellaswag"
    assert benchmark[0].metadata["activity_label"] == "Tea"


def test_piqa_hugging_face(tmp_path: Path) -> None:
    rows = [
        {"goal": "Dry wet shoes.", "sol1": "Fill them with newspaper.", "sol2": "Fill them with water.", "label": 0},
        {"goal": "Cool tea.", "sol1": "Boil it.", "sol2": "Add ice.", "label": 1},
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "piqa.jsonl", rows))
    assert benchmark[0].text == "Dry wet shoes." and _layout(benchmark) == "piqa"
    assert [item.answer for item in benchmark] == ["Fill them with newspaper.", "Add ice."]


def test_winogrande_answers_count_from_1(tmp_path: Path) -> None:
    rows = [
        {
            "qID": "a-1",
            "sentence": "The trophy does not fit in the case because _ is small.",
            "option1": "trophy",
            "option2": "case",
            "answer": "2",
        },
        {
            "qID": "b-1",
            "sentence": "Ann gave Sue a gift because _ was generous.",
            "option1": "Ann",
            "option2": "Sue",
            "answer": "1",
        },
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "winogrande_dev.jsonl", rows))
    assert [item.answer for item in benchmark] == ["case", "Ann"] and _layout(benchmark) == "winogrande"


def test_sciq_puts_the_distractors_first_and_the_correct_answer_last(tmp_path: Path) -> None:
    """Shuffle-free: options in column order, so the gold is always the last option (an artifact of the format)."""
    rows = [
        {
            "question": "What gas do plants absorb?",
            "distractor1": "oxygen",
            "distractor2": "helium",
            "distractor3": "neon",
            "correct_answer": "carbon dioxide",
            "support": "Plants take in CO2.",
        },
        {
            "question": "What is H2O?",
            "distractor1": "salt",
            "distractor2": "sand",
            "distractor3": "air",
            "correct_answer": "water",
            "support": "",
        },
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "sciq_test.jsonl", rows))
    assert benchmark[0].options == ("oxygen", "helium", "neon", "carbon dioxide")
    assert [item.gold for item in benchmark] == [3, 3] and _layout(benchmark) == "sciq"
    assert benchmark[0].metadata["support"] == "Plants take in CO2."


def test_openbookqa_hugging_face_and_as_released(tmp_path: Path) -> None:
    choices = {"text": ["wind", "sunlight", "rock", "sand"], "label": ["A", "B", "C", "D"]}
    hub = [{"id": "7-980", "question_stem": "Plants need", "choices": choices, "answerKey": "B"}]
    benchmark = pfungst.load(_jsonl(tmp_path / "obqa.jsonl", hub))
    assert benchmark[0].text == "Plants need" and benchmark[0].answer == "sunlight"
    assert _layout(benchmark) == "openbookqa-hf"
    released = [
        {
            "id": "7-980",
            "question": {
                "stem": "Plants need",
                "choices": [{"text": t, "label": k} for t, k in zip(choices["text"], choices["label"], strict=True)],
            },
            "answerKey": "B",
        }
    ]
    raw = pfungst.load(_jsonl(tmp_path / "test.jsonl", released))
    assert raw.provenance.format == "arc" and raw[0].answer == "sunlight"


def test_race_shows_the_article_then_the_question(tmp_path: Path) -> None:
    rows = [
        {
            "example_id": "high1.txt",
            "article": "Tom had a dog.",
            "question": "What did Tom have?",
            "options": ["a cat", "a dog", "a fish", "a bird"],
            "answer": "B",
        }
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "race.jsonl", rows))
    assert benchmark[0].text == "Tom had a dog.\n\nWhat did Tom have?" and benchmark[0].answer == "a dog"
    assert benchmark[0].fields == {"passage": "Tom had a dog.", "question": "What did Tom have?"}
    assert _layout(benchmark) == "race"


def test_medmcqa_hub_counts_cop_from_0_and_the_release_from_1(tmp_path: Path) -> None:
    def rows(cops: list[int]) -> list[dict]:
        return [
            {
                "id": f"m{i}",
                "question": f"Q{i}?",
                "opa": "a",
                "opb": "b",
                "opc": "c",
                "opd": "d",
                "cop": cop,
                "choice_type": "single",
                "subject_name": "Anatomy",
            }
            for i, cop in enumerate(cops)
        ]

    hub = pfungst.load(_jsonl(tmp_path / "hub.jsonl", rows([0, 2, 3])))
    assert [item.answer for item in hub] == ["a", "c", "d"] and _layout(hub) == "medmcqa"
    released = pfungst.load(_jsonl(tmp_path / "dev.json", rows([4, 1, 2])))
    assert [item.answer for item in released] == ["d", "a", "b"]


def test_mmlu_pro_reads_up_to_ten_options_by_answer_index(tmp_path: Path) -> None:
    options = [f"option {k}" for k in "ABCDEFGHIJ"]
    rows = [
        {
            "question_id": 70,
            "question": "Pick J.",
            "options": options,
            "answer": "J",
            "answer_index": 9,
            "cot_content": "",
            "category": "business",
            "src": "ori_mmlu",
        },
        {
            "question_id": 71,
            "question": "Pick A.",
            "options": options[:4],
            "answer": "A",
            "answer_index": 0,
            "cot_content": "",
            "category": "law",
            "src": "stemez",
        },
    ]
    path = tmp_path / "mmlu_pro.parquet"
    pd.DataFrame(rows).to_parquet(path)
    benchmark = pfungst.load(path)
    assert [len(item.options) for item in benchmark] == [10, 4]
    assert [item.answer for item in benchmark] == ["option J", "option A"] and _layout(benchmark) == "mmlu-pro"
    assert benchmark[0].metadata["category"] == "business"


def test_boolq_hub_and_super_glue_shapes_read_as_yes_no(tmp_path: Path) -> None:
    passage = "Ethanol fuel is alcohol."
    hub = [
        {"question": "is ethanol an alcohol", "answer": True, "passage": passage},
        {"question": "is ethanol a metal", "answer": False, "passage": passage},
    ]
    glue = [
        {"question": "is ethanol an alcohol", "passage": passage, "idx": 0, "label": 1},
        {"question": "is ethanol a metal", "passage": passage, "idx": 1, "label": 0},
    ]
    one = pfungst.load(_jsonl(tmp_path / "boolq.jsonl", hub))
    two = pfungst.load(_jsonl(tmp_path / "super_glue_boolq.jsonl", glue))
    assert (_layout(one), _layout(two)) == ("boolq", "boolq-superglue")
    for benchmark in (one, two):
        assert benchmark.option_kind == "shared_labels" and benchmark.labels == ("no", "yes")
        assert [item.answer for item in benchmark] == ["yes", "no"]
        assert benchmark[0].text == f"{passage}\nQuestion: is ethanol an alcohol?"
        assert benchmark[0].fields == {"passage": passage, "question": "is ethanol an alcohol"}


def test_copa_hub_text_is_the_xml_readers(tmp_path: Path) -> None:
    rows = [
        {
            "premise": "My body cast a shadow over the grass.",
            "choice1": "The sun was rising.",
            "choice2": "The grass was cut.",
            "question": "cause",
            "idx": 0,
            "label": 0,
        },
        {
            "premise": "The woman tolerated her friend's difficult behavior.",
            "choice1": "The woman knew her friend was going through a hard time.",
            "choice2": "The woman felt that her friend took advantage of her kindness.",
            "question": "effect",
            "idx": 1,
            "label": 1,
        },
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "copa.jsonl", rows))
    assert benchmark[0].text == f"My body cast a shadow over the grass. {COPA_QUESTIONS['cause']}"
    assert [item.gold for item in benchmark] == [0, 1] and _layout(benchmark) == "copa-hf"
    assert benchmark[1].fields == {"premise": rows[1]["premise"], "asks_for": "effect"}


def test_copa_hub_row_with_an_unknown_question_names_line_and_field(tmp_path: Path) -> None:
    rows = [
        {"premise": "P.", "choice1": "a", "choice2": "b", "question": "cause", "label": 0},
        {"premise": "P.", "choice1": "a", "choice2": "b", "question": "why", "label": 0},
    ]
    with pytest.raises(pfungst.ReaderError, match=r"copa\.jsonl:2: field 'question': 'why' is not 'cause' or"):
        pfungst.load(_jsonl(tmp_path / "copa.jsonl", rows))


def test_commonsenseqa_hugging_face(tmp_path: Path) -> None:
    choices = {"label": ["A", "B", "C", "D", "E"], "text": ["bank", "library", "store", "mall", "park"]}
    rows = [
        {
            "id": "075e",
            "question": "Where are books lent?",
            "question_concept": "books",
            "choices": choices,
            "answerKey": "B",
        }
    ]
    benchmark = pfungst.load(_jsonl(tmp_path / "csqa.jsonl", rows))
    assert benchmark[0].answer == "library" and _layout(benchmark) == "commonsenseqa-hf"
    assert benchmark[0].metadata["question_concept"] == "books"


def test_two_fitting_layouts_say_which_was_chosen_and_why(tmp_path: Path) -> None:
    path = tmp_path / "both.jsonl"
    _jsonl(path, [{"question": "Q?", "choices": ["x", "y"], "A": "p", "B": "q", "answer": "B"}])
    with pytest.warns(
        LayoutWarning,
        match=r"also fit the layout\(s\) 'question-option-columns'; read as "
        r"'question-choices-answer' .*most specific first.*--map layout=NAME",
    ):
        benchmark = pfungst.load(path)
    assert benchmark[0].answer == "y" and "also fit" in benchmark.provenance.layout
    other = pfungst.load(path, layout="question-option-columns")
    assert other[0].answer == "q" and other.provenance.layout == "question-option-columns"


def test_an_unknown_or_unfitting_layout_name_is_refused(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "items.jsonl", [{"question": "Q?", "choices": ["x", "y"], "answer": 1}])
    with pytest.raises(ConfigError, match=r"Unknown layout 'sciqq'.*sciq"):
        pfungst.load(path, layout="sciqq")
    with pytest.raises(ConfigError, match=r"layout=piqa: the table does not fit it \(it needs goal, sol1"):
        pfungst.load(path, layout="piqa")
