"""PriDe (Zheng et al., ICLR 2024): remove a model's prior for option IDs (positions) from its answers.

The observed prediction over option IDs factorises as ``p_obs(ID) = p_prior(ID) * p_debiased(content) / Z``. On a
small share of items, every cyclic arrangement is scored: averaged over arrangements, each content sits at every
position once, so the softmax over positions of the mean log ``p_obs`` recovers the item's position prior exactly.
The priors of these estimation items are averaged into one prior per option count, and every other item is
debiased from its single plain pass by choosing the position maximising ``log p_obs - log p_prior``. Estimation
items are decided by their own cyclic average. Scores are log-probabilities; ``-inf`` means probability 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.stats import Estimate, wilson_interval
from pfungst.stress.perturbations.pride.result import PrideResult, Prior

__all__ = ["Prior", "PrideResult", "choose_estimation_items", "debias", "estimate_prior", "run_pride"]


def estimate_prior(outcomes: Sequence[Outcome]) -> Prior:
    """Estimate the prior over option IDs from estimation items scored in every cyclic arrangement.

    Args:
        outcomes: All arrangements of each estimation item (cyclic shifts, or any set in which every option is shown
            at every position equally often), with a finite score at every position.

    Raises:
        ConfigError: An item has fewer than two arrangements, repeats one, is not balanced over positions, mixes
            option counts or golds, or has a missing or non-finite score (a generation rule, say).

    Example:
        >>> import math
        >>> def shown(shift):
        ...     order = tuple((position + shift) % 2 for position in range(2))
        ...     return Outcome("q1", "cyclic", f"shift {shift}", "letter", "mmlu", order, ("A", "B"), 0, order[0], 0,
        ...                    "ok", (math.log(0.8), math.log(0.2)))
        >>> [round(p, 2) for p in estimate_prior([shown(0), shown(1)]).by_n_options[2]]
        [0.8, 0.2]
    """
    groups = _arrangements_by_item(outcomes)
    priors: dict[int, list[np.ndarray]] = {}
    for item_id, group in groups.items():
        _check_arrangements(item_id, group)
        logp = np.array([_log_softmax(outcome) for outcome in group])
        priors.setdefault(group[0].n_options, []).append(_softmax(logp.mean(axis=0)))
    return Prior(
        by_n_options={k: tuple(float(p) for p in np.mean(rows, axis=0)) for k, rows in sorted(priors.items())},
        n_items={k: len(rows) for k, rows in sorted(priors.items())},
    )


def debias(outcome: Outcome, prior: Prior) -> Outcome:
    """Debias one plain pass: choose the position maximising ``log p_obs - log p_prior``.

    Args:
        outcome: The item in one arrangement, with one log-probability per position (``-inf`` allowed).
        prior: The estimated prior; it must have one for the item's option count.

    Returns:
        A new outcome (perturbation ``pride``, variant ``debiased``) with the same order and labels, the debiased
        choice, and the debiased log-scores.

    Raises:
        ConfigError: No prior for the item's option count, or the scores do not give a probability per position.

    Example:
        >>> import math
        >>> prior = Prior({3: (0.6, 0.2, 0.2)}, {3: 10})
        >>> plain = Outcome("q1", "identity", "identity", "letter", "mmlu", (0, 1, 2), ("A", "B", "C"), 1, 0, 0, "ok",
        ...                 tuple(math.log(p) for p in (0.5, 0.3, 0.2)))
        >>> debias(plain, prior).chosen
        1
    """
    log_prior = np.log(np.array(prior.for_options(outcome.n_options)))
    scores = _log_softmax(outcome, allow_inf=True) - log_prior
    position = int(np.argmax(scores))
    return _debiased(outcome, scores, position)


def choose_estimation_items(item_ids: Sequence[str], fraction: float, seed: int) -> tuple[str, ...]:
    """Draw ``max(1, round(fraction * n))`` items to estimate the prior on, in their benchmark order.

    Raises:
        ConfigError: ``fraction`` is not in (0, 1], there are no items, or an id repeats.

    Example:
        >>> choose_estimation_items([f"q{i}" for i in range(100)], 0.05, seed=0)
        ('q26', 'q30', 'q50', 'q61', 'q81')
    """
    if not 0 < fraction <= 1:
        raise ConfigError(f"fraction must be in (0, 1], the share of items to estimate the prior on; got {fraction}")
    if not item_ids:
        raise ConfigError("no items to choose estimation items from")
    if len(set(item_ids)) != len(item_ids):
        raise ConfigError("item ids repeat; give each item once to choose estimation items")
    size = max(1, round(fraction * len(item_ids)))
    chosen = np.random.default_rng(seed).choice(len(item_ids), size=size, replace=False)
    return tuple(item_ids[int(index)] for index in sorted(chosen))


def run_pride(
    identity: Sequence[Outcome],
    cyclic: Sequence[Outcome],
    estimation_items: Sequence[str],
    *,
    fraction: float,
) -> PrideResult:
    """Estimate the prior on the estimation items, debias every item, and compare with the plain pass.

    Args:
        identity: One plain-pass outcome per item.
        cyclic: Every cyclic arrangement of each estimation item (and of no other item).
        estimation_items: Ids of the estimation items (see :func:`choose_estimation_items`).
        fraction: The share of items they were drawn as, recorded in the result.

    Raises:
        ConfigError: ``fraction`` is not in (0, 1]; an item repeats in ``identity``; an estimation item has no
            plain or no cyclic outcomes; ``cyclic`` holds other items; or see :func:`estimate_prior` and :func:`debias`.

    Example:
        >>> import math
        >>> def shown(item, shift):  # the model always prefers position A: 0.9 against 0.1
        ...     order = tuple((position + shift) % 2 for position in range(2))
        ...     return Outcome(item, "cyclic", f"shift {shift}", "letter", "mmlu", order, ("A", "B"), 1, order[0], 0,
        ...                    "ok", (math.log(0.9), math.log(0.1)))
        >>> result = run_pride([shown("q1", 0), shown("q2", 0)], [shown("q1", 0), shown("q1", 1)], ["q1"], fraction=0.5)
        >>> result.passes, result.cost_ratio, [round(p, 2) for p in result.prior.by_n_options[2]]
        (3, 1.5, [0.9, 0.1])
    """
    plain = _plain_by_item(identity)
    estimation = tuple(dict.fromkeys(estimation_items))
    groups = _estimation_groups(plain, cyclic, estimation, fraction)
    prior = estimate_prior(cyclic)
    debiased = [
        _debias_cyclic(outcome, groups[item_id], prior) if item_id in groups else debias(outcome, prior)
        for item_id, outcome in plain.items()
    ]
    rest = [outcome for outcome in debiased if outcome.item_id not in groups]
    passes = sum(len(group) for group in groups.values()) + len(rest)
    return PrideResult(
        prior=prior,
        fraction=fraction,
        estimation_items=estimation,
        outcomes=tuple(debiased),
        plain=_accuracy(list(plain.values()), "plain pass"),
        debiased=_accuracy(debiased, "PriDe-debiased"),
        debiased_rest=_accuracy(rest, "PriDe-debiased, items outside the estimation set"),
        passes=passes,
        plain_passes=len(plain),
        cost_ratio=passes / len(plain),
    )


def _plain_by_item(identity: Sequence[Outcome]) -> dict[str, Outcome]:
    plain: dict[str, Outcome] = {}
    for outcome in identity:
        if outcome.item_id in plain:
            raise ConfigError(f"item '{outcome.item_id}' occurs twice in the plain pass; expected one outcome per item")
        plain[outcome.item_id] = outcome
    if not plain:
        raise ConfigError("no plain-pass outcomes; PriDe needs one outcome per item")
    return plain


def _estimation_groups(
    plain: Mapping[str, Outcome], cyclic: Sequence[Outcome], estimation: Sequence[str], fraction: float
) -> dict[str, list[Outcome]]:
    if not 0 < fraction <= 1:
        raise ConfigError(f"fraction must be in (0, 1], the share of items to estimate the prior on; got {fraction}")
    if not estimation:
        raise ConfigError("no estimation items; choose some with choose_estimation_items")
    groups = _arrangements_by_item(cyclic)
    for item_id in estimation:
        if item_id not in plain or item_id not in groups:
            where = "plain-pass" if item_id not in plain else "cyclic"
            raise ConfigError(f"estimation item '{item_id}' has no {where} outcome; score it in every arrangement")
        if any(o.n_options != plain[item_id].n_options or o.gold != plain[item_id].gold for o in groups[item_id]):
            raise ConfigError(
                f"estimation item '{item_id}': its cyclic outcomes disagree with its plain pass on the "
                "number of options or the gold; pass outcomes of the same item and benchmark"
            )
    extra = sorted(set(groups) - set(estimation))
    if extra:
        raise ConfigError(
            f"cyclic outcomes for {len(extra)} item(s) outside the estimation set (first: '{extra[0]}'); "
            "pass only the estimation items' arrangements, or add those items to the estimation set"
        )
    return {item_id: groups[item_id] for item_id in estimation}


def _arrangements_by_item(outcomes: Sequence[Outcome]) -> dict[str, list[Outcome]]:
    groups: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.item_id, []).append(outcome)
    if not groups:
        raise ConfigError("no estimation outcomes; score the estimation items in every cyclic arrangement")
    return groups


def _check_arrangements(item_id: str, group: Sequence[Outcome]) -> None:
    k = group[0].n_options
    if any(outcome.n_options != k or outcome.gold != group[0].gold for outcome in group):
        raise ConfigError(f"item '{item_id}': its arrangements disagree on the number of options or on the gold")
    orders = [outcome.order for outcome in group]
    if k < 2 or len(orders) < 2 or len(set(orders)) != len(orders):
        raise ConfigError(
            f"item '{item_id}': {len(orders)} arrangement(s), {len(set(orders))} distinct, of {k} options; estimating "
            f"the prior needs at least 2 distinct arrangements (all {k} cyclic shifts)"
        )
    shown = np.zeros((k, k), dtype=int)
    for order in orders:
        shown[np.arange(k), list(order)] += 1
    if len(orders) % k or not np.all(shown == len(orders) // k):
        raise ConfigError(
            f"item '{item_id}': its {len(orders)} arrangements do not show every option at every position equally "
            f"often; score all {k} cyclic shifts"
        )
    for outcome in group:
        if len(outcome.scores) != k or not all(math.isfinite(score) for score in outcome.scores):
            raise ConfigError(
                f"item '{item_id}' ({outcome.variant}, rule '{outcome.rule}'): scores {list(outcome.scores)} are not "
                f"a finite log-probability for each of the {k} positions; PriDe needs a log-probability rule "
                "(letter or cloze), not generation"
            )


def _log_softmax(outcome: Outcome, *, allow_inf: bool = False) -> np.ndarray:
    scores = np.array(outcome.scores, dtype=float)
    bad = np.isnan(scores) | (scores == np.inf)
    if not allow_inf:
        bad |= ~np.isfinite(scores)
    if scores.size != outcome.n_options or bad.any() or not np.isfinite(scores).any():
        raise ConfigError(
            f"item '{outcome.item_id}' ({outcome.variant}, rule '{outcome.rule}'): scores {list(outcome.scores)} are "
            f"not a log-probability for each of its {outcome.n_options} positions; PriDe needs a letter or cloze rule"
        )
    top = scores.max()
    return scores - (top + math.log(float(np.exp(scores - top).sum())))


def _softmax(values: np.ndarray) -> np.ndarray:
    weights = np.exp(values - values.max())
    return weights / weights.sum()


def _debias_cyclic(plain: Outcome, group: Sequence[Outcome], prior: Prior) -> Outcome:
    """Decide an estimation item by its cyclic average of ``log p_obs - log p_prior`` per original option."""
    log_prior = np.log(np.array(prior.for_options(plain.n_options)))
    content = np.zeros(plain.n_options)
    for outcome in group:
        content[list(outcome.order)] += _log_softmax(outcome) - log_prior
    content /= len(group)
    scores = content[list(plain.order)]
    return _debiased(plain, scores, int(np.argmax(scores)))


def _debiased(outcome: Outcome, scores: np.ndarray, position: int) -> Outcome:
    return replace(
        outcome,
        perturbation="pride",
        variant="debiased",
        chosen=outcome.order[position],
        chosen_position=position,
        status="ok",
        scores=tuple(float(score) for score in scores),
        text="",
    )


def _accuracy(outcomes: Sequence[Outcome], what: str) -> Estimate:
    n = len(outcomes)
    correct = sum(outcome.correct for outcome in outcomes)
    return Estimate(
        value=correct / n if n else math.nan,
        method=f"accuracy, {what}; Wilson interval",
        n=n,
        ci=wilson_interval(correct, n),
        baseline=float(np.mean([1 / outcome.n_options for outcome in outcomes])) if n else math.nan,
    )
