"""Stress metrics on small hand-built outcomes, with expectations computed by hand."""

from __future__ import annotations

import json
import math

import pytest

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.stress.metrics import (
    circular_metrics,
    moved_answer_accuracy,
    paired_difference,
    selection_bias,
    variant_accuracies,
)

RSTD_ONE_OF_FOUR = math.sqrt(0.75 * 0.25) * 100  # population std of (1, 0, 0, 0) x 100 = 43.30


def make(
    item_id: str,
    order: tuple[int, ...],
    gold: int,
    chosen_position: int,
    *,
    labels: tuple[str, ...] | None = None,
    status: str = "ok",
    perturbation: str = "identity",
    variant: str = "identity",
    rule: str = "letter",
    format: str = "mmlu",
) -> Outcome:
    """An outcome whose model chose ``chosen_position`` (-1 with a status other than ok for no answer)."""
    answered = status == "ok"
    return Outcome(
        item_id=item_id,
        perturbation=perturbation,
        variant=variant,
        rule=rule,
        format=format,
        order=order,
        labels=labels or tuple("ABCDEFGH"[: len(order)]),
        gold=gold,
        chosen=order[chosen_position] if answered else -1,
        chosen_position=chosen_position if answered else -1,
        status=status,
        scores=tuple(0.0 for _ in order),  # type: ignore[arg-type]
    )


def rotation(shift: int, k: int = 4) -> tuple[int, ...]:
    """Cyclic shift: position p shows original option (p + shift) mod k."""
    return tuple((position + shift) % k for position in range(k))


def moved(gold: int, slot: int, k: int = 4) -> tuple[int, ...]:
    """An order that shows the gold option at ``slot``, the others in their original order."""
    others = [index for index in range(k) if index != gold]
    return tuple(others[:slot] + [gold] + others[slot:])


def json_safe(result: object) -> None:
    json.dumps(result.to_dict(), allow_nan=False)  # type: ignore[attr-defined]


# --- variant accuracies -------------------------------------------------------------------------------------------


def test_variant_accuracies_group_in_first_seen_order_with_chance_baseline() -> None:
    outcomes = [
        make("q1", (0, 1), 0, 0, variant="shift 1"),
        make("q1", (0, 1), 0, 1, variant="shift 0"),
        make("q2", (0, 1, 2, 3), 1, 1, variant="shift 1"),
        make("q3", (0, 1, 2, 3), 1, -1, variant="shift 1", status="refused"),
    ]
    shift1, shift0 = variant_accuracies(outcomes)
    assert (shift1.variant, shift0.variant) == ("shift 1", "shift 0")
    assert shift1.accuracy.value == pytest.approx(2 / 3)
    assert shift1.accuracy.baseline == pytest.approx((1 / 2 + 1 / 4 + 1 / 4) / 3)
    assert shift1.n_unanswered == 1
    assert (shift0.accuracy.value, shift0.accuracy.n, shift0.n_unanswered) == (0.0, 1, 0)
    json_safe(shift1)


def test_variant_accuracies_of_nothing_is_empty() -> None:
    assert variant_accuracies([]) == ()


# --- selection bias -----------------------------------------------------------------------------------------------


def test_always_first_position_with_gold_spread_evenly_has_rstd_43_3(seed: int) -> None:
    outcomes = [make(f"q{i}", (0, 1, 2, 3), i % 4, 0) for i in range(40)]
    bias = selection_bias(outcomes, seed=seed)
    assert bias.ids == ("1", "2", "3", "4")
    assert [recall.value for recall in bias.recalls] == [1.0, 0.0, 0.0, 0.0]
    assert bias.rstd.value == pytest.approx(43.30, abs=0.01)
    assert bias.rstd.value == pytest.approx(RSTD_ONE_OF_FOUR)
    assert bias.predicted == (40, 0, 0, 0)
    assert bias.expected == (10.0, 10.0, 10.0, 10.0)
    assert bias.uniformity.value == pytest.approx(30**2 / 10 + 3 * 10)  # 120
    assert bias.uniformity.pvalue < 0.001
    assert (bias.top_share.value, bias.top_share.baseline) == (1.0, 0.25)
    assert bias.rstd.ci is not None and bias.rstd.ci.low <= bias.rstd.value <= bias.rstd.ci.high
    json_safe(bias)


