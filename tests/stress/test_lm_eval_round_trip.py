"""pfungst export lm-eval, then lm-eval's samples read back: the outcomes and every figure equal what
``pfungst.stress`` gives with the same model.

lm-eval itself is replaced here by :func:`run_like_lm_eval`, which asks a scripted model exactly what lm-eval's
``multiple_choice`` tasks ask (each choice's log-likelihood after the context, with the task's target delimiter) and
writes ``samples_<task>_<date>.jsonl`` lines as ``--log_samples`` does (resps as strings, arguments as
``gen_args_<i>``). The real lm-eval round trip is tests/stress/test_lm_eval_server.py.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pfungst
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError, ReaderError
from pfungst.evaluate.run_config import RunConfig
from pfungst.stress import StressConfig
from pfungst.stress.lm_eval import export_lm_eval, stress_from_logs
from pfungst.stress.metrics import CircularMetrics, SelectionBias
from tests.evaluate.fakes import ScriptedModel

GOLDS = (0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 0, 3)
PERTURBATIONS = (
    "cyclic",
    "answer-moved",
    "ids-shuffled",
    "pride:fraction=0.25",
    "rules",
    "formats:n=3",
    "instructions",
)
FAST = {"n_bootstrap": 50}


def _benchmark() -> Benchmark:
    items = []
    for i, gold in enumerate(GOLDS):
        n = 3 if i == 11 else 4
        options = [f"wrong {i}-{k}" for k in range(n)]
        options[min(gold, n - 1)] = "right answer"
        items.append(Item(f"q{i}", f"Question {i}: which one is right?", tuple(options), min(gold, n - 1)))
    return Benchmark("toy", tuple(items))


def _score(context: str, continuation: str) -> float:
    """A deterministic log-probability: a little noise, a pull towards 'A' and towards the right answer."""
    noise = (zlib.crc32((context + "\x00" + continuation).encode()) % 1000 + 0.5) / 400  # never exactly 0 below
    bonus = 1.5 * (continuation.strip() == "A") + 2.0 * ("right" in continuation)
    return -1.0 - noise + bonus


def _model() -> ScriptedModel:
    return ScriptedModel(loglikelihood_script=_score, next_token_script=_score)


def run_like_lm_eval(folder: Path, out: Path, score: Callable[[str, str], float], only: str = "") -> None:
    """Do what ``lm_eval --include_path folder --tasks <group> --log_samples --output_path out`` does with a model
    whose log-likelihoods are ``score``: one samples file per task, one line per document."""
    model_dir = out / "scripted__model"
    model_dir.mkdir(parents=True, exist_ok=True)
    for config_path in sorted(folder.glob("*.yaml")):
        config = _read_yaml(config_path)
        if "dataset_kwargs" not in config or only not in config["task"]:
            continue
        delimiter = config["target_delimiter"]
        lines = Path(config["dataset_kwargs"]["data_files"]["test"]).read_text(encoding="utf-8").splitlines()
        samples = model_dir / f"samples_{config['task']}_2026-12-02T01-00-00.000001.jsonl"
        with samples.open("w", encoding="utf-8") as handle:
            for doc_id, line in enumerate(lines):
                handle.write(json.dumps(_sample(doc_id, json.loads(line), delimiter, score)) + "\n")


def _sample(doc_id: int, doc: dict[str, Any], delimiter: str, score: Callable[[str, str], float]) -> dict[str, Any]:
    arguments = [(doc["query"], delimiter + choice) for choice in doc["choices"]]
    lls = [score(context, continuation) for context, continuation in arguments]
    target = doc["target"]
    pred = max(range(len(lls)), key=lambda i: (lls[i], -i))
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": str(target),
        "arguments": {f"gen_args_{i}": {"arg_0": c, "arg_1": k} for i, (c, k) in enumerate(arguments)},
        "resps": [[[str(ll), "False"]] for ll in lls],
        "filtered_resps": [[str(ll), "False"] for ll in lls],
        "filter": "none",
        "metrics": ["acc"],
        "acc": float(pred in target if isinstance(target, list) else pred == target),
    }


def _read_yaml(path: Path) -> dict[str, Any]:
    yaml = pytest.importorskip("yaml", reason="reading the task YAML needs PyYAML")
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def _without_tokens(data: Any) -> Any:
    """``data`` without the token counts of outcomes (which lm-eval does not log)."""
    if isinstance(data, dict):
        return {key: _without_tokens(value) for key, value in data.items() if key != "n_tokens"}
    return [_without_tokens(value) for value in data] if isinstance(data, list) else data


def _key(outcome: Any) -> tuple[Any, ...]:
    return (outcome.perturbation, outcome.variant, outcome.rule, outcome.format, outcome.item_id)


@pytest.mark.parametrize("rule", ["letter", "cloze-raw"])
def test_logs_give_the_outcomes_and_figures_of_a_direct_run(tmp_path: Path, rule: str) -> None:
    config = StressConfig(
        run=RunConfig(rule=rule), perturbations=PERTURBATIONS, rules=("letter", "cloze-raw", "cloze-byte"), **FAST
    )
    exported = export_lm_eval(_benchmark(), tmp_path / "tasks", config)
    run_like_lm_eval(tmp_path / "tasks", tmp_path / "out", _score)

    from_logs = stress_from_logs(tmp_path / "out")
    direct = pfungst.stress.stress(_benchmark(), _model(), config, cache=False)

    assert exported.group == "pfungst_toy"
    assert sorted(map(_key, from_logs.outcomes)) == sorted(map(_key, direct.outcomes))
    by_key = {_key(o): o for o in direct.outcomes}
    for outcome in from_logs.outcomes:
        twin = by_key[_key(outcome)]
        assert (outcome.order, outcome.labels, outcome.chosen, outcome.correct) == (
            twin.order,
            twin.labels,
            twin.chosen,
            twin.correct,
        )
        assert all(math.isclose(a, b, abs_tol=1e-12) for a, b in zip(outcome.scores, twin.scores, strict=True))
    assert [_without_tokens(a.to_dict()) for a in from_logs.analyses] == [
        _without_tokens(a.to_dict()) for a in direct.analyses
    ]
    assert [a.to_dict() for a in from_logs.accuracies] == [a.to_dict() for a in direct.accuracies]
    assert from_logs.analysis(CircularMetrics, perturbation="cyclic").to_dict() == (
        direct.analysis(CircularMetrics, perturbation="cyclic").to_dict()
    )


def test_every_document_stores_its_arrangement_and_the_tasks_load_as_yaml(tmp_path: Path) -> None:
    config = StressConfig(perturbations=("cyclic", "ids-shuffled"), rules=("letter",))
    result = export_lm_eval(_benchmark(), tmp_path, config, name="My Bench")
    assert dict(result.tasks) == {
        "pfungst_my_bench_identity": 12,
        "pfungst_my_bench_cyclic": 4 * 11 + 3,
        "pfungst_my_bench_ids_shuffled": 12,
    }
    group = _read_yaml(tmp_path / "pfungst_my_bench.yaml")
    assert group["group"] == "pfungst_my_bench" and group["task"] == list(result.tasks)
    task = _read_yaml(tmp_path / "pfungst_my_bench_cyclic.yaml")
    assert task["output_type"] == "multiple_choice" and task["doc_to_choice"] == "choices"
    docs = [json.loads(line) for line in (tmp_path / "pfungst_my_bench_cyclic.jsonl").read_text().splitlines()]
    shift1 = next(d for d in docs if d["item_id"] == "q1" and d["variants"] == ["shift 1"])
    assert shift1["order"] == [1, 2, 3, 0] and shift1["gold_position"] == 0 and shift1["target"] == [0, 1]
    assert shift1["choices"] == ["A", " A", "B", " B", "C", " C", "D", " D"]
    assert shift1["query"].endswith("A. right answer\nB. wrong 1-2\nC. wrong 1-3\nD. wrong 1-0\nAnswer:")
    shuffled = json.loads((tmp_path / "pfungst_my_bench_ids_shuffled.jsonl").read_text().splitlines()[0])
    assert sorted(shuffled["labels"]) == ["A", "B", "C", "D"] and shuffled["labels"] != ["A", "B", "C", "D"]


def test_cloze_tasks_use_lm_evals_space_delimiter_so_acc_norm_means_what_it_usually_does(tmp_path: Path) -> None:
    export_lm_eval(
        _benchmark(), tmp_path, StressConfig(run=RunConfig(rule="cloze-raw"), perturbations=("answer-moved",), rules=())
    )
    task = _read_yaml(tmp_path / "pfungst_toy_answer_moved.yaml")
    assert task["target_delimiter"] == " "
    assert [m["metric"] for m in task["metric_list"]] == ["acc", "acc_norm", "acc_bytes"]
    doc = json.loads((tmp_path / "pfungst_toy_answer_moved.jsonl").read_text().splitlines()[0])
    assert doc["choices"][doc["target"]] == "right answer" and doc["query"].endswith("which one is right?\nAnswer:")


def test_missing_tasks_are_named_and_partly_logged_items_left_out(tmp_path: Path) -> None:
    config = StressConfig(perturbations=("cyclic", "answer-moved"), rules=("letter",), n_bootstrap=50)
    export_lm_eval(_benchmark(), tmp_path / "tasks", config)
    run_like_lm_eval(tmp_path / "tasks", tmp_path / "out", _score, only="cyclic")
    run_like_lm_eval(tmp_path / "tasks", tmp_path / "out", _score, only="identity")
    cyclic = next((tmp_path / "out" / "scripted__model").glob("samples_pfungst_toy_cyclic_*"))
    lines = cyclic.read_text().splitlines()
    cyclic.write_text("\n".join(lines[:10]) + "\n")  # items q0, q1 whole, q2 in part (as lm_eval --limit 10)

    result = stress_from_logs(tmp_path / "out")

    assert any(w.startswith("answer-moved: no samples") for w in result.warnings)
    assert any(w.startswith("cyclic: 1 item(s) logged in part") for w in result.warnings)
    assert {o.item_id for o in result.outcomes if o.perturbation == "cyclic"} == {"q0", "q1"}
    assert result.analysis(CircularMetrics, perturbation="cyclic").n_items == 2
    assert sum(result.analysis(SelectionBias, perturbation="identity").predicted) == 12


def test_a_prompt_changed_by_lm_eval_options_is_an_error_naming_the_line(tmp_path: Path) -> None:
    export_lm_eval(_benchmark(), tmp_path / "tasks", StressConfig(perturbations=(), rules=("letter",)))
    run_like_lm_eval(tmp_path / "tasks", tmp_path / "out", _score)
    samples = next((tmp_path / "out" / "scripted__model").glob("samples_*"))
    lines = samples.read_text().splitlines()
    changed = json.loads(lines[2])
    changed["arguments"]["gen_args_0"]["arg_0"] = "Q: 1 + 1 = 2\n\n" + changed["arguments"]["gen_args_0"]["arg_0"]
    samples.write_text("\n".join([*lines[:2], json.dumps(changed), *lines[3:]]) + "\n")
    with pytest.raises(
        ReaderError, match=r"samples_pfungst_toy_identity_.*\.jsonl:3: field 'arguments'.*--num_fewshot"
    ):
        stress_from_logs(tmp_path / "out")


def test_what_needs_answers_to_plan_cannot_be_exported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="top2 cannot be exported"):
        export_lm_eval(_benchmark(), tmp_path, StressConfig(perturbations=("top2",)))
    with pytest.raises(ConfigError, match="rule 'pmi' cannot be scored from lm-eval's logs"):
        export_lm_eval(_benchmark(), tmp_path, StressConfig(run=RunConfig(rule="pmi"), perturbations=()))
    result = export_lm_eval(_benchmark(), tmp_path, StressConfig(perturbations=("rules",)))
    assert "rules: cloze-token not exported (lm-eval logs no token counts)" in result.not_exported


def test_a_folder_with_other_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "arc.yaml").write_text("task: arc\n")
    with pytest.raises(ConfigError, match=r"holds 1 file\(s\) this export would not write \(arc\.yaml\)"):
        export_lm_eval(_benchmark(), tmp_path, StressConfig(perturbations=()))


def test_a_rerun_replaces_its_files_and_a_smaller_export_never_deletes_the_earlier_ones(tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    first = export_lm_eval(_benchmark(), folder, StressConfig(perturbations=("cyclic",), rules=("letter",)))
    before = sorted(path.name for path in folder.iterdir())
    again = export_lm_eval(_benchmark(), folder, StressConfig(perturbations=("cyclic",), rules=("letter",)))
    assert again.tasks == first.tasks and sorted(path.name for path in folder.iterdir()) == before
    with pytest.raises(ConfigError, match=r"this export would not write \(pfungst_toy_cyclic\.jsonl, .*never deletes"):
        export_lm_eval(_benchmark(), folder, StressConfig(perturbations=(), rules=("letter",)))
    assert sorted(path.name for path in folder.iterdir()) == before


def test_the_command_line_exports_and_analyses_the_logs(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pfungst.cli import app

    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(item.to_dict()) + "\n" for item in _benchmark()))
    runner = CliRunner()
    exported = runner.invoke(
        app, ["export", "lm-eval", str(data), "-p", "cyclic", "-p", "answer-moved", "-o", str(tmp_path / "tasks")]
    )
    assert exported.exit_code == 0, exported.output
    assert "--tasks pfungst_items --log_samples" in exported.stdout
    run_like_lm_eval(tmp_path / "tasks", tmp_path / "out", _score)
    summary = tmp_path / "summary.json"
    analysed = runner.invoke(app, ["stress", "--from-logs", str(tmp_path / "out"), "--json", str(summary)])
    assert analysed.exit_code == 0, analysed.output
    written = json.loads(summary.read_text())
    assert written["model"] == "lm-eval:scripted__model"
    assert {a["perturbation"] for a in written["analyses"]} == {"identity", "cyclic", "answer-moved"}
    naive = runner.invoke(app, ["stress", "--from-logs", str(tmp_path / "out"), "--cluster-by", "none", "--json", "-"])
    assert naive.exit_code == 0, naive.output
    assert json.loads(naive.stdout)["provenance"]["settings"]["cluster_by"] == "none"
    missing = runner.invoke(app, ["stress", "--from-logs", str(tmp_path / "out"), "--cluster-by", "chapter"])
    assert missing.exit_code == 2 and "cluster_by 'chapter'" in missing.output
    both = runner.invoke(app, ["stress", str(data), "--from-logs", str(tmp_path / "out")])
    assert both.exit_code == 2 and "give a benchmark (DATA)" in both.output


def test_log_likelihoods_of_zero_for_every_choice_are_refused_not_read_as_ties(tmp_path: Path) -> None:
    export_lm_eval(_benchmark(), tmp_path / "tasks", StressConfig(perturbations=(), rules=("letter",)))
    run_like_lm_eval(tmp_path / "tasks", tmp_path / "out", lambda context, continuation: 0.0)
    with pytest.raises(ReaderError, match=r"jsonl:1: field 'resps': choice 0 \('A'\) has log-likelihood 0.*BOS"):
        stress_from_logs(tmp_path / "out")


def test_exporting_other_perturbations_over_an_earlier_export_is_refused_and_deletes_nothing(tmp_path: Path) -> None:
    export_lm_eval(_benchmark(), tmp_path, StressConfig(perturbations=("cyclic",), rules=("letter",)))
    before = sorted(path.name for path in tmp_path.iterdir())
    with pytest.raises(ConfigError, match=r"holds 2 file\(s\) this export would not write \(pfungst_toy_cyclic"):
        export_lm_eval(_benchmark(), tmp_path, StressConfig(perturbations=("answer-moved",), rules=("letter",)))
    assert sorted(path.name for path in tmp_path.iterdir()) == before
