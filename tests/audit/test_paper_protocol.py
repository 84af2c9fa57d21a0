"""Pacchiardi et al. 2024's rows, order and split: what pandas gave their code, and the published cells they explain."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pfungst
from pfungst.audit.feature_sets import PAPER_FEATURE_SETS, get_feature_set
from pfungst.audit.features.paper_readability import paper_readability_available
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.paper_protocol import paper_rows, paper_sample_id, paper_split
from pfungst.audit.probe import ProbeConfig, run_probe

PAPER = ProbeConfig(protocol="pacchiardi2024", n_bootstrap=1, n_permutations=1)
REFERENCE = Path(__file__).resolve().parents[2] / ".." / "shared" / "reference" / "pacchiardi2024_kappa_subset.csv"
SOURCES = {
    "causal_judgment": "pacchiardi/causal_judgment/gpt-4-0613.jsonl",
    "commonsense_qa_2": "pacchiardi/commonsense_qa_2/gpt-4-0613.jsonl",
    "moral_permissibility": "pacchiardi/moral_permissibility/gpt-4-0613.jsonl",
    "neubaroco": "pacchiardi/neubaroco/gpt-4-0613.jsonl",
    "fantasy_reasoning": "kindsofreasoning/fantasy_reasoning.jsonl",
    "metaphor_boolean": "kindsofreasoning/metaphor_boolean.jsonl",
}


@pytest.mark.parametrize("n", [5, 7, 184, 197, 338, 363, 676, 2537])
def test_split_is_what_dataframe_sample_gave_their_code(n: int) -> None:
    frame = pd.DataFrame({"row": np.arange(n)}).sample(frac=1, random_state=42).reset_index(drop=True)
    rng = np.random.RandomState(42)
    train = frame.sample(frac=0.6, random_state=rng)
    rest = frame.drop(train.index)
    val = rest.sample(frac=0.5, random_state=rng)
    test = rest.drop(val.index)
    ours = paper_split(n)
    for theirs, mine in zip((train, val, test), ours, strict=True):
        assert theirs["row"].tolist() == mine.tolist()


def test_split_sizes_are_those_of_the_protocol_note() -> None:
    sizes = {n: tuple(part.size for part in paper_split(n)) for n in (197, 184, 338, 363, 676, 2537)}
    assert sizes == {
        197: (118, 40, 39),
        184: (110, 37, 37),
        338: (203, 68, 67),
        363: (218, 72, 73),
        676: (406, 135, 135),
        2537: (1522, 508, 507),
    }


def _samples_file(path: Path, prompts: list[str]) -> Path:
    lines = [
        {
            "input": [{"role": "system", "content": "Answer."}, {"role": "user", "content": p}],
            "ideal": ["No.", "Yes."][i % 2],
        }
        for i, p in enumerate(prompts)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_samples_lines_are_ordered_by_their_evals_ids_as_strings_and_deduplicated_in_that_order(
    tmp_path: Path,
) -> None:
    prompts = [f"question {i}" for i in range(12)]
    prompts[10] = prompts[2]  # line 10 sorts before line 2 ("test.10" < "test.2"): the copy at 10 is kept
    benchmark = pfungst.load(_samples_file(tmp_path / "toy.jsonl", prompts))
    assert paper_sample_id(benchmark[3], benchmark) == "toy.test.3"
    rows = paper_rows(benchmark)
    order = [int(paper_sample_id(item, benchmark).rsplit(".", 1)[1]) for item in rows]
    assert order == [0, 1, 10, 11, 3, 4, 5, 6, 7, 8, 9]
    assert len(rows) == 11 and rows.provenance.steps[-2].startswith("paper order")


def test_audit_under_the_paper_protocol_takes_the_paper_rows(tmp_path: Path) -> None:
    prompts = [f"question {i} about {'cats' if i % 2 else 'dogs'} and more" for i in range(30)]
    prompts[20] = prompts[3]
    benchmark = pfungst.load(_samples_file(tmp_path / "toy.jsonl", prompts))
    result = pfungst.audit.audit(
        benchmark,
        protocol="pacchiardi2024",
        feature_sets=("1-grams_tf",),
        n_bootstrap=10,
        n_permutations=10,
        heuristics=False,
        cues=False,
    )
    assert result.best.item_ids == tuple(item.id for item in paper_rows(benchmark))
    assert len(result.best.item_ids) == 29 and int(result.best.predicted.sum()) == paper_split(29)[2].size


def test_evals_rows_come_in_string_order_of_the_sample_ids(shared_data: Path) -> None:
    rows = paper_rows(pfungst.load(shared_data / SOURCES["neubaroco"]))
    assert [item.id for item in rows][:5] == [f"neubaroco.test.{k}" for k in ("0", "1", "10", "100", "101")]
    assert len(rows) == 363


@pytest.mark.parametrize(
    ("dataset", "expected"),
    [
        ("fantasy_reasoning", {"no": 29, "yes": 10}),
        ("metaphor_boolean", {"false": 75, "true": 60}),
        ("moral_permissibility", {"no": 34, "yes": 33}),
        ("causal_judgment", {"yes": 19, "no": 18}),
        ("neubaroco", {"neutral": 38, "entailment": 21, "contradiction": 14}),
        ("commonsense_qa_2", {"no": 268, "yes": 239}),
    ],
)
def test_test_labels_are_those_behind_the_published_constant_cells(
    dataset: str, expected: dict[str, int], shared_data: Path
) -> None:
    rows = paper_rows(pfungst.load(shared_data / SOURCES[dataset]))
    test = paper_split(len(rows))[2]
    assert Counter(rows[int(i)].answer for i in test) == expected


@pytest.mark.slow
def test_every_deterministic_cell_of_the_published_table_is_reproduced(shared_data: Path) -> None:
    """Cells whose chosen model is the L2 logistic regression (lbfgs, no seed) are deterministic: 13 of the 78.

    All are within 0.03: the 10 n-gram cells and, with ``pfungst[paper]`` (the paper's nine readability measures on
    NLTK tokens and syllapy syllables), the 3 readability cells (moral_permissibility, fantasy_reasoning,
    metaphor_boolean).
    """
    if not paper_readability_available():
        pytest.skip("the paper's readability cells need pip install 'pfungst[paper]'")
    if not REFERENCE.is_file():
        pytest.skip(f"reference table not found at {REFERENCE}")
    reference = pd.read_csv(REFERENCE).set_index(["dataset", "feature_set"])["kappa_test_2dp"]
    deterministic, missed = 0, []
    for dataset, source in SOURCES.items():
        inputs = ItemInputs.from_benchmark(paper_rows(pfungst.load(shared_data / source)))
        for name in PAPER_FEATURE_SETS:
            outcome = run_probe(get_feature_set(name), inputs, PAPER)
            if outcome.final_classifier == "l2_C1":
                deterministic += 1
                published = reference[(dataset, get_feature_set(name).paper_name)]
                if abs(round(outcome.chance_corrected_accuracy.value, 2) - published) > 0.03 + 1e-9:
                    missed.append((dataset, name))
    assert deterministic == 13
    assert missed == []


def test_protocol_runs_on_a_samples_file_without_published_values(shared_data: Path) -> None:
    """copa's lines carry their own ``id``; the paper's order still follows the line numbers."""
    benchmark = pfungst.load(shared_data / "kindsofreasoning" / "copa.jsonl")
    rows = paper_rows(benchmark)
    assert [paper_sample_id(item, benchmark) for item in rows][:3] == ["copa.test.0", "copa.test.1", "copa.test.10"]
    outcome = run_probe(get_feature_set("1-grams_presence"), ItemInputs.from_benchmark(rows), PAPER)
    assert int(outcome.predicted.sum()) == paper_split(len(rows))[2].size
