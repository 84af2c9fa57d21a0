"""What one question put to a model came to: one :class:`Outcome` per item x variant x format x scoring rule.

Every stress metric is computed from outcomes alone, so a metric never re-runs a model and any source of outcomes
(a resumed run, a saved JSONL file) feeds the same code. Positions are arranged positions (what the model saw);
``gold`` and ``chosen`` are original option indices (what the item means).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pfungst.evaluate.scoring.base import Status
from pfungst.schema import Fields, read_dataclass
from pfungst.serialization import to_jsonable

__all__ = ["Outcome"]


@dataclass(frozen=True)
class Outcome:
    """The model's answer to one item in one arrangement, format and scoring rule.

    Example:
        >>> outcome = Outcome(item_id="q1", perturbation="cyclic", variant="shift 1", rule="letter", format="mmlu",
        ...                   order=(1, 2, 0), labels=("A", "B", "C"), gold=0, chosen=1, chosen_position=0,
        ...                   status="ok", scores=(-0.1, -2.0, -3.0))
        >>> outcome.gold_position, outcome.correct, outcome.chosen_label
        (2, False, 'A')
    """

    item_id: str
    """The item's id in the benchmark."""
    perturbation: str
    """The family of change: ``identity``, ``cyclic``, ``permutations``, ``answer-moved``, ``ids-shuffled``,
    ``top2``, ``rules``, ``formats``, ``instructions``, ``pride-estimate``, ``spread-search``, ``choices-only``,
    ``none-of-the-above``, ``letter-text``."""
    variant: str
    """The member of that family: ``shift 2``, ``slot C``, ``adjacent``, ``cloze-byte``, ``format 3``."""
    rule: str
    """The scoring rule's name."""
    format: str
    """The prompt format's name (a built-in name, ``format N`` from the grammar, or ``paraphrase N``)."""
    order: tuple[int, ...]
    """``order[position]`` is the original index of the option shown at ``position``."""
    labels: tuple[str, ...]
    """The bare label shown at each position (``"A"``; shuffled for ``ids-shuffled``)."""
    gold: int
    """The gold option's original index."""
    chosen: int
    """The chosen option's original index; -1 when nothing was chosen (``status`` is not ``ok``)."""
    chosen_position: int
    """The chosen arranged position; -1 when nothing was chosen."""
    status: Status
    """``ok``, or for generation ``refused`` / ``unparseable``."""
    scores: tuple[float, ...]
    """One score per arranged position, higher is better (log-probabilities for letter and cloze rules)."""
    text: str = ""
    """The generated text (generate only)."""
    n_tokens: tuple[int, ...] = ()
    """Tokens of each arranged option's scored continuation (cloze and PMI rules); empty where the rule reads none."""

    @property
    def n_options(self) -> int:
        """How many options the item has."""
        return len(self.order)

    @property
    def gold_position(self) -> int:
        """The arranged position at which the gold option was shown."""
        return self.order.index(self.gold)

    @property
    def correct(self) -> bool:
        """Whether the gold option was chosen (never for refused or unparseable answers)."""
        return self.status == "ok" and self.chosen == self.gold

    @property
    def chosen_label(self) -> str:
        """The label of the chosen position; empty when nothing was chosen."""
        return self.labels[self.chosen_position] if self.chosen_position >= 0 else ""

    @property
    def gold_label(self) -> str:
        """The label shown next to the gold option."""
        return self.labels[self.gold_position]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (infinite scores become ``None``)."""
        return {
            "item_id": self.item_id,
            "perturbation": self.perturbation,
            "variant": self.variant,
            "rule": self.rule,
            "format": self.format,
            "order": list(self.order),
            "labels": list(self.labels),
            "gold": self.gold,
            "gold_position": self.gold_position,
            "chosen": self.chosen,
            "chosen_position": self.chosen_position,
            "correct": self.correct,
            "status": self.status,
            "scores": to_jsonable(self.scores),
            "text": self.text,
            "n_tokens": list(self.n_tokens),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>", path: str = "") -> Outcome:
        """The outcome that :meth:`to_dict` wrote (``None`` scores read back as ``-inf``).

        Raises:
            ReaderError: a key missing or a value of the wrong type, named by ``source`` and its field path.
        """
        return cls.from_fields(Fields(data, source, path))

    @classmethod
    def from_fields(cls, fields: Fields) -> Outcome:
        """The outcome at ``fields``, every value's type checked (a wrong one named by its field path)."""
        read = read_dataclass(cls, fields)
        scores = tuple(-math.inf if math.isnan(score) else score for score in read.scores)  # null: -inf written
        return replace(read, scores=scores)
