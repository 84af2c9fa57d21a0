"""The inspect_ai extension run for real by inspect (mockllm with planted answers), and its log read back.

The planted model knows two of three items (it answers them right in every arrangement) and answers "A" to the
third, so every figure is known: per-position accuracy (1, 2/3, 2/3, 2/3), RStd 14.43, circular accuracy and
consistency 2/3. The metrics inspect writes in its log must be these, and must equal pfungst's own analysis of the
same log read back from ``.eval`` and from ``.json``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # inspect_ai takes about 10 s to import and each eval a few more

pytest.importorskip("inspect_ai", reason="the inspect_ai extension needs: pip install 'pfungst[inspect]'")

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import choice  # noqa: E402
from inspect_ai.solver import multiple_choice  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from pfungst.cli import app  # noqa: E402
from pfungst.errors import ConfigError  # noqa: E402
from pfungst.integrations.inspect_ai import arranged_task, arrangements  # noqa: E402
from pfungst.integrations.inspect_log import read_inspect_log  # noqa: E402
from pfungst.reliance import read_outcomes  # noqa: E402

ITEMS = [
    {"id": "q1", "text": "2 + 2 =", "options": ["3", "4", "5", "6"], "gold": 1},
    {"id": "q2", "text": "Capital of France?", "options": ["Paris", "Rome", "Berlin", "Madrid"], "gold": 0},
    {"id": "q3", "text": "Largest planet?", "options": ["Mars", "Venus", "Jupiter", "Earth"], "gold": 2},
]
KNOWN = {"2 + 2 =": "4", "Capital of France?": "Paris"}
"""The questions the planted model knows, with their answers; it answers "A" to any other."""
EXPECTED = {
    "position_1": 1.0,
    "position_2": 2 / 3,
    "position_3": 2 / 3,
    "position_4": 2 / 3,
    "rstd": 100 * math.sqrt(3) / 12,  # population std of the recalls (1, 2/3, 2/3, 2/3) x 100 = 14.43
    "circular_accuracy_cyclic": 2 / 3,
    "consistency_cyclic": 2 / 3,
    "circular_accuracy_answer-moved": 2 / 3,
    "consistency_answer-moved": 2 / 3,
    "accuracy": 18 / 24,
}


def _planted(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    prompt = input[-1].text
    answer = "A"
    for question, text in KNOWN.items():
        if question in prompt:
            answer = next(line[0] for line in prompt.splitlines() if line[1:] == f") {text}")
    output = ModelOutput.from_content(model="mockllm", content=f"ANSWER: {answer}")
    output.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)  # else mockllm downloads a tokenizer
    return output


def _run(task: Task, log_dir: Path) -> EvalLog:
    model = get_model("mockllm/model", custom_outputs=_planted)
    (log,) = eval(task, model=model, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One expanded run (cyclic and answer-moved) as ``.eval`` and as ``.json``, and one plain task's log."""
    folder = tmp_path_factory.mktemp("inspect")
    data = folder / "toy.jsonl"
    data.write_text("".join(json.dumps(item) + "\n" for item in ITEMS))
    log = _run(arrangements(data=str(data), perturbations="cyclic,answer-moved"), folder / "expanded")
    as_json = folder / "expanded.json"
    write_eval_log(read_eval_log(log.location), str(as_json))
    plain = Path(_run(_plain_task(), folder / "plain").location)
    wrapped = Path(_run(arranged_task(_plain_task(), "cyclic"), folder / "wrapped").location)
    return {"eval": Path(log.location), "json": as_json, "plain": plain, "wrapped": wrapped}


def _plain_task() -> Task:
    """An ordinary inspect multiple-choice task, as a team would already have it."""
    samples = [Sample(input=i["text"], choices=i["options"], target="ABCD"[i["gold"]], id=i["id"]) for i in ITEMS]
    return Task(dataset=MemoryDataset(samples, name="toy"), solver=multiple_choice(), scorer=choice())


def test_inspect_shows_the_planted_position_bias_and_circular_figures(logs: dict[str, Path]) -> None:
    (score,) = read_eval_log(str(logs["eval"])).results.scores  # type: ignore[union-attr]
    shown = {name: metric.value for name, metric in score.metrics.items()}
    assert {name: shown[name] for name in EXPECTED} == pytest.approx(EXPECTED)
    assert score.metrics["position_1"].group == "position_accuracy"


def test_an_existing_task_wrapped_by_arranged_task_reports_the_same_figures(logs: dict[str, Path]) -> None:
    log = read_inspect_log(logs["wrapped"])
    assert (log.scorer, log.dataset, len(log.outcomes)) == ("pfungst_choice", "toy", 12)
    cyclic = {name: value for name, value in EXPECTED.items() if "answer-moved" not in name}
    cyclic["accuracy"] = 9 / 12
    assert {name: log.metrics[name] for name in cyclic} == pytest.approx(cyclic)


def test_each_sample_in_the_log_records_its_arrangement_and_the_golds_original_index(logs: dict[str, Path]) -> None:
    samples = read_eval_log(str(logs["eval"])).samples or []
    assert len(samples) == 3 * (4 + 4)
    for sample in samples:
        record = sample.metadata["pfungst"]
        original = next(item for item in ITEMS if item["id"] == record["item_id"])
        assert record["gold"] == original["gold"]
        assert sample.choices == [original["options"][index] for index in record["order"]]
        assert sample.target == "ABCD"[record["order"].index(record["gold"])]


