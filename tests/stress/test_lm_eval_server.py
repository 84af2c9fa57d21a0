"""The real round trip: ``pfungst export lm-eval``, real ``lm_eval`` against a real ``python -m llama_cpp.server`` on
the embedded SmolLM2 (its ``local-completions`` model), ``pfungst stress --from-logs``; the outcomes equal, choice
for choice, what pfungst's own engine gives for the same plan through the same server.

llama-cpp-python's server computes echo log-probabilities slowly (a quarter of a second per prompt token on two
busy cores, where lm-eval asks one echo per choice), so the items are short questions with three options: ten as
given, three in every rotation, under cloze scoring. Letter scoring is not tested here: lm-eval reads a
continuation's log-likelihood from the echo *minus its last token*, taking that for the one generated token, and
llama-cpp-python's server generates none where end-of-sequence is likeliest (after a bare label ``"B"``), so lm-eval
would log 0 for such a choice (pfungst refuses those logs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

for _module in ("lm_eval", "transformers", "gguf", "tokenizers", "llama_cpp", "httpx"):
    pytest.importorskip(_module, reason=f"the lm-eval round trip needs: pip install 'pfungst[lm-eval]' ({_module})")

import pfungst  # noqa: E402
from pfungst.data import Benchmark, Item  # noqa: E402
from pfungst.errors import MissingDependency  # noqa: E402
from pfungst.evaluate import Outcome  # noqa: E402
from pfungst.evaluate.run_config import RunConfig  # noqa: E402
from pfungst.models.embedded import embedded_model_path  # noqa: E402
from pfungst.models.openai import OpenAIModel  # noqa: E402
from pfungst.stress import StressConfig, StressResult  # noqa: E402
from pfungst.stress.lm_eval import export_lm_eval, stress_from_logs  # noqa: E402
from tests.models.conftest import running_server  # noqa: E402
from tests.stress.smollm2_tokenizer import write_tokenizer  # noqa: E402

pytestmark = pytest.mark.slow
SMOLLM2_BOS = "<|im_start|>\n"  # counted as one token by the test tokenizer: see smollm2_tokenizer.py
QUESTIONS = (
    ("2 + 2 =", ("4", "5", "3"), 0),
    ("The sky is", ("green", "blue", "loud"), 1),
    ("Cows say", ("woof", "meow", "moo"), 2),
    ("Ice is", ("cold", "hot", "sour"), 0),
    ("The sun rises in the", ("west", "east", "sea"), 1),
    ("A week has days:", ("five", "ten", "seven"), 2),
    ("Fish live in", ("water", "trees", "fire"), 0),
    ("Paris is in", ("Spain", "France", "Peru"), 1),
    ("Snow is", ("black", "red", "white"), 2),
    ("10 - 3 =", ("7", "8", "6"), 0),
)


def _benchmark(n: int = len(QUESTIONS)) -> Benchmark:
    items = tuple(Item(f"t{i}", text, options, gold) for i, (text, options, gold) in enumerate(QUESTIONS[:n]))
    return Benchmark("tiny", items)


@pytest.fixture(scope="module")
def smollm2_path() -> Path:
    try:
        return embedded_model_path()
    except MissingDependency as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def server(smollm2_path: Path) -> Iterator[str]:
    with running_server(smollm2_path) as url:
        yield url


@pytest.mark.parametrize(
    ("rule", "perturbations", "n_items"),
    [("cloze-raw", (), 10), ("cloze-raw", ("cyclic",), 3)],
    ids=["cloze-10-items", "cloze-cyclic-3-items"],
)
def test_lm_eval_logs_give_pfungsts_own_choices(
    server: str, smollm2_path: Path, tmp_path: Path, rule: str, perturbations: tuple[str, ...], n_items: int
) -> None:
    config = StressConfig(
        run=RunConfig(rule=rule, cache=False), perturbations=perturbations, rules=(rule,), n_bootstrap=200
    )
    benchmark = _benchmark(n_items)
    export_lm_eval(benchmark, tmp_path / "tasks", config, bos_text=SMOLLM2_BOS)
    tokenizer = write_tokenizer(smollm2_path, tmp_path / "tokenizer", counted_as_one=SMOLLM2_BOS)
    _run_lm_eval(server, tokenizer, tmp_path / "tasks", tmp_path / "out")

    from_logs = stress_from_logs(tmp_path / "out")
    with OpenAIModel(server, "smollm2", bos_text=SMOLLM2_BOS, max_concurrency=1) as model:
        direct = pfungst.stress.stress(benchmark, model, config)

    key = lambda o: (o.perturbation, o.variant, o.rule, o.item_id)  # noqa: E731
    assert sorted(map(key, from_logs.outcomes)) == sorted(map(key, direct.outcomes))
    chosen = {key(o): o.chosen for o in direct.outcomes}
    assert {key(o): o.chosen for o in from_logs.outcomes} == chosen
    gaps = [abs(a - b) for o in from_logs.outcomes for a, b in zip(o.scores, _twin(direct, o).scores, strict=True)]
    assert max(gaps) < 1e-3
    summary = {
        "rule": rule,
        "outcomes": len(from_logs.outcomes),
        "max_score_gap": max(gaps),
        "accuracy": [(a.perturbation, a.variant, a.accuracy.value) for a in from_logs.accuracies],
    }
    print(json.dumps(summary))


def _twin(result: StressResult, outcome: Outcome) -> Outcome:
    return next(
        o
        for o in result.outcomes
        if (o.perturbation, o.variant, o.rule, o.item_id)
        == (outcome.perturbation, outcome.variant, outcome.rule, outcome.item_id)
    )


LM_EVAL_WITHOUT_BUILTIN_TASKS = """
import sys
from lm_eval.__main__ import cli_evaluate
from lm_eval.tasks import TaskManager
index_all = TaskManager.__init__
TaskManager.__init__ = lambda self, *args, **kwargs: index_all(self, *args, **{**kwargs, "include_defaults": False})
sys.argv[0] = "lm_eval"
cli_evaluate()
"""
"""``python -m lm_eval``, except that its task manager indexes only ``--include_path``: lm_eval reads every one of
its own thousands of task files at each start (about 20 s of a busy core), and the exported tasks use none."""


def _run_lm_eval(server: str, tokenizer: Path, tasks: Path, out: Path) -> None:
    """The ``lm_eval`` command line with its OpenAI-compatible completions model; requests sent as text
    (llama-cpp-python's server takes no token lists), context tokens counted with the SmolLM2 tokenizer."""
    model_args = (
        f"model=smollm2,base_url={server}/v1/completions,tokenizer_backend=huggingface,tokenizer={tokenizer},"
        "tokenized_requests=False,num_concurrent=1,max_retries=2"
    )
    command = [sys.executable, "-c", LM_EVAL_WITHOUT_BUILTIN_TASKS, "--model", "local-completions"]
    command += ["--model_args", model_args]
    command += ["--include_path", str(tasks), "--tasks", "pfungst_tiny", "--log_samples", "--output_path", str(out)]
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_CACHE": str(out / "hf")}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
