"""The model's choices-only baseline (Balepur, Ravichander & Rudinger 2024, "Artifacts or Abduction"): how often a
model answers right with the question removed, against chance, against always answering the most common gold
position, and against its own accuracy with the question.

This is the model-side twin of the audit's classifier choices-only probe: an accuracy well above both baselines says
the options alone give the answer away (to this model), whatever the question asks.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pfungst.blocks import Block, Facts, Table, format_number
from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import accuracy_estimate
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate, binomial_pvalue, paired_bootstrap_difference
from pfungst.stress.estimates import estimates_table
from pfungst.stress.metrics.grouping import one_per_item

__all__ = ["ChoicesOnlyAccuracy", "choices_only_accuracy", "not_asked"]

_SHOWN = 30
"""Solved items listed in reports (the JSON keeps all of them)."""


def not_asked(what: str) -> Estimate:
    """The estimate of a figure that was not computed, and why (NaN value, no interval)."""
    return Estimate(value=math.nan, method=f"not computed: {what}", n=0)


@dataclass(frozen=True)
class ChoicesOnlyAccuracy:
    """Accuracy with the question removed, beside chance, the majority position and accuracy with the question."""

    KIND: ClassVar[str] = "choices-only"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Choices-only baseline"
    """The result's heading in reports."""

    accuracy: Estimate
    """Share right without the question; Wilson interval, baseline chance (mean ``1 / K``), p-value of the exact
    one-sided binomial test against chance."""
    majority_position: str
    """The label of the position holding the gold most often (ties: the first)."""
    majority: Estimate
    """Accuracy of always answering ``majority_position`` (the best answer-blind constant); Wilson, baseline chance."""
    versus_majority: Estimate
    """Choices-only minus majority-position accuracy; paired bootstrap over items, exact McNemar p, baseline 0."""
    full_accuracy: Estimate
    """Accuracy with the question, on the same items and rule; Wilson, baseline chance (not computed when the plain
    questions were not given)."""
    versus_full: Estimate
    """Choices-only minus full accuracy; paired bootstrap over items, exact McNemar p, baseline 0."""
    crosstab: tuple[int, int, int, int]
    """Items right with and without the question, right only with it, right only without it, right in neither
    (all zero when the plain questions were not given)."""
    solved: tuple[str, ...]
    """Ids of the items answered right without the question, in the order given."""
    n_unanswered: int
    """Choices-only questions not answered (refused or unparseable generations, skipped questions)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "accuracy": self.accuracy.to_dict(),
            "majority_position": self.majority_position,
            "majority": self.majority.to_dict(),
            "versus_majority": self.versus_majority.to_dict(),
            "full_accuracy": self.full_accuracy.to_dict(),
            "versus_full": self.versus_full.to_dict(),
            "crosstab": list(self.crosstab),
            "solved": list(self.solved),
            "n_unanswered": self.n_unanswered,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ChoicesOnlyAccuracy:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """The accuracies and differences, the cross-table with the full questions, the items solved."""
        named = [
            ("accuracy without the question", self.accuracy),
            (f"always answering {self.majority_position} (majority position)", self.majority),
            ("choices-only - majority position", self.versus_majority),
            ("accuracy with the question", self.full_accuracy),
            ("choices-only - with the question", self.versus_full),
        ]
        both, with_only, without_only, neither = self.crosstab
        crosstab = Table(
            "Items right with and without the question",
            ("", "right without", "wrong without"),
            (("right with", str(both), str(with_only)), ("wrong with", str(without_only), str(neither))),
        )
        shown = self.solved[:_SHOWN]
        more = len(self.solved) - len(shown)
        facts = Facts(
            (
                ("solved without the question", f"{len(self.solved)} of {self.accuracy.n} items"),
                ("unanswered", format_number(self.n_unanswered)),
                ("solved items", ", ".join(shown) + (f" ... and {more} more (all in the JSON)" if more else "")),
            )
        )
        return estimates_table("Choices-only accuracy against its baselines", named), crosstab, facts

    def __repr__(self) -> str:
        return (
            f"ChoicesOnlyAccuracy(accuracy={self.accuracy.value:.3f}, chance={self.accuracy.baseline:.3f}, "
            f"majority {self.majority_position}={self.majority.value:.3f}, full={self.full_accuracy.value:.3f}, "
            f"solved={len(self.solved)} of {self.accuracy.n})"
        )


def choices_only_accuracy(
    outcomes: Sequence[Outcome],
    full: Sequence[Outcome] = (),
    *,
    seed: int,
    n_bootstrap: int = 1000,
    level: float = 0.95,
) -> ChoicesOnlyAccuracy:
    """Choices-only accuracy against chance and the majority position, and against the full questions if given.

    Args:
        outcomes: One choices-only outcome per item (one rule and format).
        full: The same items asked with their question under the same rule and format; empty to leave that out.
        seed: Seed of the bootstrap resampling of items.
        n_bootstrap: Bootstrap resamples for the paired intervals.
        level: Coverage of every interval.

    Raises:
        ConfigError: no outcomes, an item twice, several rules or formats, or ``full`` lacking an item.

    Example:
        >>> def answer(item_id, gold):  # a model that always answers A, shown the question or not
        ...     return Outcome(item_id=item_id, perturbation="choices-only", variant="choices only", rule="letter",
        ...                    format="mmlu", order=(0, 1), labels=("A", "B"), gold=gold, chosen=0,
        ...                    chosen_position=0, status="ok", scores=(0.0, -1.0))
        >>> result = choices_only_accuracy([answer(f"q{i}", int(i >= 6)) for i in range(8)], seed=0)
        >>> result.accuracy.value, result.majority_position, result.majority.value, result.versus_majority.value
        (0.75, 'A', 0.75, 0.0)
    """
    items = one_per_item(outcomes, "choices_only_accuracy", "one choices-only outcome per item")
    right = np.array([outcome.correct for outcome in items.values()], dtype=float)
    n_options = [outcome.n_options for outcome in items.values()]
    accuracy = accuracy_estimate(int(right.sum()), n_options, level)
    accuracy = Estimate(
        value=accuracy.value,
        method="wilson; exact one-sided binomial test against chance",
        n=accuracy.n,
        ci=accuracy.ci,
        pvalue=binomial_pvalue(int(right.sum()), len(right), accuracy.baseline),
        baseline=accuracy.baseline,
    )
    position, label = _majority_position(items.values())
    majority_right = np.array([o.gold_position == position for o in items.values()], dtype=float)
    majority = accuracy_estimate(int(majority_right.sum()), n_options, level)
    versus_majority = paired_bootstrap_difference(
        right, majority_right, seed=seed, n_resamples=n_bootstrap, level=level
    )
    full_accuracy, versus_full = not_asked("no plain questions given"), not_asked("no plain questions given")
    crosstab = (0, 0, 0, 0)
    if full:
        with_question = _aligned(items, full)
        full_accuracy = accuracy_estimate(int(with_question.sum()), n_options, level)
        versus_full = paired_bootstrap_difference(right, with_question, seed=seed, n_resamples=n_bootstrap, level=level)
        crosstab = (
            int(np.sum((with_question == 1) & (right == 1))),
            int(np.sum((with_question == 1) & (right == 0))),
            int(np.sum((with_question == 0) & (right == 1))),
            int(np.sum((with_question == 0) & (right == 0))),
        )
    return ChoicesOnlyAccuracy(
        accuracy=accuracy,
        majority_position=label,
        majority=majority,
        versus_majority=versus_majority,
        full_accuracy=full_accuracy,
        versus_full=versus_full,
        crosstab=crosstab,
        solved=tuple(item_id for item_id, outcome in items.items() if outcome.correct),
        n_unanswered=sum(outcome.status != "ok" for outcome in items.values()),
    )


def _majority_position(outcomes: Sequence[Outcome] | Any) -> tuple[int, str]:
    """The position holding the gold most often (ties: the first) and its label."""
    outcomes = list(outcomes)
    counts = Counter(outcome.gold_position for outcome in outcomes)
    position = min(counts, key=lambda p: (-counts[p], p))
    label = next(outcome.labels[position] for outcome in outcomes if outcome.gold_position == position)
    return position, label


def _aligned(items: Mapping[str, Outcome], full: Sequence[Outcome]) -> np.ndarray:
    """Whether each item (in ``items``' order) was right with its question."""
    by_item = one_per_item(full, "choices_only_accuracy", "one plain outcome per item")
    missing = [item_id for item_id in items if item_id not in by_item]
    if missing:
        raise ConfigError(
            f"choices_only_accuracy: {len(missing)} items have no plain outcome (e.g. '{missing[0]}'). "
            "Pass the plain outcomes of the same items."
        )
    return np.array([by_item[item_id].correct for item_id in items], dtype=float)