@pytest.mark.parametrize("kind", ["eval", "json"])
def test_the_metrics_in_the_log_equal_pfungsts_analysis_of_the_log(logs: dict[str, Path], kind: str) -> None:
    log = read_inspect_log(logs[kind])
    assert (log.model, log.task, log.scorer) == ("mockllm/model", "pfungst/arrangements", "pfungst_choice")
    assert len(log.outcomes) == 24
    # in the dataset's order, not the order the samples finished in (which moves every bootstrap interval)
    assert [(o.item_id, o.variant) for o in log.outcomes[:5]] == [("q1", f"shift {k}") for k in range(4)] + [
        ("q1", "slot 1")
    ]
    ours = log.figures(seed=0).values()
    assert ours == pytest.approx({name: log.metrics[name] for name in ours})
    assert ours == pytest.approx(EXPECTED)


def test_reliance_reads_an_expanded_log_as_each_item_in_its_original_order(logs: dict[str, Path]) -> None:
    (outcomes,) = read_outcomes(logs["eval"])
    assert outcomes.format == "inspect" and outcomes.model == "mockllm/model"
    assert dict(outcomes.correct) == {"q1": True, "q2": True, "q3": False}  # q3's gold is C; the model says A
    assert outcomes.n_skipped == 21 and "cyclic, original order" in outcomes.selection
    (moved,) = read_outcomes(logs["json"], variant="answer-moved:slot 1")
    assert dict(moved.correct) == {"q1": True, "q2": True, "q3": True}  # the gold moved to A


def test_reliance_reads_any_inspect_tasks_log_per_sample(logs: dict[str, Path]) -> None:
    (outcomes,) = read_outcomes(logs["plain"])
    assert dict(outcomes.correct) == {"q1": True, "q2": True, "q3": False}
    assert outcomes.selection == "scorer choice"


def test_a_scorer_the_log_lacks_is_refused_naming_the_scorers_it_has(logs: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match=r"Unknown scorer of this log 'nonexistent'\. Available: choice"):
        read_inspect_log(logs["plain"], scorer="nonexistent")


def test_inspect_finds_the_task_through_pfungsts_entry_point(tmp_path: Path) -> None:
    """A fresh interpreter that has not imported pfungst resolves ``pfungst/arrangements`` by the ``inspect_ai``
    entry point (declared in pyproject.toml; here in a stand-in distribution, so that the test does not depend on
    how pfungst was installed)."""
    dist = tmp_path / "entry" / "pfungst_inspect_entry-0.0.dist-info"
    dist.mkdir(parents=True)
    if not entry_points(group="inspect_ai", name="pfungst"):  # pfungst itself is not installed: stand in for it
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pfungst-inspect-entry\nVersion: 0.0\n")
        (dist / "entry_points.txt").write_text("[inspect_ai]\npfungst = pfungst.integrations.inspect_ai\n")
    data = tmp_path / "toy.jsonl"
    data.write_text("".join(json.dumps(item) + "\n" for item in ITEMS[:1]))
    script = (
        "import sys\n"
        "from inspect_ai._eval.registry import task_create  # what `inspect eval pfungst/arrangements` calls\n"
        "task = task_create('pfungst/arrangements', data=sys.argv[1], perturbations='cyclic')\n"
        "print(len(task.dataset), task.dataset[1].metadata['pfungst']['order'])\n"
    )
    installed = bool(entry_points(group="inspect_ai", name="pfungst"))
    source = "" if installed else str(Path(__file__).resolve().parents[2] / "src")  # inspect names by install
    path = os.pathsep.join([source, str(tmp_path / "entry"), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", script, str(data)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": path},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == "4 [1, 2, 3, 0]"


def test_the_command_line_prints_the_logs_metrics_beside_pfungsts_figures(logs: dict[str, Path]) -> None:
    result = CliRunner().invoke(app, ["inspect-log", str(logs["eval"]), "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["schema_version"] == "pfungst.inspect-log/1" and document["n_outcomes"] == 24
    assert document["figures"]["positions"]["rstd"]["value"] == pytest.approx(document["metrics"]["rstd"])
    assert document["figures"]["circular"]["cyclic"]["consistency"]["value"] == pytest.approx(2 / 3)


def test_a_file_that_is_not_an_inspect_log_is_a_user_error(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}')
    result = CliRunner().invoke(app, ["inspect-log", str(other)])
    assert result.exit_code == 2 and "not an inspect eval log" in " ".join(result.output.split())


def test_a_real_model_through_inspects_openai_provider_gives_the_same_figures_as_pfungst(tmp_path: Path) -> None:
    """SmolLM2 behind ``python -m llama_cpp.server``, asked by inspect's ``openai-api`` provider: the metrics in the
    log equal pfungst's analysis of the log, and every arranged sample was asked."""
    pytest.importorskip("openai", reason="inspect's openai-api provider needs: pip install openai")
    from pfungst.errors import MissingDependency
    from pfungst.models.embedded import embedded_model_path
    from tests.models.conftest import running_server

    try:
        model_path = embedded_model_path()
    except MissingDependency as exc:
        pytest.skip(str(exc))
    data = tmp_path / "toy.jsonl"
    data.write_text("".join(json.dumps(item) + "\n" for item in ITEMS[:2]))
    with running_server(model_path) as url:
        model = get_model("openai-api/llamacpp/smollm2", base_url=f"{url}/v1", api_key="none")
        task = arrangements(data=str(data), perturbations="cyclic", solver="pfungst_answer", max_tokens=4)
        (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none", temperature=0)
    assert log.status == "success", log.error
    read = read_inspect_log(log.location)
    assert len(read.outcomes) == 8
    ours = read.figures(seed=0).values()
    assert ours == pytest.approx({name: read.metrics[name] for name in ours}, nan_ok=True)