def test_perfect_model_has_no_selection_bias(seed: int) -> None:
    outcomes = [make(f"q{i}", (0, 1, 2, 3), i % 4, i % 4) for i in range(40)]
    bias = selection_bias(outcomes, seed=seed)
    assert bias.rstd.value == 0.0
    assert bias.rstd.ci is not None and bias.rstd.ci.high == 0.0
    assert bias.uniformity.value == 0.0 and bias.uniformity.pvalue == pytest.approx(1.0)


def test_label_bias_shows_by_label_not_by_position(seed: int) -> None:
    # 16 items: the gold at each position x the labels rotated 4 ways, so "A" is shown at every position.
    # The model always answers "A": right exactly when the gold is labelled A.
    outcomes = []
    for gold_position in range(4):
        for turn in range(4):
            labels = tuple("ABCD"[(p + turn) % 4] for p in range(4))
            outcomes.append(
                make(f"q{gold_position}{turn}", (0, 1, 2, 3), gold_position, labels.index("A"), labels=labels)
            )
    by_label = selection_bias(outcomes, by="label", seed=seed)
    by_position = selection_bias(outcomes, by="position", seed=seed)
    assert by_label.ids == ("A", "B", "C", "D")
    assert [recall.value for recall in by_label.recalls] == [1.0, 0.0, 0.0, 0.0]
    assert by_label.rstd.value == pytest.approx(RSTD_ONE_OF_FOUR)
    assert by_label.predicted == (16, 0, 0, 0)
    # Each position holds the gold 4 times, labelled A once: recall 1/4 everywhere.
    assert [recall.value for recall in by_position.recalls] == [0.25] * 4
    assert by_position.rstd.value == pytest.approx(0.0)
    assert by_position.predicted == (4, 4, 4, 4)


def test_positions_never_holding_the_gold_are_left_out_of_rstd(seed: int) -> None:
    outcomes = [make(f"q{i}", (0, 1, 2, 3), i % 2, 0) for i in range(6)]
    bias = selection_bias(outcomes, seed=seed)
    values = [recall.value for recall in bias.recalls]
    assert values[:2] == [1.0, 0.0] and math.isnan(values[2]) and math.isnan(values[3])
    assert bias.recalls[2].n == 0
    assert bias.rstd.value == pytest.approx(50.0)  # population std of (1, 0) x 100
    json_safe(bias)


def test_unanswered_items_count_against_recall_but_not_as_choices(seed: int) -> None:
    outcomes = [
        make("q0", (0, 1), 0, 0),
        make("q1", (0, 1), 1, 0),
        make("q2", (0, 1), 0, -1, status="unparseable"),
        make("q3", (0, 1), 1, -1, status="refused"),
    ]
    bias = selection_bias(outcomes, seed=seed)
    assert [recall.value for recall in bias.recalls] == [0.5, 0.0]
    assert bias.predicted == (2, 0)
    assert bias.expected == (1.0, 1.0)
    assert bias.n_unanswered == 2
    assert (bias.top_share.value, bias.top_share.n) == (1.0, 2)


def test_expected_counts_give_each_item_a_share_of_its_own_options(seed: int) -> None:
    outcomes = [make("two", (0, 1), 0, 0), make("four", (0, 1, 2, 3), 0, 0)]
    bias = selection_bias(outcomes, seed=seed)
    assert bias.expected == pytest.approx((0.75, 0.75, 0.25, 0.25))
    assert bias.top_share.baseline == pytest.approx(0.75 / 2)


def test_labels_are_in_natural_order(seed: int) -> None:
    outcomes = [make("q1", (0, 1, 2), 0, 0, labels=("10", "2", "1"))]
    assert selection_bias(outcomes, by="label", seed=seed).ids == ("1", "2", "10")


