"""Leaderboard rank stability across variants: places, their intervals, tau, W, the largest shift, pairwise tests."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pfungst.errors import ConfigError
from pfungst.stress.ranks import RankShift, rank_stability


def _answers(n_correct: int, n_items: int = 10) -> dict[str, bool]:
    """Item id -> correct, the first ``n_correct`` of ``n_items`` right."""
    return {f"q{i:03d}": i < n_correct for i in range(n_items)}


def _reversing_leaderboard() -> dict[str, dict[str, dict[str, bool]]]:
    """Accuracies 0.9 / 0.6 / 0.3 on 'plain', reversed (0.3 / 0.6 / 0.9) on 'shuffled'."""
    return {
        "a": {"plain": _answers(9), "shuffled": _answers(3)},
        "b": {"plain": _answers(6), "shuffled": _answers(6)},
        "c": {"plain": _answers(3), "shuffled": _answers(9)},
    }


def test_a_reversed_leaderboard_has_tau_minus_one_w_zero_and_a_shift_of_two(seed: int) -> None:
    result = rank_stability(_reversing_leaderboard(), seed=seed, n_bootstrap=200)
    assert result.models == ("a", "b", "c") and result.variants == ("plain", "shuffled")
    assert [result.rank_of(m, "plain").accuracy.value for m in "abc"] == pytest.approx([0.9, 0.6, 0.3])
    assert [result.rank_of(m, "plain").rank for m in "abc"] == [1.0, 2.0, 3.0]
    assert [result.rank_of(m, "shuffled").rank for m in "abc"] == [3.0, 2.0, 1.0]
    (agreement,) = result.taus
    assert (agreement.variant_a, agreement.variant_b) == ("plain", "shuffled")
    assert agreement.tau.value == pytest.approx(-1.0)
    assert agreement.tau.pvalue == pytest.approx(2 / 6)  # exact: 1 of 3! orders is perfectly reversed, two-sided
    # Rank sums are 4, 4, 4: no concordance at all.
    assert result.concordance.value == pytest.approx(0.0)
    assert result.concordance.pvalue == pytest.approx(1.0)
    assert result.largest_shift == RankShift(
        model="a", from_variant="plain", to_variant="shuffled", from_rank=1.0, to_rank=3.0, shift=2.0
    )


def test_identical_rankings_have_tau_one_and_w_one(seed: int) -> None:
    correctness = {
        "a": {"plain": _answers(9), "shuffled": _answers(8), "labels": _answers(10)},
        "b": {"plain": _answers(5), "shuffled": _answers(4), "labels": _answers(6)},
        "c": {"plain": _answers(1), "shuffled": _answers(2), "labels": _answers(3)},
    }
    result = rank_stability(correctness, seed=seed, n_bootstrap=100)
    assert len(result.taus) == 3
    assert all(agreement.tau.value == pytest.approx(1.0) for agreement in result.taus)
    assert result.concordance.value == pytest.approx(1.0)
    assert result.largest_shift.shift == 0.0


def test_equal_accuracies_share_the_average_rank(seed: int) -> None:
    correctness = {name: {"plain": _answers(k)} for name, k in (("a", 7), ("b", 7), ("c", 2))}
    result = rank_stability(correctness, seed=seed, n_bootstrap=50)
    assert [result.rank_of(m, "plain").rank for m in "abc"] == [1.5, 1.5, 3.0]


def test_a_clear_leader_has_a_rank_interval_of_exactly_one(seed: int) -> None:
    correctness = {"strong": {"plain": _answers(190, 200)}, "weak": {"plain": _answers(20, 200)}}
    result = rank_stability(correctness, seed=seed, n_bootstrap=300)
    strong = result.rank_of("strong", "plain").rank_ci
    assert (strong.low, strong.high) == (1.0, 1.0)


def test_rank_intervals_resample_items_jointly_for_all_models(seed: int) -> None:
    # "a" is right wherever "b" is, plus one item: on any joint resample "a" places first or ties (1.5), never second.
    # Resampling the two models' items independently would often put "a" second.
    rng = np.random.default_rng(seed)
    b_answers = {f"q{i:03d}": bool(rng.random() < 0.5) for i in range(60)}
    a_answers = {**b_answers, "q000": True}
    b_answers["q000"] = False
    result = rank_stability({"a": {"plain": a_answers}, "b": {"plain": b_answers}}, seed=seed, n_bootstrap=300)
    assert result.rank_of("a", "plain").rank_ci.high <= 1.5
    assert result.rank_of("b", "plain").rank_ci.low >= 1.5


def test_close_models_have_overlapping_rank_intervals(seed: int) -> None:
    # 0.31 against 0.30 on 100 items, every correct answer discordant: the order is anyone's guess.
    correctness = {
        "a": {"plain": {f"q{i:03d}": i < 31 for i in range(100)}},
        "b": {"plain": {f"q{i:03d}": 31 <= i < 61 for i in range(100)}},
    }
    result = rank_stability(correctness, seed=seed, n_bootstrap=300)
    for name in "ab":
        interval = result.rank_of(name, "plain").rank_ci
        assert (interval.low, interval.high) == (1.0, 2.0)


def test_pairwise_difference_uses_mcnemar_on_the_discordance_table(seed: int) -> None:
    # Both right on 10, only "a" on 8, only "b" on 2, neither on 5.
    a = [True] * 10 + [True] * 8 + [False] * 2 + [False] * 5
    b = [True] * 10 + [False] * 8 + [True] * 2 + [False] * 5
    correctness = {
        "a": {"plain": {f"q{i:02d}": x for i, x in enumerate(a)}},
        "b": {"plain": {f"q{i:02d}": x for i, x in enumerate(b)}},
    }
    (comparison,) = rank_stability(correctness, seed=seed, n_bootstrap=200).pairwise
    assert (comparison.first, comparison.second, comparison.variant) == ("a", "b", "plain")
    assert comparison.difference.value == pytest.approx(6 / 25)
    assert comparison.difference.pvalue == pytest.approx(112 / 1024)  # 2 * (45 + 10 + 1) / 2^10
    assert comparison.difference.ci is not None and comparison.difference.ci.low < 0.24 < comparison.difference.ci.high


def test_every_model_pair_is_compared_on_every_variant(seed: int) -> None:
    result = rank_stability(_reversing_leaderboard(), seed=seed, n_bootstrap=50)
    assert [(c.variant, c.first, c.second) for c in result.pairwise] == [
        ("plain", "a", "b"),
        ("plain", "a", "c"),
        ("plain", "b", "c"),
        ("shuffled", "a", "b"),
        ("shuffled", "a", "c"),
        ("shuffled", "b", "c"),
    ]
    assert result.pairwise[1].difference.value == pytest.approx(0.6)  # 0.9 - 0.3 on plain


def test_frame_has_one_row_per_model_and_variant_and_dict_is_json(seed: int) -> None:
    result = rank_stability(_reversing_leaderboard(), seed=seed, n_bootstrap=50)
    frame = result.to_frame()
    assert list(frame.columns) == ["model", "variant", "accuracy", "low", "high", "rank", "rank_low", "rank_high"]
    assert len(frame) == 6
    row = frame[(frame.model == "c") & (frame.variant == "shuffled")].iloc[0]
    assert (row.accuracy, row["rank"]) == (pytest.approx(0.9), 1.0)
    assert row.low < 0.9 < row.high
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["largest_shift"]["shift"] == 2.0
    assert data["provenance"]["seed"] == seed and len(data["ranks"]) == 6 and len(data["pairwise"]) == 6
    assert "W=0.000" in repr(result)


def test_same_seed_same_result_and_one_variant_has_no_concordance(seed: int) -> None:
    correctness = {name: {"plain": _answers(k)} for name, k in (("a", 8), ("b", 4))}
    first, second = (rank_stability(correctness, seed=seed, n_bootstrap=100).to_dict() for _ in range(2))
    assert first == second
    result = rank_stability(correctness, seed=seed, n_bootstrap=100)
    assert math.isnan(result.concordance.value) and "1 variant" in result.concordance.method
    assert result.taus == ()
    assert result.largest_shift.shift == 0.0 and result.largest_shift.from_variant == "plain"
    json.dumps(result.to_dict(), allow_nan=False)


def test_models_must_share_items_and_the_error_counts_the_missing_ones() -> None:
    correctness = {"a": {"plain": _answers(5)}, "b": {"plain": dict(list(_answers(5).items())[:7])}}
    with pytest.raises(ConfigError, match=r"model 'b', variant 'plain': 3 items missing and 0 extra"):
        rank_stability(correctness, seed=0)


def test_models_must_share_variants() -> None:
    correctness = {"a": {"plain": _answers(5), "shuffled": _answers(5)}, "b": {"plain": _answers(5)}}
    with pytest.raises(ConfigError, match=r"model 'b' lacks variants \['shuffled'\]"):
        rank_stability(correctness, seed=0)


@pytest.mark.parametrize(
    ("correctness", "kwargs", "match"),
    [
        ({"a": {"plain": _answers(5)}}, {}, "at least 2 models, found 1"),
        (
            {"a": {"plain": {"q1": "yes"}}, "b": {"plain": {"q1": True}}},
            {},
            r"item 'q1': correctness must be a boolean",
        ),
        ({"a": {"plain": {}}, "b": {"plain": {}}}, {}, "variant 'plain' has no items"),
        ({"a": {"plain": _answers(5)}, "b": {"plain": _answers(5)}}, {"n_bootstrap": 0}, "n_bootstrap must be"),
    ],
)
def test_invalid_input_is_rejected(correctness: dict, kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        rank_stability(correctness, seed=0, **kwargs)
