"""Letter versus text (Wang et al. 2024, "My Answer is C"): per item, the option a model's next-token label
probabilities choose and the option parsed from the answer it writes.

lm-evaluation-harness scores a model either way (log-likelihood of the label, or generate-then-parse); a model whose
two answers disagree gets two different scores. This says how often they agree, how accurate each is, and where the
disagreements go (the cross-table of the two choices).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pfungst.blocks import Block, Facts, Table, format_number
from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import accuracy_estimate
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate, paired_bootstrap_difference
from pfungst.stress.estimates import estimates_table
from pfungst.stress.metrics.accuracy import proportion_estimate
from pfungst.stress.metrics.grouping import one_per_item

__all__ = ["NO_ANSWER", "LetterTextAgreement", "letter_text_agreement"]

NO_ANSWER = "no answer"
"""The cross-table's last column: generations that named no option (refused or unparseable)."""
_SHOWN = 30
"""Disagreeing items listed in reports (the JSON keeps all of them)."""


@dataclass(frozen=True)
class LetterTextAgreement:
    """How often the label-probability choice and the generated answer name the same option, and each one's
    accuracy."""

    KIND: ClassVar[str] = "letter-text"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Letter versus text agreement"
    """The result's heading in reports."""

    agreement: Estimate
    """Share of items whose generated answer names the option the label probabilities chose (an unparsed answer
    disagrees); Wilson interval; baseline the agreement expected from the two choices' marginals alone."""
    letter_accuracy: Estimate
    """Accuracy of the label-probability choice; Wilson, baseline chance (mean ``1 / K``)."""
    text_accuracy: Estimate
    """Accuracy of the generated answer (unparsed counts as wrong); Wilson, baseline chance."""
    difference: Estimate
    """Letter minus text accuracy; paired bootstrap over items, exact McNemar p, baseline 0."""
    labels: tuple[str, ...]
    """The position labels, the cross-table's rows and (with :data:`NO_ANSWER`) its columns."""
    crosstab: tuple[tuple[int, ...], ...]
    """Items per letter choice (rows) and generated choice (columns: each position, then no answer)."""
    disagreements: tuple[str, ...]
    """Ids of the items whose two choices differ, in the order given."""
    n_unparsed: int
    """Generations that named no option (refused or unparseable)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "agreement": self.agreement.to_dict(),
            "letter_accuracy": self.letter_accuracy.to_dict(),
            "text_accuracy": self.text_accuracy.to_dict(),
            "difference": self.difference.to_dict(),
            "labels": list(self.labels),
            "crosstab": [list(row) for row in self.crosstab],
            "disagreements": list(self.disagreements),
            "n_unparsed": self.n_unparsed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> LetterTextAgreement:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """Agreement and both accuracies; the cross-table; the disagreeing items."""
        named = [
            ("agreement (same option)", self.agreement),
            ("accuracy, letter probabilities", self.letter_accuracy),
            ("accuracy, generated answer", self.text_accuracy),
            ("letter - generated", self.difference),
        ]
        crosstab = Table(
            "Items per letter choice (rows) and generated choice (columns)",
            ("letter \\ text", *self.labels, NO_ANSWER),
            tuple(
                (label, *(str(count) for count in row)) for label, row in zip(self.labels, self.crosstab, strict=True)
            ),
        )
        shown = self.disagreements[:_SHOWN]
        more = len(self.disagreements) - len(shown)
        facts = Facts(
            (
                ("generations naming no option", format_number(self.n_unparsed)),
                (
                    "items that disagree",
                    ", ".join(shown) + (f" ... and {more} more (all in the JSON)" if more else "") or "none",
                ),
            )
        )
        return estimates_table("Letter probabilities versus generated answer", named), crosstab, facts

    def __repr__(self) -> str:
        return (
            f"LetterTextAgreement(agreement={self.agreement.value:.3f}, letter={self.letter_accuracy.value:.3f}, "
            f"text={self.text_accuracy.value:.3f}, unparsed={self.n_unparsed}, n={self.agreement.n})"
        )


def letter_text_agreement(
    letter: Sequence[Outcome],
    text: Sequence[Outcome],
    *,
    seed: int,
    n_bootstrap: int = 1000,
    level: float = 0.95,
) -> LetterTextAgreement:
    """Agreement of the label-probability choice with the generated answer, item by item.

    Args:
        letter: One outcome per item under a rule that scores labels (``letter``).
        text: One outcome per item, the same items in the same arrangement, under ``generate``.
        seed: Seed of the bootstrap resampling of items.
        n_bootstrap: Bootstrap resamples for the difference's interval.
        level: Coverage of every interval.

    Raises:
        ConfigError: a side empty or with an item twice, or the two sides not the same items.

    Example:
        >>> def answer(item_id, rule, chosen):
        ...     return Outcome(item_id=item_id, perturbation="identity", variant="identity", rule=rule,
        ...                    format="mmlu", order=(0, 1), labels=("A", "B"), gold=0, chosen=chosen,
        ...                    chosen_position=chosen, status="ok", scores=(0.0, 0.0))
        >>> result = letter_text_agreement([answer(f"q{i}", "letter", 0) for i in range(4)],
        ...                                [answer(f"q{i}", "generate", int(i == 3)) for i in range(4)], seed=0)
        >>> result.agreement.value, result.crosstab, result.disagreements
        (0.75, ((3, 1, 0), (0, 0, 0)), ('q3',))
    """
    by_letter = one_per_item(letter, "letter_text_agreement", "one letter outcome per item")
    by_text = one_per_item(text, "letter_text_agreement", "one generated outcome per item")
    if set(by_letter) != set(by_text):
        odd = sorted(set(by_letter) ^ set(by_text))
        raise ConfigError(
            f"letter_text_agreement joins on item_id, but {len(odd)} items are on one side only (e.g. '{odd[0]}'). "
            "Pass the same items under both rules."
        )
    ids = list(by_letter)
    widest = max(by_letter.values(), key=lambda outcome: outcome.n_options)
    k = widest.n_options
    table = np.zeros((k, k + 1), dtype=int)
    for item_id in ids:
        first, second = by_letter[item_id], by_text[item_id]
        if first.status == "ok":  # a letter question is unanswered only when skipped (too long for the model)
            table[first.chosen_position, second.chosen_position if second.status == "ok" else k] += 1
    agree = [_agree(by_letter[i], by_text[i]) for i in ids]
    n = len(ids)
    expected = float(np.sum(table.sum(axis=1) * table.sum(axis=0)[:k])) / n**2
    right_letter = np.array([by_letter[i].correct for i in ids], dtype=float)
    right_text = np.array([by_text[i].correct for i in ids], dtype=float)
    n_options = [by_letter[i].n_options for i in ids]
    return LetterTextAgreement(
        agreement=proportion_estimate(sum(agree), n, baseline=expected, level=level),
        letter_accuracy=accuracy_estimate(int(right_letter.sum()), n_options, level),
        text_accuracy=accuracy_estimate(int(right_text.sum()), n_options, level),
        difference=paired_bootstrap_difference(
            right_letter, right_text, seed=seed, n_resamples=n_bootstrap, level=level
        ),
        labels=widest.labels,
        crosstab=tuple(tuple(int(count) for count in row) for row in table),
        disagreements=tuple(item_id for item_id, same in zip(ids, agree, strict=True) if not same),
        n_unparsed=sum(by_text[i].status != "ok" for i in ids),
    )


def _agree(letter: Outcome, text: Outcome) -> bool:
    """Whether both named an option and it is the same one."""
    return letter.status == "ok" and text.status == "ok" and letter.chosen == text.chosen