def test_selection_bias_is_reproducible_with_a_seed(seed: int) -> None:
    outcomes = [make(f"q{i}", (0, 1, 2), i % 3, 0 if i % 5 else i % 3) for i in range(30)]
    first, second = selection_bias(outcomes, seed=seed), selection_bias(outcomes, seed=seed)
    assert first.rstd.ci == second.rstd.ci


def test_selection_bias_rejects_a_repeated_item(seed: int) -> None:
    outcomes = [make("q1", (0, 1), 0, 0), make("q1", (1, 0), 0, 0)]
    with pytest.raises(ConfigError, match="item 'q1' appears more than once"):
        selection_bias(outcomes, seed=seed)


def test_selection_bias_rejects_an_unknown_way_of_counting(seed: int) -> None:
    with pytest.raises(ConfigError, match="by 'position' or 'label', not 'token'"):
        selection_bias([make("q1", (0, 1), 0, 0)], by="token", seed=seed)  # type: ignore[arg-type]


# --- circular evaluation ------------------------------------------------------------------------------------------


def cyclic(model: object, n_items: int = 8) -> list[Outcome]:
    """Each item (gold = item number mod 4) under its 4 cyclic rotations; ``model(order, gold)`` gives a position."""
    return [
        make(
            f"q{i}",
            rotation(shift),
            i % 4,
            model(rotation(shift), i % 4),
            perturbation="cyclic",  # type: ignore[operator]
            variant=f"shift {shift}",
        )
        for i in range(n_items)
        for shift in range(4)
    ]


def test_first_position_model_fluctuates_on_every_rotation(seed: int) -> None:
    metrics = circular_metrics(cyclic(lambda order, gold: 0), seed=seed)
    assert metrics.arrangements == (4, 4) and metrics.n_items == 8
    assert metrics.plain.value == 0.25  # right in the original order only for the items whose gold is option 0
    assert metrics.mean.value == 0.25  # each item is right in the one rotation that shows its gold first
    assert metrics.circular.value == 0.0
    assert metrics.circular.baseline == pytest.approx(0.25**4)
    assert metrics.consistency.value == 0.0
    assert metrics.consistency.baseline == pytest.approx(4 * 0.25**4)
    assert metrics.fluctuation.value == 1.0
    assert metrics.fluctuation.baseline == 0.75
    json_safe(metrics)


def test_perfect_model_is_circularly_right_and_stable(seed: int) -> None:
    metrics = circular_metrics(cyclic(lambda order, gold: order.index(gold)), seed=seed)
    assert (metrics.plain.value, metrics.mean.value, metrics.circular.value) == (1.0, 1.0, 1.0)
    assert (metrics.consistency.value, metrics.fluctuation.value) == (1.0, 0.0)


def test_model_always_choosing_the_same_content_is_consistent_but_rarely_circular(seed: int) -> None:
    metrics = circular_metrics(cyclic(lambda order, gold: order.index(0)), seed=seed)
    assert (metrics.consistency.value, metrics.fluctuation.value) == (1.0, 0.0)
    assert metrics.circular.value == 0.25  # only items whose gold is option 0


def test_model_right_only_when_gold_is_at_a(seed: int) -> None:
    # Right when the gold is shown first; otherwise it picks the original option after the gold.
    metrics = circular_metrics(
        cyclic(lambda order, gold: 0 if order[0] == gold else order.index((gold + 1) % 4)), seed=seed
    )
    assert (metrics.circular.value, metrics.consistency.value) == (0.0, 0.0)
    assert metrics.mean.value == 0.25
    # Gold 0: original order is right, the 3 rotations all answer option 1 -> 3/3 changed.
    # Gold 1-3: original order answers gold+1; of the 3 rotations only the one showing the gold first differs: 1/3.
    assert metrics.fluctuation.value == pytest.approx((1 + 1 / 3 + 1 / 3 + 1 / 3) / 4)


