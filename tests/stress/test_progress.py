"""A stress run's one progress counter: model requests, its total known before the first request (the top-two
placement and the format search counted by their bounds), stage names, and a cached rerun that plans nothing."""

from __future__ import annotations

from pathlib import Path

import pfungst
from pfungst.data import Benchmark, Item
from pfungst.stress.progress import AtMost
from tests.evaluate.fakes import ScriptedModel

N_ITEMS = 6


def _benchmark() -> Benchmark:
    items = [Item(f"q{i}", f"Question {i}?", tuple(f"option {i}-{k}" for k in range(4)), i % 4) for i in range(N_ITEMS)]
    return Benchmark("toy", tuple(items))


def _run(perturbations: tuple[str, ...], cache: object = False, **settings: object) -> list[tuple[str, int, int]]:
    """Every progress report of a run of the scripted model, in order."""
    calls: list[tuple[str, int, int]] = []
    model = ScriptedModel(next_token_script=lambda context, candidate: -1.0 if candidate.strip() == "B" else -3.0)
    pfungst.stress.stress(
        _benchmark(),
        model,
        perturbations=perturbations,
        cache=cache,
        n_bootstrap=50,
        progress=lambda step, done, total: calls.append((step, done, total)),
        **settings,
    )
    return calls


def test_the_total_is_known_before_the_first_request_and_counts_top2_at_most_two_questions_per_item() -> None:
    calls = _run(("identity", "cyclic", "top2"))
    before_first = [call for call in calls if call[1] == 0]
    # 4 rotations per item (the identity question is rotation 0) + top2's two placements per item, at most
    first_total = before_first[-1][2]
    assert first_total == N_ITEMS * 4 + N_ITEMS * 2 and isinstance(first_total, AtMost)
    assert {total for _, done, total in calls if done < N_ITEMS * 4} == {first_total}  # steady through the first pass


def test_the_total_becomes_exact_once_top2_is_planned_and_the_count_never_goes_back() -> None:
    calls = _run(("identity", "cyclic", "top2"))
    dones = [done for _, done, _ in calls]
    assert dones == sorted(dones)
    step, done, total = calls[-1]
    assert done == total and type(total) is int and step == "top2"
    # the model ranks B then A: 'ends' (B, C, D, A) is rotation 1, asked already; only 'adjacent' is new
    assert total == N_ITEMS * 4 + N_ITEMS


def test_each_stage_is_shown_by_name_from_loading_to_the_last_stage() -> None:
    steps = list(dict.fromkeys(step for step, _, _ in _run(("identity", "answer-moved", "top2"))))
    # answer-moved's question with the gold in its own slot is the identity question: asked once
    loading = f"loading the model; first pass: {N_ITEMS * 5} questions, {N_ITEMS * 4} distinct requests"
    assert steps == [loading, "first pass: identity, answer-moved", "top2"]


def test_the_format_search_counts_by_its_budget_until_it_has_run() -> None:
    calls = _run(("identity", "spread-search:n=4,budget=4"))
    totals = [total for _, done, total in calls if done == 0]
    assert totals[-1] == N_ITEMS + 4 and isinstance(totals[-1], AtMost)
    step, done, total = calls[-1]
    assert step == "spread-search" and done == total == N_ITEMS + 4 and type(total) is int


def test_a_rerun_from_the_cache_plans_no_request(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    first = _run(("identity", "cyclic", "top2"), cache=cache)
    again = _run(("identity", "cyclic", "top2"), cache=cache)
    assert first[-1][1] == first[-1][2] > 0
    assert {done for _, done, _ in again} == {0}
    assert again[-1][2] == 0 and type(again[-1][2]) is int
