from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pfungst.cli import app

runner = CliRunner()


def _one_item(folder: Path) -> Path:
    """A valid one-item JSONL file: for errors that must come before any data is read or audited."""
    data = folder / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 1}\n')
    return data


def test_formats_lists_every_reader_one_line_each() -> None:
    from pfungst.data.readers import READERS

    result = runner.invoke(app, ["formats", "--what", "readers"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert [line.split()[0] for line in lines] == list(READERS)


def test_inspect_prints_histograms_and_writes_json(tmp_path: Path) -> None:
    data = tmp_path / "items.csv"
    data.write_text("question,A,B,answer\nOne?,x,y,A\nTwo?,x,z,B\nOne?,x,y,A\n")
    out = tmp_path / "summary.json"
    result = runner.invoke(app, ["inspect", str(data), "--map", "option_columns=A,B", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "gold positions" in result.output and "duplicate texts 1" in result.output
    summary = json.loads(out.read_text())
    assert summary["gold_counts"] == {"A": 2, "B": 1}
    assert summary["provenance"]["data"][0]["rows_read"] == 3


def test_user_error_exits_2_with_one_message_and_no_traceback(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 5}\n')
    result = runner.invoke(app, ["inspect", str(data), "--reader", "jsonl"])
    assert result.exit_code == 2
    assert "items.jsonl:1: field 'answer': answer index 5 is out of range" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_skip_policy_reports_rejected_rows(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text(
        '{"question": "q", "choices": ["a", "b"], "answer": 5}\n{"question": "r", "choices": ["a", "b"], "answer": 1}\n'
    )
    result = runner.invoke(app, ["inspect", str(data), "-r", "jsonl", "--on-error", "skip"])
    assert result.exit_code == 0, result.output
    assert "rejected 1" in result.output and "rejected: " in result.output


def test_bad_map_syntax_is_a_user_error(tmp_path: Path) -> None:
    data = _one_item(tmp_path)
    result = runner.invoke(app, ["inspect", str(data), "--map", "question"])
    assert result.exit_code == 2
    assert "expected KEY=VALUE" in result.output


@pytest.mark.slow  # the whole demo with the embedded model
def test_demo_writes_the_planted_benchmarks_and_stresses_the_embedded_model(tmp_path: Path) -> None:
    _need_smollm2()
    result = runner.invoke(
        app,
        ["demo", "--out", str(tmp_path), "--items", "60", "--seed", "1", "--stress-items", "2", "--quiet", "--verbose"],
    )
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in tmp_path.glob("*.jsonl"))
    assert written == ["control.jsonl", "cue-word.jsonl", "gold-position.jsonl", "longest-option.jsonl"]
    assert "planted" in result.output
    stressed = json.loads((tmp_path / "gold-position.stress.json").read_text())
    # identity and answer-moved (1 + 4 questions) per item, PriDe's 4 rotations of one estimation item
    assert stressed["n_items"] == 2 and len(stressed["outcomes"]) == 2 * (1 + 4) + 4
    output = " ".join(result.output.split())
    assert (
        "Model stress: " in output
        and " on gold-position" in output
        and "items: 2" in output
        and "With the answer moved to each slot" in output
    )


def test_demo_rejects_zero_stress_items_with_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--out", str(tmp_path / "demo"), "--stress-items", "0"])
    assert result.exit_code == 2 and "--stress-items" in result.output and "got 0" in result.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("pfungst ")


@pytest.mark.slow  # three audits
def test_audit_writes_json_items_and_fixed_copies(tmp_path: Path) -> None:
    from pfungst.data.synthetic import make_synthetic

    data = make_synthetic("gold-position", 200, seed=2).save(tmp_path / "gp.jsonl")
    result = runner.invoke(
        app,
        [
            "audit",
            str(data),
            "--n-bootstrap",
            "100",
            "--n-permutations",
            "100",
            "--quiet",
            "--json",
            str(tmp_path / "a.json"),
            "--items",
            str(tmp_path / "items.csv"),
            "--fix",
            str(tmp_path / "fixed"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Position artifact: gold is the first option (A)" in " ".join(result.output.split())
    assert json.loads((tmp_path / "a.json").read_text())["verdict"]["label"] == "predictable"
    assert (tmp_path / "items.csv").read_text().startswith("item_id,")
    assert sorted(p.name for p in (tmp_path / "fixed").iterdir()) == [
        "gp.counterbalanced.jsonl",
        "gp.filtered.jsonl",
        "gp.fix.json",
        "gp.predictability.csv",
    ]
    # The counterbalanced copy is audited again: its gold-position artifact is gone, and the residual verdict says so.
    assert "gp (counterbalanced)" in result.output
    residual = json.loads((tmp_path / "fixed" / "gp.fix.json").read_text())["residual"]
    assert residual["counterbalanced"]["label"] == "no evidence"
    assert "counterbalanced copy (200 items): no evidence of a cue left" in " ".join(result.output.split())


@pytest.mark.slow  # three audits
def test_fail_on_applies_to_a_mitigated_copy_that_is_still_predictable(tmp_path: Path) -> None:
    from pfungst.data.synthetic import make_synthetic

    data = make_synthetic("longest-option", 400).save(tmp_path / "lo.jsonl")
    card = tmp_path / "card.md"
    options = ["--n-bootstrap", "200", "--n-permutations", "100", "--quiet", "--card", str(card)]
    result = runner.invoke(
        app, ["audit", str(data), *options, "--fix", str(tmp_path / "fixed"), "--fail-on", "content"]
    )
    assert result.exit_code == 3, result.output
    output = " ".join(result.output.split())
    # Rotating the options cannot remove a length cue: the copy is said to be still predictable, and fails the gate.
    assert "counterbalanced copy (400 items): STILL PREDICTABLE" in output
    assert "lo (counterbalanced): [content] Predictable" in output
    assert "STILL PREDICTABLE" in card.read_text()


def test_audit_rejects_an_unknown_feature_set_before_any_work(tmp_path: Path) -> None:
    data = _one_item(tmp_path)
    result = runner.invoke(app, ["audit", str(data), "--feature-set", "1-grams_tfdf"])
    assert result.exit_code == 2
    assert "Did you mean: 1-grams_tfidf" in result.output


def test_audit_in_two_threads_gives_the_serial_verdict(tmp_path: Path) -> None:
    from pfungst.data.synthetic import make_synthetic

    data = make_synthetic("cue-word", 400).save(tmp_path / "cue.jsonl")
    common = ["audit", str(data), "--feature-set", "1-grams_presence", "--fields", "hypothesis", "--quiet"]
    common += ["--n-bootstrap", "100", "--n-permutations", "100"]
    serial = runner.invoke(app, [*common, "--json", str(tmp_path / "serial.json")])
    threads = runner.invoke(
        app, [*common, "--n-jobs", "2", "--parallel", "threads", "--json", str(tmp_path / "threads.json")]
    )
    assert serial.exit_code == 0 and threads.exit_code == 0, threads.output
    verdicts = [json.loads((tmp_path / f"{name}.json").read_text())["verdict"] for name in ("serial", "threads")]
    assert verdicts[0] == verdicts[1] and verdicts[0]["label"] == "predictable"


def test_audit_says_which_feature_sets_ran_and_all_feature_sets_is_an_option(tmp_path: Path) -> None:
    from pfungst.data.synthetic import make_synthetic

    data = make_synthetic("cue-word", 200).save(tmp_path / "cue.jsonl")
    command = ["audit", str(data), "--feature-set", "1-grams_presence", "--fields", "hypothesis", "--quiet"]
    result = runner.invoke(
        app, [*command, "--n-bootstrap", "50", "--n-permutations", "50", "--all-feature-sets", "--verbose"]
    )
    assert result.exit_code == 0, result.output
    printed = " ".join(result.output.split())
    assert "all_feature_sets has no effect when feature sets are named" in printed
    assert "feature sets probed (1): 1-grams_presence; why: named in the settings" in printed


def test_audit_rejects_an_unknown_parallel_mode_before_any_work(tmp_path: Path) -> None:
    data = _one_item(tmp_path)
    result = runner.invoke(app, ["audit", str(data), "--parallel", "fibers"])
    assert result.exit_code == 2
    assert "parallel (--parallel) must be 'processes' or 'threads', not 'fibers'" in result.output


# --- pfungst score: the embedded SmolLM2 model on real ARC-Easy items -------------------------------------------

SCORE_RULES = ["letter", "cloze-raw", "cloze-token", "cloze-byte", "pmi", "generate"]


def _arc_easy(shared_data: Path) -> Path:
    import pytest

    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from pfungst.errors import MissingDependency
    from pfungst.models.embedded import embedded_model_path

    try:
        embedded_model_path()
    except MissingDependency as exc:
        pytest.skip(str(exc))
    return shared_data / "llm_foundry" / "arc_easy.jsonl"


def _score(data: Path, cache: Path, *options: str) -> Any:
    saved = () if "--json" in options else ("--json", str(cache.with_suffix(".score.json")))  # not beside shared data
    return runner.invoke(
        app, ["score", str(data), "--cache", str(cache), "--threads", "1", "--quiet", *saved, *options]
    )


def test_score_writes_per_item_results_and_prints_accuracy_with_interval(shared_data: Path, tmp_path: Path) -> None:
    data = _arc_easy(shared_data)
    out, summary = tmp_path / "results.jsonl", tmp_path / "summary.json"
    result = _score(
        data,
        tmp_path / "cache.sqlite",
        "--limit",
        "20",
        "--rule",
        "cloze-raw",
        "--out",
        str(out),
        "--json",
        str(summary),
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert re.search(
        r"[Aa]ccuracy 0\.\d{3} \[0\.\d{3}, [01]\.\d{3}\] \(95% Wilson interval\), chance 0\.250, n = 20", text
    ), text
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 20 and all(len(r["scores"]) == len(r["n_tokens"]) == 4 for r in records)
    written = json.loads(summary.read_text())
    assert written["counts"]["misses"] == 80 and written["accuracy"]["value"] >= 0.4  # cloze works (0.65 measured)


def test_score_runs_every_scoring_rule_end_to_end(shared_data: Path, tmp_path: Path) -> None:
    data, cache = _arc_easy(shared_data), tmp_path / "cache.sqlite"
    summaries = {}
    for rule in SCORE_RULES:
        path = tmp_path / f"{rule}.json"
        result = _score(
            data,
            cache,
            "--limit",
            "5",
            "--rule",
            rule,
            "--json",
            str(path),
            "--out",
            str(tmp_path / f"{rule}.parquet"),
        )
        assert result.exit_code == 0, f"{rule}: {result.output}"
        summaries[rule] = json.loads(path.read_text())
    assert all(s["n_items"] == 5 and s["provenance"]["settings"]["rule"] == rule for rule, s in summaries.items())
    assert summaries["cloze-token"]["counts"]["misses"] == 0  # the same log-likelihoods as cloze-raw, from the cache
    assert summaries["pmi"]["counts"]["hits"] == 20 and summaries["pmi"]["counts"]["misses"] == 20
    assert summaries["generate"]["counts"]["unique_requests"] == 5


def _cache_rows(path: Path) -> int:
    import sqlite3

    try:
        with sqlite3.connect(path, timeout=1) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.slow  # two scoring runs with the embedded model
def test_score_killed_with_sigkill_resumes_without_repeating_a_model_call(shared_data: Path, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    data, cache = _arc_easy(shared_data), tmp_path / "cache.sqlite"
    options = ["--limit", "12", "--rule", "cloze-raw", "--chunk-size", "2"]  # 48 requests, stored 2 at a time
    command = [
        sys.executable,
        "-m",
        "pfungst.cli",
        "score",
        str(data),
        "--cache",
        str(cache),
        "--threads",
        "1",
        "--quiet",
        "--json",
        str(tmp_path / "killed.json"),  # never beside the shared data file
        *options,
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"}
    )
    deadline = time.monotonic() + 120
    while _cache_rows(cache) == 0 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    stored = _cache_rows(cache)
    assert process.returncode == -signal.SIGKILL and 0 < stored < 48, (process.returncode, stored)

    resumed = _score(
        data, cache, *options, "--out", str(tmp_path / "resumed.jsonl"), "--json", str(tmp_path / "resumed.json")
    )
    assert resumed.exit_code == 0, resumed.output
    counts = json.loads((tmp_path / "resumed.json").read_text())["counts"]
    assert (counts["hits"], counts["misses"]) == (stored, 48 - stored)

    whole = _score(data, tmp_path / "fresh.sqlite", *options, "--out", str(tmp_path / "whole.jsonl"))
    assert whole.exit_code == 0, whole.output
    assert (tmp_path / "resumed.jsonl").read_text() == (tmp_path / "whole.jsonl").read_text()


def test_score_interrupted_with_ctrl_c_exits_130_and_keeps_its_answers(shared_data: Path, tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    data, cache = _arc_easy(shared_data), tmp_path / "cache.sqlite"
    command = [
        sys.executable,
        "-m",
        "pfungst.cli",
        "score",
        str(data),
        "--cache",
        str(cache),
        "--threads",
        "1",
        "--quiet",
        "--limit",
        "200",  # 800 requests: still running when the first rows are seen, even on a busy machine
        "--chunk-size",
        "2",
        "--json",
        str(tmp_path / "interrupted.json"),  # never beside the shared data file
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # as from a terminal: a run started in the background (nohup, `cmd &` in a script) inherits SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while _cache_rows(cache) == 0 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert 0 < _cache_rows(cache) < 800


# --- pfungst stress: the embedded SmolLM2 model on a tiny benchmark ---------------------------------------------


def _need_smollm2() -> None:
    """Skip, with the install line as reason, where the embedded model or llama.cpp is not installed."""
    import pytest

    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from pfungst.errors import MissingDependency
    from pfungst.models.embedded import embedded_model_path

    try:
        embedded_model_path()
    except MissingDependency as exc:
        pytest.skip(str(exc))


def _tiny_benchmark(folder: Path) -> Path:
    data = folder / "tiny.jsonl"
    rows = [  # pfungst's native JSON lines
        {
            "id": "sky",
            "text": "What colour is the sky on a clear day?",
            "options": ["green", "blue", "red", "black"],
            "gold": 1,
        },
        {"id": "dog", "text": "How many legs does a dog have?", "options": ["four", "two", "six", "eight"], "gold": 0},
        {"id": "fruit", "text": "Which is a fruit?", "options": ["carrot", "potato", "apple", "onion"], "gold": 2},
        {"id": "sum", "text": "What is 2 + 2?", "options": ["3", "5", "6", "4"], "gold": 3},
        {"id": "cow", "text": "Which animal says moo?", "options": ["cat", "cow", "dog", "duck"], "gold": 1},
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return data


def _stress(data: Path, tmp_path: Path, name: str, *options: str) -> tuple[Any, dict[str, Any]]:
    summary = tmp_path / f"{name}.json"
    cache = tmp_path / "cache.sqlite"
    result = runner.invoke(
        app,
        [
            "stress",
            str(data),
            "--model",
            "smollm2",
            "--limit",
            "4",
            "-p",
            "identity",
            "-p",
            "cyclic",
            "--rules",
            "letter",
            "-p",
            "rules",
            "--cache",
            str(cache),
            "--threads",
            "1",
            "--n-bootstrap",
            "100",
            "--quiet",
            "--json",
            str(summary),
            *options,
        ],
    )
    assert result.exit_code == 0, result.output
    return result, json.loads(summary.read_text())


def test_stress_writes_json_and_items_then_resumes_from_its_cache(tmp_path: Path) -> None:
    _need_smollm2()
    data = _tiny_benchmark(tmp_path)
    items = tmp_path / "outcomes.jsonl"
    result, summary = _stress(data, tmp_path, "first", "--items", str(items), "--verbose")
    assert summary["schema_version"] == "pfungst.stress/2" and summary["n_items"] == 4
    assert [p["name"] for p in summary["provenance"]["settings"]["perturbations"]] == ["identity", "cyclic", "rules"]
    lines = [json.loads(line) for line in items.read_text().splitlines()]
    assert len(lines) == 4 * (1 + 4 + 1)
    assert sorted({line["perturbation"] for line in lines}) == ["cyclic", "identity", "rules"]
    # identity, cyclic shift 0 and the letter rule ask the same question: 4 rotations x 4 items distinct requests.
    assert summary["counts"]["unique_requests"] == 16 == summary["counts"]["misses"]
    assert "Circular versus plain (letter, cyclic rotations)" in " ".join(result.output.split())

    _, again = _stress(data, tmp_path, "again")
    assert (again["counts"]["model_calls"], again["counts"]["misses"], again["counts"]["hits"]) == (0, 0, 16)
    assert again["accuracies"] == summary["accuracies"]


def test_stress_rejects_an_unknown_perturbation_with_exit_2(tmp_path: Path) -> None:
    data = _tiny_benchmark(tmp_path)
    result = runner.invoke(app, ["stress", str(data), "-p", "cyclc", "--cache", str(tmp_path / "cache.sqlite")])
    assert result.exit_code == 2
    assert "Unknown perturbation 'cyclc'. Did you mean: cyclic?" in " ".join(result.output.split())
    assert "Traceback" not in result.output
    assert not (tmp_path / "cache.sqlite").exists()  # rejected before the model was loaded


def test_stress_cluster_by_a_key_the_items_lack_exits_2_naming_it(tmp_path: Path) -> None:
    _need_smollm2()
    data = _tiny_benchmark(tmp_path)
    result = runner.invoke(app, ["stress", str(data), "-p", "identity", "--cluster-by", "chapter", "--threads", "1"])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "cluster_by 'chapter': 5 of 5 items of 'tiny' have no metadata key or field 'chapter'" in message
    assert "Use --cluster-by auto|none|FIELD" in message and "Traceback" not in result.output


def test_stress_rejects_a_permutation_count_that_is_not_a_number(tmp_path: Path) -> None:
    data = _tiny_benchmark(tmp_path)
    result = runner.invoke(app, ["stress", str(data), "-p", "permutations:n=abc"])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "perturbation 'permutations': parameter 'n' must be a whole number or 'all', got 'abc'" in message
    assert "Traceback" not in result.output


def test_score_without_the_llama_extra_exits_2_naming_it(tmp_path: Path, monkeypatch: Any) -> None:
    """The core install leaves out llama-cpp-python (it compiles for minutes); the embedded model then says which
    extra to install, with exit 2 and no traceback."""
    import sys

    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` raise ImportError
    data = tmp_path / "items.jsonl"
    data.write_text('{"question": "q", "choices": ["a", "b"], "answer": 0}\n')
    result = runner.invoke(app, ["score", str(data), "--reader", "jsonl", "--cache", str(tmp_path / "c.sqlite")])
    assert result.exit_code == 2, result.output
    assert "pip install 'pfungst[llama]'" in " ".join(result.output.split())
    assert "Traceback" not in result.output