def test_items_with_different_numbers_of_arrangements(seed: int) -> None:
    outcomes = [make("two", rotation(shift), 0, 0) for shift in (0, 1)]
    outcomes += [make("four", rotation(shift), 0, rotation(shift).index(0)) for shift in range(4)]
    outcomes += [make("alone", (0, 1, 2, 3), 0, 0)]
    metrics = circular_metrics(outcomes, seed=seed)
    assert metrics.arrangements == (1, 4)
    assert metrics.circular.value == pytest.approx(2 / 3)  # "four" and "alone"
    assert metrics.circular.baseline == pytest.approx((0.25**2 + 0.25**4 + 0.25) / 3)
    assert metrics.mean.value == pytest.approx((1 + 4 + 1) / 7)
    assert metrics.fluctuation.n == 2  # "alone" has no other arrangement to change in
    assert metrics.fluctuation.value == pytest.approx((1.0 + 0.0) / 2)


def test_fluctuation_is_undefined_without_other_arrangements(seed: int) -> None:
    metrics = circular_metrics([make("q1", (0, 1), 0, 0), make("q2", (0, 1), 1, 0)], seed=seed)
    assert math.isnan(metrics.fluctuation.value) and metrics.fluctuation.ci is None
    assert (metrics.plain.value, metrics.circular.value, metrics.consistency.value) == (0.5, 0.5, 1.0)
    assert metrics.to_dict()["fluctuation"]["value"] is None
    json_safe(metrics)


def test_all_unanswered_items_have_no_top_share(seed: int) -> None:
    bias = selection_bias([make("q1", (0, 1), 0, -1, status="refused")], seed=seed)
    assert math.isnan(bias.top_share.value) and bias.predicted == (0, 0) and bias.n_unanswered == 1
    json_safe(bias)


def test_unanswered_arrangements_break_consistency(seed: int) -> None:
    outcomes = [make("q1", rotation(shift), 0, -1, status="unparseable") for shift in range(4)]
    metrics = circular_metrics(outcomes, seed=seed)
    assert metrics.consistency.value == 0.0
    assert metrics.fluctuation.value == 0.0  # "no answer" every time is no change


def test_circular_metrics_need_the_original_order(seed: int) -> None:
    outcomes = [make("q7", rotation(shift), 0, 0) for shift in (1, 2)]
    with pytest.raises(ConfigError, match=r"item 'q7' has no identity arrangement \(options in their original"):
        circular_metrics(outcomes, seed=seed)


def test_circular_metrics_reject_mixed_rules(seed: int) -> None:
    outcomes = [make("q1", (0, 1), 0, 0, rule="letter"), make("q1", (1, 0), 0, 0, rule="cloze-raw")]
    with pytest.raises(ConfigError, match="one rule, but found 2: cloze-raw, letter"):
        circular_metrics(outcomes, seed=seed)


def test_circular_metrics_reject_a_repeated_arrangement(seed: int) -> None:
    outcomes = [make("q1", (0, 1), 0, 0, perturbation="identity"), make("q1", (0, 1), 0, 0, perturbation="cyclic")]
    with pytest.raises(ConfigError, match=r"item 'q1' has the arrangement \[0, 1\] more than once"):
        circular_metrics(outcomes, seed=seed)


# --- answer moved -------------------------------------------------------------------------------------------------


def slots(model: object, n_items: int = 5) -> list[Outcome]:
    """Each item's gold (option 0) moved to each of 4 slots; ``model(item, slot)`` gives the chosen position."""
    return [
        make(
            f"q{i}",
            moved(0, slot),
            0,
            model(i, slot),
            perturbation="answer-moved",  # type: ignore[operator]
            variant=f"slot {'ABCD'[slot]}",
        )
        for i in range(n_items)
        for slot in range(4)
    ]


def test_first_position_model_is_right_only_in_slot_a(seed: int) -> None:
    result = moved_answer_accuracy(slots(lambda item, slot: 0), seed=seed)
    assert result.slots == ("A", "B", "C", "D")
    assert [estimate.value for estimate in result.per_slot] == [1.0, 0.0, 0.0, 0.0]
    assert [estimate.baseline for estimate in result.per_slot] == [0.25] * 4
    assert result.gap.value == 1.0
    assert result.gap.ci is not None and (result.gap.ci.low, result.gap.ci.high) == (1.0, 1.0)
    assert result.worst_case.value == 0.0 and result.n_items == 5
    json_safe(result)


