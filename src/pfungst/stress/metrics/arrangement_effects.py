"""What moving the options does to accuracy: the answer-moving attack and paired comparisons of two arrangements.

:func:`moved_answer_accuracy` reads the ``answer-moved`` perturbation (the gold option put in each slot in turn): a
model that reads content is as accurate in every slot. :func:`paired_difference` compares two variants on the same
items, for example the top-2 options adjacent versus at the ends (Pezeshkpour & Hruschka 2024), or plain versus debiased
scoring, with a paired bootstrap interval and an exact McNemar test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from pfungst.blocks import Block, Facts, Figure, format_number
from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import accuracy_estimate
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import (
    Estimate,
    bootstrap_interval,
    clustered_paired_difference,
    discordant_counts,
    paired_bootstrap_difference,
)
from pfungst.stress.estimates import estimates_table, shared_baseline
from pfungst.stress.metrics.accuracy import proportion_estimate
from pfungst.stress.metrics.grouping import group_by_item

__all__ = ["MovedAnswerAccuracy", "PairedDifference", "moved_answer_accuracy", "paired_difference"]


@dataclass(frozen=True)
class MovedAnswerAccuracy:
    """Accuracy with the gold option moved to each slot, and how far the best and worst slots lie apart."""

    KIND: ClassVar[str] = "answer-moved"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Gold answer moved to each slot"
    """The result's heading in reports."""

    slots: tuple[str, ...]
    """The label of each slot the gold was moved to, in position order (``"A"``, ``"B"``, ...)."""
    per_slot: tuple[Estimate, ...]
    """Accuracy with the gold in each slot; Wilson, baseline chance (mean ``1 / K``)."""
    gap: Estimate
    """Best minus worst slot accuracy; percentile bootstrap over items (paired: each resample keeps an item's
    slots together), baseline 0 (a slot-blind model, apart from sampling noise)."""
    worst_case: Estimate
    """Share of items right in every slot tried for them; Wilson, baseline the mean over items of
    ``(1/K) ** slots tried``."""
    n_items: int
    """Items the figures rest on."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "slots": list(self.slots),
            "per_slot": [estimate.to_dict() for estimate in self.per_slot],
            "gap": self.gap.to_dict(),
            "worst_case": self.worst_case.to_dict(),
            "n_items": self.n_items,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> MovedAnswerAccuracy:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """Accuracy per gold slot, the gap and the worst case; accuracy per slot as bars."""
        named = [(f"gold in slot {slot}", estimate) for slot, estimate in zip(self.slots, self.per_slot, strict=False)]
        named += [("gap (best - worst slot)", self.gap), ("right in every slot", self.worst_case)]
        figure = Figure(
            "bars",
            "Accuracy with the gold answer in each slot",
            {
                "labels": list(self.slots),
                "estimates": [estimate.to_dict() for estimate in self.per_slot],
                "references": shared_baseline(self.per_slot),
                "axis": "accuracy",
            },
        )
        return estimates_table("Accuracy per gold slot", named), figure

    def __repr__(self) -> str:
        pairs = zip(self.slots, self.per_slot, strict=True)
        accuracies = ", ".join(f"{slot}={estimate.value:.3f}" for slot, estimate in pairs)
        return f"MovedAnswerAccuracy({accuracies}; gap={self.gap.value:.3f}, n_items={self.n_items})"


@dataclass(frozen=True)
class PairedDifference:
    """Accuracy of two variants on the same items and their difference, tested with McNemar's exact test."""

    KIND: ClassVar[str] = "paired-difference"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Paired difference"
    """The result's heading in reports."""

    first: str
    """Name of the first variant."""
    second: str
    """Name of the second variant."""
    first_accuracy: Estimate
    """Accuracy of the first variant; Wilson, baseline chance (mean ``1 / K``)."""
    second_accuracy: Estimate
    """Accuracy of the second variant; Wilson, baseline chance."""
    difference: Estimate
    """First minus second accuracy; paired percentile bootstrap over items, p-value of the exact McNemar test
    (two-sided binomial test of the discordant pairs), baseline 0."""
    n_discordant: tuple[int, int]
    """Items right only under the first variant, and only under the second."""
    n_items: int
    """Items both variants answered."""
    design_effect: float = math.nan
    """Where the items cluster: clustered / naive variance of the per-item difference, and ``difference`` is then
    cluster-robust (t interval and two-sided t test on clusters - 1 degrees of freedom, Miller 2024); NaN
    where they do not."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "first": self.first,
            "second": self.second,
            "first_accuracy": self.first_accuracy.to_dict(),
            "second_accuracy": self.second_accuracy.to_dict(),
            "difference": self.difference.to_dict(),
            "n_discordant": list(self.n_discordant),
            "n_items": self.n_items,
            "design_effect": None if math.isnan(self.design_effect) else self.design_effect,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> PairedDifference:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """Both accuracies and their difference; the discordant items."""
        named = [
            (f"accuracy, {self.first}", self.first_accuracy),
            (f"accuracy, {self.second}", self.second_accuracy),
            (f"difference ({self.first} - {self.second})", self.difference),
        ]
        facts = Facts(
            (
                (f"right only under {self.first}", format_number(self.n_discordant[0])),
                (f"right only under {self.second}", format_number(self.n_discordant[1])),
                ("items", format_number(self.n_items)),
                *(
                    (("design effect (clustered items)", format_number(self.design_effect)),)
                    if not math.isnan(self.design_effect)
                    else ()
                ),
            )
        )
        return estimates_table("Paired accuracies", named), facts

    def __repr__(self) -> str:
        return (
            f"PairedDifference({self.first} - {self.second} = {self.difference.value:+.3f}, "
            f"p={self.difference.pvalue:.3g}, discordant={self.n_discordant}, n_items={self.n_items})"
        )


def moved_answer_accuracy(
    outcomes: Sequence[Outcome], *, seed: int, n_bootstrap: int = 1000, level: float = 0.95
) -> MovedAnswerAccuracy:
    """Per-slot accuracy, the best-minus-worst gap and worst-case accuracy of the answer-moving attack.

    Args:
        outcomes: Outcomes of one rule and format; an outcome's slot is the position of its gold option.
        seed: Seed of the bootstrap resampling of items.
        n_bootstrap: Bootstrap resamples for the gap's interval.
        level: Coverage of every interval.

    Raises:
        ConfigError: No outcomes; more than one rule or format; one position shown under two labels.

    Example:
        >>> def answer(gold_position):  # a model that always answers at the first position
        ...     order = (0, 1) if gold_position == 0 else (1, 0)
        ...     return Outcome(item_id="q1", perturbation="answer-moved", variant=f"slot {gold_position}",
        ...                    rule="letter", format="mmlu", order=order, labels=("A", "B"), gold=0,
        ...                    chosen=order[0], chosen_position=0, status="ok", scores=(0.0, -1.0))
        >>> moved = moved_answer_accuracy([answer(0), answer(1)], seed=0)
        >>> moved.slots, [slot.value for slot in moved.per_slot], moved.gap.value, moved.worst_case.value
        (('A', 'B'), [1.0, 0.0], 1.0, 0.0)
    """
    groups = _group(outcomes)
    positions, slots = _slots(outcomes)
    column = {position: number for number, position in enumerate(positions)}
    hits = np.zeros((len(groups), len(positions)))
    counts = np.zeros((len(groups), len(positions)))
    chance = np.zeros(len(positions))
    for row, group in enumerate(groups.values()):
        for outcome in group:
            hits[row, column[outcome.gold_position]] += outcome.correct
            counts[row, column[outcome.gold_position]] += 1
            chance[column[outcome.gold_position]] += 1.0 / outcome.n_options
    totals = counts.sum(axis=0)
    per_slot = tuple(
        proportion_estimate(
            int(hits[:, number].sum()),
            int(totals[number]),
            baseline=float(chance[number] / totals[number]),
            level=level,
        )
        for number in range(len(positions))
    )
    n = len(groups)
    gap = Estimate(
        value=_gap(hits, counts, np.arange(n)),
        method="best minus worst slot accuracy; paired bootstrap over items",
        n=n,
        ci=bootstrap_interval(lambda idx: _gap(hits, counts, idx), n, n_resamples=n_bootstrap, seed=seed, level=level),
        baseline=0.0,
    )
    worst_chance = float(np.mean([(1.0 / group[0].n_options) ** len(group) for group in groups.values()]))
    worst_case = proportion_estimate(
        sum(all(outcome.correct for outcome in group) for group in groups.values()),
        n,
        baseline=worst_chance,
        level=level,
    )
    return MovedAnswerAccuracy(slots=slots, per_slot=per_slot, gap=gap, worst_case=worst_case, n_items=n)


def _group(outcomes: Sequence[Outcome]) -> dict[str, list[Outcome]]:
    return group_by_item(outcomes, "moved_answer_accuracy", "the answer-moved outcomes")


def _slots(outcomes: Sequence[Outcome]) -> tuple[list[int], tuple[str, ...]]:
    labels: dict[int, str] = {}
    for outcome in outcomes:
        position, label = outcome.gold_position, outcome.gold_label
        if labels.setdefault(position, label) != label:
            raise ConfigError(
                f"moved_answer_accuracy found position {position + 1} labelled both '{labels[position]}' and '{label}' "
                f"(item '{outcome.item_id}'). Pass outcomes whose labels do not vary, e.g. not ids-shuffled ones."
            )
    positions = sorted(labels)
    return positions, tuple(labels[position] for position in positions)


def _gap(hits: np.ndarray, counts: np.ndarray, idx: np.ndarray) -> float:
    totals = counts[idx].sum(axis=0)
    tried = totals > 0
    accuracy = hits[idx].sum(axis=0)[tried] / totals[tried]
    return float(accuracy.max() - accuracy.min())


def paired_difference(
    first: Sequence[Outcome],
    second: Sequence[Outcome],
    *,
    names: tuple[str, str] = ("first", "second"),
    seed: int,
    n_bootstrap: int = 1000,
    level: float = 0.95,
    clusters: Mapping[str, str] | None = None,
) -> PairedDifference:
    """Accuracy of ``first`` minus ``second`` on the same items, with a paired interval and McNemar's exact test.

    Where ``clusters`` (item id -> cluster, :func:`pfungst.data.clusters.item_clusters`) puts the items in at least
    two clusters, the difference is cluster-robust instead (Miller 2024): t interval and two-sided t test over
    clusters, with the design effect.

    Args:
        first: One outcome per item under the first variant.
        second: One outcome per item under the second variant (the same items).
        names: What to call the two variants in the result and in messages.
        seed: Seed of the bootstrap resampling of items.
        n_bootstrap: Bootstrap resamples for the difference's interval.
        level: Coverage of every interval.
        clusters: Item id -> cluster; None (or a single cluster) for independent items.

    Raises:
        ConfigError: A side is empty, has an item twice, or has items the other lacks.

    Example:
        >>> def answer(item_id, chosen):
        ...     return Outcome(item_id=item_id, perturbation="top2", variant="", rule="letter", format="mmlu",
        ...                    order=(0, 1), labels=("A", "B"), gold=0, chosen=chosen, chosen_position=chosen,
        ...                    status="ok", scores=(0.0, 0.0))
        >>> ids = [f"q{number}" for number in range(10)]
        >>> result = paired_difference([answer(i, 0) for i in ids], [answer(i, 1) for i in ids],
        ...                            names=("adjacent", "ends"), seed=0)
        >>> result.difference.value, result.n_discordant, round(result.difference.pvalue, 5)
        (1.0, (10, 0), 0.00195)
    """
    by_first, by_second = _by_item(first, names[0]), _by_item(second, names[1])
    only = [(item_id, names[0]) for item_id in by_first if item_id not in by_second]
    only += [(item_id, names[1]) for item_id in by_second if item_id not in by_first]
    if only:
        example, side = only[0]
        raise ConfigError(
            f"paired_difference joins on item_id, but {len(only)} items are in only one side "
            f"(e.g. '{example}' is only in {side}). Pass the same items to both."
        )
    item_ids = list(by_first)
    right_first = np.array([by_first[item_id].correct for item_id in item_ids], dtype=float)
    right_second = np.array([by_second[item_id].correct for item_id in item_ids], dtype=float)
    difference = paired_bootstrap_difference(
        right_first, right_second, seed=seed, n_resamples=n_bootstrap, level=level, form="difference of means"
    )
    difference = replace(difference, method="paired bootstrap over items; exact McNemar test")
    effect = math.nan
    labels = [clusters.get(item_id) for item_id in item_ids] if clusters else []
    if labels and None not in labels and len(set(labels)) >= 2:
        robust = clustered_paired_difference(right_first, right_second, labels, level)
        difference, effect = replace(robust.estimate, baseline=0.0), robust.design_effect
    return PairedDifference(
        first=names[0],
        second=names[1],
        first_accuracy=accuracy_estimate(int(right_first.sum()), [by_first[i].n_options for i in item_ids], level),
        second_accuracy=accuracy_estimate(int(right_second.sum()), [by_second[i].n_options for i in item_ids], level),
        difference=difference,
        n_discordant=discordant_counts(right_first, right_second),
        n_items=len(item_ids),
        design_effect=effect,
    )


def _by_item(outcomes: Sequence[Outcome], name: str) -> dict[str, Outcome]:
    if not outcomes:
        raise ConfigError(f"paired_difference needs outcomes for {name}, but none were given.")
    found: dict[str, Outcome] = {}
    for outcome in outcomes:
        if outcome.item_id in found:
            raise ConfigError(
                f"paired_difference needs one outcome per item on each side, but item '{outcome.item_id}' appears "
                f"more than once in {name}. Pass a single variant, rule and format per side."
            )
        found[outcome.item_id] = outcome
    return found
