"""PriDe: prior estimation from cyclic arrangements, one-pass debiasing, and what it costs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.stress.perturbations.pride.estimate import (
    Prior,
    choose_estimation_items,
    debias,
    estimate_prior,
    run_pride,
)

POSITION_PRIOR = (0.7, 0.1, 0.1, 0.1)
LABELS = ("A", "B", "C", "D", "E", "F")


def _outcome(
    item: str,
    order: tuple[int, ...],
    gold: int,
    scores: tuple[float, ...],
    variant: str = "identity",
    rule: str = "letter",
) -> Outcome:
    position = int(np.argmax(scores)) if scores else -1
    return Outcome(
        item,
        "cyclic",
        variant,
        rule,
        "mmlu",
        order,
        LABELS[: len(order)],
        gold,
        order[position] if position >= 0 else -1,
        position,
        "ok",
        scores,
    )


def _observed(content: np.ndarray, order: tuple[int, ...], position_prior: tuple[float, ...]) -> tuple[float, ...]:
    """The fake model: p_obs(position) = prior(position) * content(option shown there), normalised; as log-probs."""
    weights = np.array(position_prior) * content[list(order)]
    return tuple(float(x) for x in np.log(weights / weights.sum()))


def _cyclic(item: str, content: np.ndarray, gold: int, position_prior: tuple[float, ...]) -> list[Outcome]:
    k = len(content)
    orders = [tuple((position + shift) % k for position in range(k)) for shift in range(k)]
    return [
        _outcome(item, order, gold, _observed(content, order, position_prior), f"shift {shift}")
        for shift, order in enumerate(orders)
    ]


def _benchmark(n_items: int, fraction: float, seed: int) -> tuple[list[Outcome], list[Outcome], tuple[str, ...]]:
    """Items whose gold option has content probability 0.4 (others 0.2); gold at original index i % 4."""
    ids = [f"q{i}" for i in range(n_items)]
    contents = {item: np.where(np.arange(4) == i % 4, 0.4, 0.2) for i, item in enumerate(ids)}
    identity = [
        _outcome(item, (0, 1, 2, 3), i % 4, _observed(contents[item], (0, 1, 2, 3), POSITION_PRIOR))
        for i, item in enumerate(ids)
    ]
    chosen = choose_estimation_items(ids, fraction, seed)
    cyclic = [o for item in chosen for o in _cyclic(item, contents[item], int(item[1:]) % 4, POSITION_PRIOR)]
    return identity, cyclic, chosen


def test_plain_pass_always_answers_a_and_debiasing_recovers_the_content_answer(seed: int) -> None:
    identity, cyclic, chosen = _benchmark(40, 0.1, seed)
    result = run_pride(identity, cyclic, chosen, fraction=0.1)
    assert {outcome.chosen_position for outcome in identity} == {0}
    assert result.plain.value == pytest.approx(10 / 40)  # right only where gold sits at A
    assert result.debiased.value == 1.0
    assert result.debiased_rest.value == 1.0 and result.debiased_rest.n == 36
    assert [o.item_id for o in result.outcomes] == [o.item_id for o in identity]
    assert all(o.perturbation == "pride" and o.variant == "debiased" for o in result.outcomes)


def test_prior_from_cyclic_rotations_is_exactly_the_position_prior(seed: int) -> None:
    rng = np.random.default_rng(seed)
    outcomes = [o for i in range(5) for o in _cyclic(f"q{i}", rng.dirichlet(np.ones(4)), 0, POSITION_PRIOR)]
    prior = estimate_prior(outcomes)
    assert prior.by_n_options[4] == pytest.approx(POSITION_PRIOR, abs=1e-12)
    assert prior.n_items == {4: 5}


def test_global_prior_is_the_mean_of_the_item_priors_one_per_option_count() -> None:
    first = _cyclic("q1", np.array([0.5, 0.5]), 0, (0.8, 0.2))
    second = _cyclic("q2", np.array([0.9, 0.1]), 0, (0.6, 0.4))
    three = _cyclic("q3", np.array([0.2, 0.3, 0.5]), 0, (0.5, 0.3, 0.2))
    prior = estimate_prior(first + second + three)
    assert prior.by_n_options[2] == pytest.approx((0.7, 0.3))
    assert prior.by_n_options[3] == pytest.approx((0.5, 0.3, 0.2))
    assert prior.n_items == {2: 2, 3: 1}
    assert json.loads(json.dumps(prior.to_dict()))["n_items"] == {"2": 2, "3": 1}


def test_cost_ratio_for_100_items_5_percent_and_4_options_is_1_15(seed: int) -> None:
    identity, cyclic, chosen = _benchmark(100, 0.05, seed)
    result = run_pride(identity, cyclic, chosen, fraction=0.05)
    assert len(chosen) == 5
    assert (result.passes, result.plain_passes, result.cost_ratio) == (115, 100, pytest.approx(1.15))
    assert json.loads(json.dumps(result.to_dict()))["cost_ratio"] == pytest.approx(1.15)


def test_one_pass_debiasing_divides_by_the_prior() -> None:
    prior = Prior({3: (0.6, 0.2, 0.2)}, {3: 1})
    plain = _outcome("q1", (2, 0, 1), 0, tuple(math.log(p) for p in (0.5, 0.3, 0.2)))
    result = debias(plain, prior)
    assert plain.chosen_position == 0
    # 0.5 / 0.6 < 0.3 / 0.2 > 0.2 / 0.2: position B, which shows original option 0
    assert (result.chosen_position, result.chosen, result.correct) == (1, 0, True)
    assert result.scores == pytest.approx((math.log(0.5 / 0.6), math.log(1.5), 0.0))
    assert (result.order, result.labels, result.gold) == (plain.order, plain.labels, plain.gold)


def test_scores_are_normalised_before_debiasing() -> None:
    prior = Prior({2: (0.5, 0.5)}, {2: 1})
    plain = _outcome("q1", (0, 1), 1, (-10.0, -9.0))  # unnormalised log-probabilities
    assert debias(plain, prior).scores == pytest.approx(
        (math.log(1 / (1 + math.e)) - math.log(0.5), math.log(math.e / (1 + math.e)) - math.log(0.5))
    )


def test_minus_infinity_is_probability_zero_and_never_chosen() -> None:
    prior = Prior({3: (0.98, 0.01, 0.01)}, {3: 1})
    plain = _outcome("q1", (0, 1, 2), 2, (0.0, -math.inf, -3.0))
    result = debias(plain, prior)
    assert result.chosen_position == 2 and result.scores[1] == -math.inf
    assert result.to_dict()["scores"][1] is None


def test_estimation_items_are_decided_by_their_cyclic_average() -> None:
    content = np.array([0.1, 0.6, 0.3])
    cyclic = _cyclic("q1", content, 1, (0.5, 0.3, 0.2))
    identity = [cyclic[0]]
    result = run_pride(identity, cyclic, ["q1"], fraction=1.0)
    scores = np.array(result.outcomes[0].scores)
    # log p_obs - log prior = log content - log Z per arrangement: differences are the content's log-ratios
    assert scores - scores[0] == pytest.approx(np.log(content) - math.log(0.1))
    assert result.outcomes[0].chosen == 1 and result.debiased_rest.n == 0


def test_choose_estimation_items_is_seeded_and_keeps_at_least_one() -> None:
    ids = [f"q{i}" for i in range(50)]
    assert choose_estimation_items(ids, 0.1, seed=3) == choose_estimation_items(ids, 0.1, seed=3)
    assert len(choose_estimation_items(ids, 0.1, seed=3)) == 5
    assert len(choose_estimation_items(ids, 0.001, seed=3)) == 1
    assert choose_estimation_items(ids, 1.0, seed=3) == tuple(ids)


@pytest.mark.parametrize("fraction", [0.0, -0.1, 1.5])
def test_fraction_outside_zero_one_is_rejected(fraction: float) -> None:
    with pytest.raises(ConfigError, match=r"fraction must be in \(0, 1\]"):
        choose_estimation_items(["q1", "q2"], fraction, seed=0)


def test_incomplete_cyclic_set_is_rejected() -> None:
    outcomes = _cyclic("q1", np.array([0.4, 0.2, 0.2, 0.2]), 0, POSITION_PRIOR)[:3]
    with pytest.raises(ConfigError, match=r"item 'q1': its 3 arrangements do not show every option"):
        estimate_prior(outcomes)


def test_single_or_repeated_arrangement_is_rejected() -> None:
    first = _cyclic("q1", np.array([0.5, 0.5]), 0, (0.8, 0.2))[0]
    with pytest.raises(ConfigError, match=r"item 'q1': 1 arrangement\(s\), 1 distinct"):
        estimate_prior([first])
    with pytest.raises(ConfigError, match=r"item 'q1': 2 arrangement\(s\), 1 distinct"):
        estimate_prior([first, first])


def test_non_finite_or_generated_scores_cannot_estimate_a_prior() -> None:
    good = _cyclic("q1", np.array([0.5, 0.5]), 0, (0.8, 0.2))
    with pytest.raises(ConfigError, match=r"item 'q1' \(shift 1, rule 'letter'\): scores \[0.0, -inf\]"):
        estimate_prior([good[0], _outcome("q1", (1, 0), 0, (0.0, -math.inf), "shift 1")])
    generated = [_outcome("q1", order, 0, (), f"shift {i}", "generate") for i, order in enumerate([(0, 1), (1, 0)])]
    with pytest.raises(ConfigError, match=r"rule 'generate'.*not generation"):
        estimate_prior(generated)


def test_debias_needs_a_prior_for_the_items_option_count() -> None:
    prior = Prior({4: POSITION_PRIOR}, {4: 3})
    with pytest.raises(ConfigError, match=r"no prior for items with 3 options; priors exist for \[4\] options"):
        debias(_outcome("q1", (0, 1, 2), 0, (-1.0, -2.0, -3.0)), prior)


def test_cyclic_outcomes_of_other_items_are_rejected() -> None:
    identity, cyclic, chosen = _benchmark(20, 0.1, seed=0)
    with pytest.raises(ConfigError, match=r"cyclic outcomes for 1 item\(s\) outside the estimation set"):
        run_pride(identity, cyclic, chosen[:1], fraction=0.1)
    with pytest.raises(ConfigError, match=r"estimation item 'q99' has no plain-pass outcome"):
        run_pride(identity, cyclic, [*chosen, "q99"], fraction=0.1)
    with pytest.raises(ConfigError, match=r"item 'q0' occurs twice in the plain pass"):
        run_pride(identity + identity[:1], cyclic, chosen, fraction=0.1)
