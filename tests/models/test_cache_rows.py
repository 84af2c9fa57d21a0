"""A cached row that is not a valid answer to its request is a counted miss, asked again and replaced, never a crash
or a silently changed answer."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pfungst.models.cache import CachedModel, Memo
from pfungst.models.requests import GenerateRequest, LoglikelihoodRequest, NextTokenRequest
from tests.models.scripted import ScriptedModel

LOGLIKELIHOOD = LoglikelihoodRequest("Q1", " a")
NEXT_TOKEN = NextTokenRequest("Answer:", (" A", " B"))
GENERATE = GenerateRequest("Q:", max_tokens=4)
DEEP = "[" * 100_000 + "]" * 100_000
INVALID_ROWS = {
    "nan": (LOGLIKELIHOOD, '{"logprob": NaN, "n_tokens": 1, "n_bytes": 2, "greedy": true}'),
    "+inf": (LOGLIKELIHOOD, '{"logprob": Infinity, "n_tokens": 1, "n_bytes": 2, "greedy": true}'),
    "positive": (LOGLIKELIHOOD, '{"logprob": 50.0, "n_tokens": 1, "n_bytes": 2, "greedy": true}'),
    "bytes": (LOGLIKELIHOOD, '{"logprob": -1.0, "n_tokens": 1, "n_bytes": 9, "greedy": true}'),
    "negative count": (LOGLIKELIHOOD, '{"logprob": -1.0, "n_tokens": -1, "n_bytes": 2, "greedy": true}'),
    "deep": (LOGLIKELIHOOD, '{"logprob": -1.0, "n_tokens": 1, "n_bytes": 2, "greedy": true, "x": ' + DEEP + "}"),
    "one value for two": (NEXT_TOKEN, '{"logprobs": [-0.5]}'),
    "nan among values": (NEXT_TOKEN, '{"logprobs": [-0.5, NaN]}'),
    "positive value": (NEXT_TOKEN, '{"logprobs": [3.0, -0.5]}'),
    "finish reason": (GENERATE, '{"text": "ab", "finish_reason": 7}'),
    "text": (GENERATE, '{"text": ["ab"], "finish_reason": "stop"}'),
}


def _ask(model: CachedModel, request: object) -> object:
    if isinstance(request, LoglikelihoodRequest):
        return model.loglikelihood([request])
    if isinstance(request, NextTokenRequest):
        return model.next_token_logprobs([request])
    return model.generate([request])  # type: ignore[list-item]


@pytest.mark.parametrize("case", list(INVALID_ROWS))
def test_a_row_that_is_not_a_valid_answer_is_a_counted_miss_replaced_by_a_fresh_answer(
    tmp_path: Path, case: str
) -> None:
    request, stored = INVALID_ROWS[case]
    path = tmp_path / "cache.sqlite"
    fresh = _ask(CachedModel(ScriptedModel(), path), request)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE results SET result = ?", (stored,))

    model = CachedModel(ScriptedModel(), path)
    with pytest.warns(RuntimeWarning, match=r"cache\.sqlite: 1 cached answer\(s\) could not be read back as valid"):
        assert _ask(model, request) == fresh
    assert (model.stats.invalid_rows, model.stats.hits, model.stats.misses) == (1, 0, 1)
    again = CachedModel(ScriptedModel(), path)
    assert _ask(again, request) == fresh
    assert (again.stats.invalid_rows, again.stats.hits) == (0, 1)


def test_invalid_rows_are_told_once_with_their_count_and_the_cache_file_and_in_all_when_more_follow(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cache.sqlite"
    batch = [LoglikelihoodRequest(f"Q{i}", " a") for i in range(5)]
    CachedModel(ScriptedModel(), path).loglikelihood(batch)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE results SET result = ?", (INVALID_ROWS["nan"][1],))

    model = CachedModel(ScriptedModel(), path)
    with pytest.warns(RuntimeWarning) as caught:
        model.loglikelihood(batch[:3])
        model.loglikelihood(batch[3:])
        model.close()
    told = [str(w.message).split(" could")[0] for w in caught]
    assert told == [f"{path}: 3 cached answer(s)", f"{path}: 5 cached answer(s)"]
    assert "in all" in str(caught[1].message)


def test_a_memo_nested_past_the_cap_reads_as_absent_not_as_a_recursion_error(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    CachedModel(ScriptedModel(), path).close()
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("INSERT INTO memo VALUES (?, ?)", ("deep", '{"x": ' + DEEP + "}"))
    assert Memo(connection, path).get("deep") is None
    connection.close()
