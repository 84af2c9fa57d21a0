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

__all__ = ["Outcome", "check_outcome_record"]


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
        """The outcome at ``fields``, every value's type checked (a wrong one named by its field path) and its
        indices and scores by :func:`check_outcome_record`."""
        read = read_dataclass(cls, fields)
        check_outcome_record(fields)
        scores = tuple(-math.inf if math.isnan(score) else score for score in read.scores)  # null: -inf written
        return replace(read, scores=scores)


_NOTHING_CHOSEN = -1


def check_outcome_record(fields: Fields) -> None:
    """Check one outcome record (a line of ``score --out`` or ``stress --items``, an entry of a result's
    ``items`` or ``outcomes``) on the keys it holds: the contract every reader of outcomes applies.

    ``item_id`` and the names (``perturbation``, ``variant``, ``rule``, ``format``) are strings, ``status`` one of
    :data:`~pfungst.evaluate.scoring.base.Status`; ``order`` is a permutation of the option indices; ``labels`` and
    ``scores`` have one entry per option (``scores`` may be empty: generation scores none), each score finite or
    null (-inf); ``gold`` is an option index, ``chosen`` and ``chosen_position`` are option indices or -1 (nothing
    chosen), ``chosen`` is the option shown at ``chosen_position``; ``correct`` is whether ``status`` is ``ok`` and
    ``chosen`` is ``gold``. The number of options comes from ``order``, else ``labels``, else ``scores``.

    Raises:
        ReaderError: the first key that breaks the contract, named by file, line and field path.
    """
    for key in ("item_id", "perturbation", "variant", "rule", "format", "text"):
        if key in fields.data:
            fields.string(key)
    if "status" in fields.data:
        fields.typed("status", Status)
    if "n_tokens" in fields.data:
        fields.typed("n_tokens", tuple[int, ...])
    lists = {key: fields.items(key) for key in ("order", "labels", "scores") if key in fields.data}
    known = [len(lists[key]) for key in ("order", "labels") if key in lists] + [len(lists.get("scores") or [])]
    n_options = next((count for count in known if count), 0)
    if "order" in lists:
        order = fields.typed("order", tuple[int, ...])
        if sorted(order) != list(range(n_options)):
            raise fields.error("order", f"expected a permutation of 0..{n_options - 1}, found {list(order)}")
    for key in ("labels", "scores"):
        if lists.get(key) and len(lists[key]) != n_options:
            raise fields.error(key, f"expected one entry per option ({n_options}), found {len(lists[key])}")
    if "labels" in lists:
        fields.typed("labels", tuple[str, ...])
    if "scores" in lists:
        fields.typed("scores", tuple[float, ...])  # finite numbers or null; NaN and Infinity refused
    _check_indices(fields, n_options)


def _check_indices(fields: Fields, n_options: int) -> None:
    """``gold``, ``chosen``, ``chosen_position`` in range and consistent with ``order`` and ``correct``."""
    indices: dict[str, int] = {}
    for key, lowest in (("gold", 0), ("chosen", _NOTHING_CHOSEN), ("chosen_position", _NOTHING_CHOSEN)):
        if key not in fields.data:
            continue
        value = fields.integer(key)
        if value < lowest or (n_options and value >= n_options):
            top = f"{n_options - 1}" if n_options else "its count"
            raise fields.error(key, f"{value} is not an option index ({lowest}..{top}) of the {n_options} options")
        indices[key] = value
    if {"order", "chosen", "chosen_position"} <= fields.data.keys():
        position, order = indices["chosen_position"], fields.typed("order", tuple[int, ...])
        shown = order[position] if position >= 0 else _NOTHING_CHOSEN
        if shown != indices["chosen"]:
            raise fields.error("chosen", f"{indices['chosen']} is not the option shown at chosen_position {position}")
    if {"correct", "gold", "chosen"} <= fields.data.keys():
        status = fields.string("status") if "status" in fields.data else "ok"
        expected = status == "ok" and indices["chosen"] == indices["gold"]
        if fields.boolean("correct") != expected:
            raise fields.error(
                "correct",
                f"{str(not expected).lower()} disagrees with status {status!r}, chosen {indices['chosen']} and gold "
                f"{indices['gold']}",
            )
