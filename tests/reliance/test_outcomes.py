"""Reading per-item model outcomes: every format, the duplicate rule, and the real Pacchiardi et al. logs."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from pfungst.data.readers.openai_evals import read_model_answers
from pfungst.errors import ConfigError, ReaderError
from pfungst.evaluate.outcome import Outcome
from pfungst.reliance import read_outcomes

GOLDEN_STRESS = Path(__file__).parents[1] / "golden" / "demo" / "gold-position.stress.json.gz"
"""A stress result with its outcomes (24 items), as the demo wrote it."""


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _evals_log(path: Path, model: str = "m-0613") -> Path:
    """Three samples: right (after the parse rule), wrong, unparseable."""
    events: list[dict] = [{"spec": {"completion_fns": [model], "base_eval": "task", "run_id": "r"}}]
    for i, (sampled, expected) in enumerate((("Yes", "yes"), ("no", "yes"), ("maybe", "no"))):
        events.append(
            {
                "sample_id": f"task.{i}",
                "type": "sampling",
                "data": {"prompt": [{"role": "user", "content": f"Q{i}?"}], "sampled": [sampled]},
            }
        )
        events.append({"sample_id": f"task.{i}", "type": "match", "data": {"expected": expected, "correct": False}})
    return _write_jsonl(path, events)


def test_evals_log_uses_the_parse_rule_and_counts_unparsed(tmp_path: Path) -> None:
    (outcomes,) = read_outcomes(_evals_log(tmp_path / "log.jsonl"))
    assert (outcomes.model, outcomes.dataset, outcomes.format) == ("m-0613", "task", "openai-evals")
    assert dict(outcomes.correct) == {"task.0": True, "task.1": False, "task.2": False}
    assert outcomes.n_unparsed == 1
    assert outcomes.metadata["evals_accuracy"] == 0.0


def test_real_pacchiardi_logs_give_14_models_on_4_datasets(shared_data: Path) -> None:
    found = read_outcomes(shared_data / "pacchiardi")
    assert len(found) == 56
    assert {o.format for o in found} == {"openai-evals"}
    sizes = {o.dataset: len(o) for o in found}
    assert sizes == {"causal_judgment": 186, "commonsense_qa_2": 2537, "moral_permissibility": 338, "neubaroco": 371}
    assert len({o.model for o in found}) == 14
    path = shared_data / "pacchiardi" / "neubaroco" / "gpt-4-0613.jsonl"
    (one,) = read_outcomes(path)
    assert one.accuracy == pytest.approx(read_model_answers(path).accuracy)


def _score_line(item_id: str, correct: bool, status: str = "ok") -> dict:
    return {
        "item_id": item_id,
        "gold": 0,
        "chosen": 0 if correct else (1 if status == "ok" else -1),
        "correct": correct,
        "scores": [0.0, -1.0],
        "status": status,
        "text": "",
        "n_tokens": [],
    }


def test_score_lines_take_the_model_from_the_stem_or_the_argument(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "smollm2.jsonl", [_score_line("a", True), _score_line("b", False, "unparseable")])
    (outcomes,) = read_outcomes(path)
    assert (outcomes.model, outcomes.dataset, outcomes.format) == ("smollm2", "", "pfungst-score")
    assert dict(outcomes.correct) == {"a": True, "b": False}
    assert outcomes.n_unparsed == 1
    (named,) = read_outcomes(path, model="other", dataset="arc")
    assert (named.model, named.dataset) == ("other", "arc")


def test_score_json_needs_its_items(tmp_path: Path) -> None:
    from pfungst import Benchmark, Item, score
    from tests.evaluate.fakes import ScriptedModel

    benchmark = Benchmark("arc", [Item(f"q{i}", f"Which is {i}?", ("x", "y"), i % 2) for i in range(4)])
    model = ScriptedModel(next_token_script=lambda context, candidate: -0.1 if candidate.strip() == "A" else -2.0)
    scored = score(benchmark, model, cache=False)
    path = scored.save_json(tmp_path / "score.json", items=True)
    (outcomes,) = read_outcomes(path, model="fp")
    assert (outcomes.model, outcomes.dataset, dict(outcomes.correct)) == (
        "fp",
        "arc",
        {"q0": True, "q1": False, "q2": True, "q3": False},
    )
    scored.save_json(path)
    with pytest.raises(ReaderError, match=r"score\.json: field 'items': the score JSON holds no per-item items"):
        read_outcomes(path)


def _outcome(item_id: str, perturbation: str, variant: str, chosen: int) -> dict:
    return Outcome(
        item_id=item_id,
        perturbation=perturbation,
        variant=variant,
        rule="letter",
        format="mmlu",
        order=(0, 1),
        labels=("A", "B"),
        gold=0,
        chosen=chosen,
        chosen_position=chosen,
        status="ok",
        scores=(0.0, -1.0),
    ).to_dict()


STRESS = [
    _outcome("a", "identity", "identity", 0),
    _outcome("b", "identity", "identity", 1),
    _outcome("a", "cyclic", "shift 1", 1),
    _outcome("b", "cyclic", "shift 1", 0),
]


def test_stress_lines_take_identity_unless_a_variant_is_named(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "stress.jsonl", STRESS)
    (plain,) = read_outcomes(path, model="m")
    assert plain.format == "pfungst-stress"
    assert dict(plain.correct) == {"a": True, "b": False}
    assert plain.n_skipped == 2
    (shifted,) = read_outcomes(path, model="m", variant="cyclic:shift 1")
    assert dict(shifted.correct) == {"a": False, "b": True}
    with pytest.raises(ReaderError, match=r"stress\.jsonl: field 'perturbation': no outcome of perturbation pmi"):
        read_outcomes(path, variant="pmi")


def test_stress_json_reads_outcomes_and_comparisons_and_refuses_without(tmp_path: Path) -> None:
    from pfungst import read_result
    from pfungst.serialization import write_json
    from pfungst.stress.comparison import StressComparison, compare

    result = read_result(GOLDEN_STRESS)
    path = tmp_path / "stress.json"
    result.save_json(path, items=True)
    (outcomes,) = read_outcomes(path, model="fp")
    assert (outcomes.model, outcomes.dataset, len(outcomes)) == ("fp", "gold-position", 24)
    other = dataclasses.replace(result, model="fp2")
    ranks = compare([result, other], names=["fp", "fp2"], n_bootstrap=20)
    write_json(path, StressComparison((result, other), ranks).to_dict(items=True))
    assert [o.model for o in read_outcomes(path)] == [result.model, "fp2"]
    result.save_json(path)
    with pytest.raises(ReaderError, match="holds no per-item outcomes"):
        read_outcomes(path)


def _lm_eval_line(doc_id: int, acc: float, filter_name: str = "none", doc: dict | None = None) -> dict:
    return {
        "doc_id": doc_id,
        "doc": doc or {"question": f"q{doc_id}"},
        "target": 0,
        "arguments": [],
        "resps": [[["-1.0", False]]],
        "filtered_resps": [["-1.0", False]],
        "filter": filter_name,
        "metrics": ["acc", "acc_norm"],
        "acc": acc,
        "acc_norm": 1.0 - acc,
    }


def test_lm_eval_samples_take_model_from_the_folder_and_task_from_the_name(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "EleutherAI__pythia-160m" / "samples_arc_easy_2024-05-01T12-00-00.123456.jsonl",
        [_lm_eval_line(0, 1.0), _lm_eval_line(1, 0.0), _lm_eval_line(2, 1.0, doc={"id": "Q7"})],
    )
    (outcomes,) = read_outcomes(path)
    assert (outcomes.model, outcomes.dataset, outcomes.format) == ("EleutherAI__pythia-160m", "arc_easy", "lm-eval")
    assert dict(outcomes.correct) == {"0": True, "1": False, "Q7": True}
    assert outcomes.selection == "metric acc == 1, filter none"
    (normed,) = read_outcomes(path, metric="acc_norm")
    assert dict(normed.correct) == {"0": False, "1": True, "Q7": False}


def test_lm_eval_keeps_one_filter_and_rejects_non_binary_metrics(tmp_path: Path) -> None:
    lines = [_lm_eval_line(0, 1.0, "strict"), _lm_eval_line(0, 0.0, "flexible"), _lm_eval_line(1, 0.0, "strict")]
    path = _write_jsonl(tmp_path / "m" / "samples_gsm8k_2024-05-01T12-00-00.jsonl", lines)
    (strict,) = read_outcomes(path)
    assert (dict(strict.correct), strict.n_skipped) == ({"0": True, "1": False}, 1)
    (flexible,) = read_outcomes(path, variant="flexible")
    assert dict(flexible.correct) == {"0": False}
    with pytest.raises(ReaderError, match=r"gsm8k.*\.jsonl:1: field 'f1': no such metric on the line; found: acc"):
        read_outcomes(path, metric="f1")
    _write_jsonl(path, [{**_lm_eval_line(0, 1.0), "acc": 0.5}])
    with pytest.raises(ReaderError, match=r"\.jsonl:1: field 'acc': expected 0 or 1, found 0\.5"):
        read_outcomes(path)


def _helm_entry(instance_id: str, value: float, trial: int = 0, perturbation: dict | None = None) -> dict:
    name = {"name": "exact_match", "split": "test"}
    return {
        "instance_id": instance_id,
        "train_trial_index": trial,
        "perturbation": perturbation,
        "stats": [
            {"name": {"name": "num_references", "split": "test"}, "count": 1, "mean": 4.0},
            {"name": name, "count": 1, "sum": value, "mean": value},
        ],
    }


def test_helm_run_folder_skips_perturbed_entries_and_later_trials(tmp_path: Path) -> None:
    run = tmp_path / "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2"
    run.mkdir()
    entries = [
        _helm_entry("id1", 1.0),
        _helm_entry("id2", 0.0),
        _helm_entry("id1", 0.0, trial=1),
        _helm_entry("id1", 0.0, perturbation={"name": "typos", "robustness": True}),
    ]
    (run / "per_instance_stats.json").write_text(json.dumps(entries, indent=2))
    (outcomes,) = read_outcomes(run)
    assert (outcomes.model, outcomes.dataset) == ("openai_gpt2", "mmlu:subject=anatomy,method=multiple_choice_joint")
    assert dict(outcomes.correct) == {"id1": True, "id2": False}
    assert (outcomes.format, outcomes.n_skipped) == ("helm", 2)
    (run / "run_spec.json").write_text(json.dumps({"name": run.name, "adapter_spec": {"model": "openai/gpt2"}}))
    assert read_outcomes(run / "per_instance_stats.json")[0].model == "openai/gpt2"
    with pytest.raises(ReaderError, match=r"per_instance_stats\.json:\d+: field 'stats\.quasi_exact_match'"):
        read_outcomes(run, metric="quasi_exact_match")


def test_csv_reads_every_spelling_and_groups_by_model_and_dataset(tmp_path: Path) -> None:
    path = tmp_path / "outcomes.csv"
    path.write_text("model,dataset,item_id,correct\na,d1,q1,TRUE\na,d1,q2,no\nb,d1,q1,1\na,d2,q1, yes \n")
    found = read_outcomes(path)
    assert [(o.model, o.dataset, dict(o.correct)) for o in found] == [
        ("a", "d1", {"q1": True, "q2": False}),
        ("b", "d1", {"q1": True}),
        ("a", "d2", {"q1": True}),
    ]


def test_csv_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "outcomes.csv"
    path.write_text("model,item_id,correct\na,q1,true\na,q2,maybe\n")
    with pytest.raises(ReaderError, match=r"outcomes\.csv:3: field 'correct': expected true/false.*found 'maybe'"):
        read_outcomes(path)
    path.write_text("item_id,correct\nq1,true\n")
    with pytest.raises(ReaderError, match=r"outcomes\.csv:2: field 'model': no such column"):
        read_outcomes(path)
    assert read_outcomes(path, model="solo")[0].model == "solo"


def test_duplicates_that_agree_are_counted_and_those_that_disagree_refused(tmp_path: Path) -> None:
    path = tmp_path / "outcomes.csv"
    path.write_text("model,item_id,correct\na,q1,1\na,q1,true\na,q2,0\n")
    (outcomes,) = read_outcomes(path)
    assert (len(outcomes), outcomes.n_duplicates) == (2, 1)
    path.write_text("model,item_id,correct\na,q1,1\na,q2,0\na,q1,0\n")
    with pytest.raises(ReaderError, match=r"outcomes\.csv:4: field 'item_id': item 'q1' .*\(first on line 2\)"):
        read_outcomes(path)


def test_a_folder_reads_every_file_and_refuses_unknown_ones(tmp_path: Path) -> None:
    _evals_log(tmp_path / "logs" / "a.jsonl", model="a-001")
    (tmp_path / "table.csv").write_text("model,dataset,item_id,correct\nb,task,task.0,1\n")
    assert sorted(o.model for o in read_outcomes(tmp_path)) == ["a-001", "b"]
    (tmp_path / "notes.json").write_text("{}")
    with pytest.raises(ReaderError, match=r"notes\.json: not a known outcome format"):
        read_outcomes(tmp_path)


def test_unknown_format_and_unused_arguments_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "outcomes.csv"
    path.write_text("model,item_id,correct\na,q1,1\n")
    with pytest.raises(ConfigError, match="Unknown outcome format 'cvs'. Did you mean: csv"):
        read_outcomes(path, format="cvs")
    with pytest.warns(UserWarning, match="metric='acc' has no effect on csv outcomes"):
        read_outcomes(path, metric="acc")


def test_frame_has_one_row_per_item(tmp_path: Path) -> None:
    (outcomes,) = read_outcomes(_evals_log(tmp_path / "log.jsonl"))
    frame = outcomes.to_frame()
    assert list(frame.columns) == ["model", "dataset", "item_id", "correct"]
    assert frame["correct"].tolist() == [True, False, False]
    assert outcomes.to_dict()["n_unparsed"] == 1


def test_stress_lines_of_log_probability_rules_carry_option_probabilities(tmp_path: Path) -> None:
    shown = {**_outcome("a", "identity", "identity", 1), "order": [1, 0], "scores": [math.log(0.8), math.log(0.2)]}
    shown["chosen"], shown["chosen_position"] = 1, 0  # original option B, shown first
    rows = [
        shown,
        {**_outcome("b", "identity", "identity", 0), "rule": "cloze-byte"},
        {**_outcome("c", "identity", "identity", 0), "scores": [None, -1.0]},
    ]
    (outcomes,) = read_outcomes(_write_jsonl(tmp_path / "stress.jsonl", rows), model="m")
    # scores are per shown position: position 0 shows original option B
    assert dict(outcomes.answers["a"].probabilities) == pytest.approx({"A": 0.2, "B": 0.8})
    assert outcomes.answers["a"].chosen == "B"
    assert dict(outcomes.answers["b"].probabilities) == {}  # cloze-byte scores are per byte, not probabilities
    assert dict(outcomes.answers["c"].probabilities) == {}  # an infinite score (written as null)


def test_a_helm_run_spec_that_is_not_utf8_or_too_deep_is_named(tmp_path: Path) -> None:
    run = tmp_path / "mmlu:model=openai_gpt2"
    run.mkdir()
    (run / "per_instance_stats.json").write_text(json.dumps([_helm_entry("id1", 1.0)]))
    (run / "run_spec.json").write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(ReaderError, match=r"run_spec\.json: field '\(json\)': not UTF-8 text"):
        read_outcomes(run)
    (run / "run_spec.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ReaderError, match=r"run_spec\.json:1: .*nested deeper than 200 levels"):
        read_outcomes(run)


def test_a_score_json_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "score.json"
    path.write_bytes(b'{"schema_version": "pfungst.score/3", "model": "caf\xe9"}')
    with pytest.raises(ReaderError, match=r"score\.json: field '\(json\)': not UTF-8 text"):
        read_outcomes(path, format="pfungst-score")