def test_perfect_model_has_no_gap(seed: int) -> None:
    result = moved_answer_accuracy(slots(lambda item, slot: slot), seed=seed)
    assert (result.gap.value, result.worst_case.value) == (0.0, 1.0)
    assert result.worst_case.baseline == pytest.approx(0.25**4)


def test_model_failing_slot_d_on_some_items(seed: int) -> None:
    # Items 0-1 of 4 are answered at A when the gold sits at D; all else right.
    result = moved_answer_accuracy(
        slots(lambda item, slot: 0 if slot == 3 and item < 2 else slot, n_items=4), seed=seed
    )
    assert [estimate.value for estimate in result.per_slot] == [1.0, 1.0, 1.0, 0.5]
    assert result.gap.value == 0.5
    assert result.worst_case.value == 0.5


def test_moved_answer_accuracy_rejects_shuffled_labels(seed: int) -> None:
    outcomes = [make("q1", (0, 1), 0, 0, labels=("A", "B")), make("q2", (0, 1), 0, 0, labels=("B", "A"))]
    with pytest.raises(ConfigError, match="position 1 labelled both 'A' and 'B'"):
        moved_answer_accuracy(outcomes, seed=seed)


# --- paired difference --------------------------------------------------------------------------------------------


def pair(first_right: list[bool], second_right: list[bool]) -> tuple[list[Outcome], list[Outcome]]:
    def side(right: list[bool]) -> list[Outcome]:
        return [make(f"q{i}", (0, 1, 2, 3), 0, 0 if ok else 1) for i, ok in enumerate(right)]

    return side(first_right), side(second_right)


def test_mcnemar_pvalue_for_ten_discordant_pairs_one_way(seed: int) -> None:
    first, second = pair([True] * 15 + [False] * 5, [False] * 10 + [True] * 5 + [False] * 5)
    result = paired_difference(first, second, names=("adjacent", "ends"), seed=seed)
    assert (result.first, result.second) == ("adjacent", "ends")
    assert result.n_discordant == (10, 0) and result.n_items == 20
    assert result.difference.pvalue == pytest.approx(2 * 0.5**10)
    assert result.difference.value == pytest.approx(15 / 20 - 5 / 20)
    assert (result.first_accuracy.value, result.second_accuracy.value) == (0.75, 0.25)
    assert result.first_accuracy.baseline == 0.25
    assert result.difference.ci is not None and 0.0 < result.difference.ci.low <= 0.5 <= result.difference.ci.high
    json_safe(result)


def test_balanced_discordance_is_no_evidence(seed: int) -> None:
    first, second = pair([True] * 3 + [False] * 3 + [True] * 4, [False] * 3 + [True] * 3 + [True] * 4)
    result = paired_difference(first, second, seed=seed)
    assert result.n_discordant == (3, 3)
    assert result.difference.value == 0.0 and result.difference.pvalue == pytest.approx(1.0)


def test_identical_answers_have_pvalue_one(seed: int) -> None:
    first, second = pair([True, False, True], [True, False, True])
    result = paired_difference(first, second, seed=seed)
    assert result.n_discordant == (0, 0) and result.difference.pvalue == 1.0


def test_paired_difference_needs_the_same_items(seed: int) -> None:
    first, second = pair([True] * 10, [True] * 9)
    second.append(make("extra", (0, 1), 0, 0))
    with pytest.raises(ConfigError, match=r"2 items are in only one side \(e\.g\. 'q9' is only in plain\)"):
        paired_difference(first, second, names=("plain", "debiased"), seed=seed)


def test_paired_difference_rejects_a_repeated_item(seed: int) -> None:
    first, second = pair([True, True], [True, True])
    with pytest.raises(ConfigError, match="item 'q0' appears more than once in debiased"):
        paired_difference(first, second + second[:1], names=("plain", "debiased"), seed=seed)
