"""The persistent cache: de-duplication, order, hits and misses, keys, resumption after SIGKILL, concurrent writers."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pfungst.errors import BackendUnavailable, ConfigError, ResponseInvalid
from pfungst.models.cache import CachedModel, request_key
from pfungst.models.requests import (
    GenerateRequest,
    Loglikelihood,
    LoglikelihoodRequest,
    NextTokenRequest,
)
from tests.models.scripted import ScriptedModel

REPO = Path(__file__).resolve().parents[2]


def _ll(context: str, continuation: str) -> LoglikelihoodRequest:
    return LoglikelihoodRequest(context, continuation)


def test_identical_requests_in_a_batch_reach_the_model_once_and_answers_keep_request_order(tmp_path: Path) -> None:
    fake = ScriptedModel()
    model = CachedModel(fake, tmp_path / "cache.sqlite")
    batch = [_ll("Q1", " a"), _ll("Q2", " bb"), _ll("Q1", " a"), _ll("Q3", " c"), _ll("Q2", " bb")]

    results = model.loglikelihood(batch)

    assert results == ScriptedModel().loglikelihood(batch)
    assert fake.requests_seen == 3
    assert (model.stats.requests, model.stats.duplicates, model.stats.misses, model.stats.hits) == (5, 2, 3, 0)


def test_a_second_batch_asks_the_model_only_for_requests_it_has_not_seen(tmp_path: Path) -> None:
    fake = ScriptedModel()
    model = CachedModel(fake, tmp_path / "cache.sqlite")
    model.loglikelihood([_ll("Q1", " a"), _ll("Q1", " b")])

    results = model.loglikelihood([_ll("Q1", " b"), _ll("Q9", " z"), _ll("Q1", " a")])

    assert fake.calls[-1] == ("loglikelihood", [_ll("Q9", " z")])
    assert results == ScriptedModel().loglikelihood([_ll("Q1", " b"), _ll("Q9", " z"), _ll("Q1", " a")])
    assert (model.stats.hits, model.stats.misses, model.stats.model_calls) == (2, 3, 2)


def test_answers_persist_across_instances_and_a_fully_cached_batch_makes_no_model_call(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    batch = [NextTokenRequest("Answer:", (" A", " B", "A")), NextTokenRequest("Other:", (" C",))]
    first = CachedModel(ScriptedModel(), path).next_token_logprobs(batch)
    fake = ScriptedModel()
    again = CachedModel(fake, path)

    assert again.next_token_logprobs(batch) == first
    assert fake.calls == []
    assert again.stats.hits == 2


def test_a_different_model_fingerprint_misses(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    CachedModel(ScriptedModel("model-a"), path).loglikelihood([_ll("Q", " a")])
    other = ScriptedModel("model-b")

    CachedModel(other, path).loglikelihood([_ll("Q", " a")])

    assert other.requests_seen == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (GenerateRequest("P", max_tokens=4), GenerateRequest("P", max_tokens=5)),
        (GenerateRequest("P", temperature=0.7, seed=1), GenerateRequest("P", temperature=0.7, seed=2)),
        (GenerateRequest("P", stop=("\n",)), GenerateRequest("P", stop=(".",))),
        (NextTokenRequest("C", (" A", " B")), NextTokenRequest("C", (" B", " A"))),
        (_ll("Answer:", " A"), _ll("Answer: ", "A")),
    ],
)
def test_every_field_that_changes_the_answer_changes_the_key(first: object, second: object) -> None:
    assert request_key("m", first) != request_key("m", second)  # type: ignore[arg-type]


def test_the_same_text_asked_as_different_kinds_has_different_keys() -> None:
    assert request_key("m", _ll("C", " A")) != request_key("m", NextTokenRequest("C", (" A",)))


def test_chunk_size_changes_calls_but_not_the_answers_or_the_key(tmp_path: Path) -> None:
    batch = [_ll(f"Q{i}", f" {i}") for i in range(10)]
    fake = ScriptedModel()
    chunked = CachedModel(fake, tmp_path / "chunked.sqlite", chunk_size=3)

    results = chunked.loglikelihood(batch)

    assert [len(requests) for _, requests in fake.calls] == [3, 3, 3, 1]
    assert results == ScriptedModel().loglikelihood(batch)
    reader = ScriptedModel()
    assert CachedModel(reader, tmp_path / "chunked.sqlite", chunk_size=64).loglikelihood(batch) == results
    assert reader.calls == []


def test_chunks_answered_before_a_failure_stay_cached(tmp_path: Path) -> None:
    class FailsOnSecondCall(ScriptedModel):
        def loglikelihood(self, requests):  # type: ignore[no-untyped-def]
            if len(self.calls) == 1:
                raise RuntimeError("backend died")
            return super().loglikelihood(requests)

    path = tmp_path / "cache.sqlite"
    batch = [_ll(f"Q{i}", " a") for i in range(4)]
    with pytest.raises(RuntimeError, match="backend died"):
        CachedModel(FailsOnSecondCall(), path, chunk_size=2).loglikelihood(batch)
    fake = ScriptedModel()

    CachedModel(fake, path, chunk_size=2).loglikelihood(batch)

    assert fake.requests_seen == 2


def test_a_model_answering_the_wrong_number_of_results_is_an_invalid_response(tmp_path: Path) -> None:
    class Short(ScriptedModel):
        def loglikelihood(self, requests):  # type: ignore[no-untyped-def]
            return [Loglikelihood(-1.0, 1, 1, True)]

    with pytest.raises(ResponseInvalid, match="answered 1 results to 2 requests"):
        CachedModel(Short(), tmp_path / "c.sqlite").loglikelihood([_ll("A", " a"), _ll("B", " b")])


def test_chunk_size_below_one_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="chunk_size must be at least 1, not 0"):
        CachedModel(ScriptedModel(), tmp_path / "c.sqlite", chunk_size=0)


def test_a_cache_file_that_is_not_a_database_is_unavailable_and_named(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not a SQLite database, just text" * 100)
    with pytest.raises(BackendUnavailable, match=r"model cache .*cache\.sqlite: file is not a database"):
        CachedModel(ScriptedModel(), path)


def test_the_cache_database_runs_in_wal_mode(tmp_path: Path) -> None:
    CachedModel(ScriptedModel(), tmp_path / "c.sqlite").loglikelihood([_ll("A", " a")])
    with sqlite3.connect(tmp_path / "c.sqlite") as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# -- real processes ---------------------------------------------------------------------------------------------------

_WRITER = textwrap.dedent(
    """
    import sys
    from pfungst.models.cache import CachedModel
    from pfungst.models.requests import LoglikelihoodRequest
    from tests.models.scripted import ScriptedModel

    path, worker = sys.argv[1], int(sys.argv[2])
    model = CachedModel(ScriptedModel(), path, chunk_size=1)
    for i in range(300):
        # both workers write the shared requests i (in opposite orders) and their own requests
        shared = i if worker == 0 else 299 - i
        own = LoglikelihoodRequest(f"own {worker} {i}", " y")
        model.loglikelihood([LoglikelihoodRequest(f"shared {shared}", " x"), own])
    """
)


def test_two_processes_writing_the_same_cache_at_once_leave_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    workers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(worker)], env=env, stderr=subprocess.PIPE)
        for worker in (0, 1)
    ]
    errors = [worker.communicate(timeout=120)[1].decode() for worker in workers]

    assert [worker.returncode for worker in workers] == [0, 0], errors
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 300 + 2 * 300
    fake = ScriptedModel()
    cached = CachedModel(fake, path)
    batch = [_ll(f"shared {i}", " x") for i in range(300)] + [_ll(f"own 1 {i}", " y") for i in range(300)]
    assert cached.loglikelihood(batch) == ScriptedModel().loglikelihood(batch)
    assert fake.calls == []


_SCORER = textwrap.dedent(
    """
    import json, sys, time
    from pfungst.models.cache import CachedModel
    from pfungst.models.embedded import smollm2
    from pfungst.models.requests import LoglikelihoodRequest

    path, pause = sys.argv[1], float(sys.argv[2])
    model = CachedModel(smollm2(n_ctx=512, n_threads=1), path)
    subjects = ["water", "the sun", "a magnet", "plants", "ice", "sound", "a battery", "the moon", "rain", "a seed"]
    options = [" heat", " light", " growth", " motion"]
    requests = [
        LoglikelihoodRequest(f"Question: What does {subject} give off or cause?\\nAnswer:", option)
        for subject in subjects for option in options
    ]
    results = []
    for start in range(0, len(requests), 4):
        calls = model.stats.model_calls
        results += model.loglikelihood(requests[start : start + 4])
        print(json.dumps({"batch": start // 4, "model_calls": model.stats.model_calls - calls}), flush=True)
        time.sleep(pause)
    print(json.dumps({"results": [r.to_dict() for r in results], "misses": model.stats.misses}), flush=True)
    """
)


def _run_scorer(path: Path, pause: float) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _SCORER, str(path), str(pause)], env=env, capture_output=True, timeout=300, check=True
    )
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def test_a_run_killed_with_sigkill_resumes_with_identical_results_and_no_repeated_model_call(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    reference = _run_scorer(tmp_path / "reference.sqlite", pause=0.0)[-1]
    path = tmp_path / "interrupted.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", _SCORER, str(path), "0.4"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert child.stdout is not None
    reported = [child.stdout.readline() for _ in range(5)]
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    with sqlite3.connect(path) as connection:
        committed = connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert all(reported) and 20 <= committed < 40

    resumed = _run_scorer(path, pause=0.0)

    assert resumed[-1]["results"] == reference["results"]
    assert resumed[-1]["misses"] == 40 - committed
    assert [line["model_calls"] for line in resumed[: committed // 4]] == [0] * (committed // 4)


@pytest.mark.parametrize("stored", ["{not json", '{"logprob": -1.0}', "[1, 2]", '{"logprob": "x", "n_tokens": 1}'])
def test_an_unreadable_cache_row_is_a_counted_miss_that_is_asked_again_and_replaced(
    tmp_path: Path, stored: str
) -> None:
    path = tmp_path / "cache.sqlite"
    request = _ll("Q1", " a")
    CachedModel(ScriptedModel(), path).loglikelihood([request])
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE results SET result = ?", (stored,))

    fake = ScriptedModel()
    model = CachedModel(fake, path)
    with pytest.warns(RuntimeWarning, match=r"cache\.sqlite: 1 cached answer\(s\) could not be read back"):
        results = model.loglikelihood([request, _ll("Q2", " b")])

    assert results == ScriptedModel().loglikelihood([request, _ll("Q2", " b")])
    assert (model.stats.invalid_rows, model.stats.hits, model.stats.misses) == (1, 0, 2)
    again = CachedModel(ScriptedModel(), path)
    assert again.loglikelihood([request]) == results[:1]
    assert (again.stats.invalid_rows, again.stats.hits) == (0, 1)
