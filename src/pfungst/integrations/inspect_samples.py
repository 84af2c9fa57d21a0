"""inspect_ai multiple-choice samples in pfungst's arrangements, and the outcomes their scores come to.

This is the part of the inspect_ai integration that needs no inspect_ai: the extension
(:mod:`pfungst.integrations.inspect_ai`) builds its samples and its metrics on it, and the log reader
(:mod:`pfungst.integrations.inspect_log`) turns a finished log back into :class:`~pfungst.evaluate.outcome.Outcome`
records with it, so the metrics inspect shows and the ones pfungst computes from the log come from one conversion.

Every arranged sample carries, under the metadata key ``pfungst`` (:data:`METADATA_KEY`), the original item id, the
perturbation and variant, the arrangement (``order[position]`` is the original index of the option shown there, as
:class:`~pfungst.evaluate.arrangement.ArrangedItem`) and the gold's original index. inspect's ``multiple_choice``
solver shows the options under the letters A, B, C, ... in the order the sample gives them, and its target is the
letter of the gold's arranged position, so inspect's own ``choice`` scorer stays right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pfungst.data.item import Item
from pfungst.errors import ConfigError, DataError
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.variants import Identity, Presentation, Variant
from pfungst.stress.perturbations.answer_moved import MovedAnswer
from pfungst.stress.perturbations.cyclic import Cyclic
from pfungst.stress.perturbations.permutations import Permutations

__all__ = [
    "ARRANGEMENTS",
    "FORMAT",
    "METADATA_KEY",
    "RULE",
    "ArrangedSample",
    "arrange",
    "item_from_sample",
    "letter",
    "outcome_from_metadata",
    "position_of_letter",
]

METADATA_KEY = "pfungst"
"""The sample-metadata key (and score-metadata key) under which pfungst records what it needs."""
ARRANGEMENTS: tuple[str, ...] = ("identity", "cyclic", "permutations", "answer-moved")
"""The perturbations an inspect task can be expanded into: those that only rearrange the options (inspect's
``multiple_choice`` always labels them A, B, C, ..., so ``ids-shuffled`` cannot be shown through it)."""
RULE = "generate"
"""The scoring rule of outcomes read from inspect: a generated answer parsed to one option."""
FORMAT = "inspect"
"""The prompt format of outcomes read from inspect (the task's own template)."""


def letter(position: int) -> str:
    """The label inspect's ``multiple_choice`` shows at a 0-based position (A-Z, then 1, 2, ...).

    Example:
        >>> letter(0), letter(3), letter(26)
        ('A', 'D', '1')
    """
    return chr(ord("A") + position) if position < 26 else str(position - 25)


def position_of_letter(label: str) -> int:
    """The 0-based position of an inspect answer letter; -1 for anything that is not one letter or number.

    Example:
        >>> position_of_letter("C"), position_of_letter("b"), position_of_letter("A, B")
        (2, 1, -1)
    """
    text = label.strip()
    if len(text) == 1 and text.isalpha() and text.isascii():
        return ord(text.upper()) - ord("A")
    return 25 + int(text) if text.isascii() and text.isdigit() else -1


@dataclass(frozen=True)
class ArrangedSample:
    """What one inspect ``Sample`` of an expanded task holds: one item in one arrangement."""

    id: str
    """The sample id: the item id and the variant (``q1|cyclic|shift 1``), unique within the task."""
    choices: tuple[str, ...]
    """The option texts in arranged order."""
    target: str
    """The letter of the gold option's arranged position."""
    metadata: dict[str, Any]
    """The item's own metadata plus ``pfungst``: item id, perturbation, variant, order, gold, labels."""


def item_from_sample(sample_id: str | int | None, text: str, choices: Sequence[str], target: Any) -> Item:
    """The pfungst :class:`Item` of one inspect multiple-choice sample (options in the sample's order).

    Args:
        sample_id: The sample's id (its position in the dataset when it has none).
        text: The question as the sample gives it (its ``input`` text).
        choices: The sample's ``choices``.
        target: Its ``target``: one letter (``"B"``), or a list holding one letter.

    Raises:
        DataError: no choices, or a target that is not exactly one letter of an option.

    Example:
        >>> item_from_sample("q1", "2 + 2 =", ["3", "4", "5"], "B").gold
        1
    """
    where = f"sample {sample_id!r}"
    if not choices:
        raise DataError(f"{where}: has no choices. pfungst arranges multiple-choice samples (Sample(choices=...)).")
    letters = [target] if isinstance(target, str) else list(target)
    position = position_of_letter(str(letters[0])) if len(letters) == 1 else -1
    if not 0 <= position < len(choices):
        raise DataError(
            f"{where}: target {target!r} is not one option letter (A-{letter(len(choices) - 1)}). pfungst "
            "arranges single-answer samples whose target is the letter of the gold choice."
        )
    return Item(id=str(sample_id), text=text, options=tuple(str(choice) for choice in choices), gold=position)


def _variant(name: str, permutations: int | None) -> Variant:
    if name not in ARRANGEMENTS:
        raise ConfigError(
            f"perturbation {name!r} cannot expand an inspect task: it must only rearrange the options. "
            f"Available: {', '.join(ARRANGEMENTS)}"
        )
    variants: dict[str, Variant] = {
        "identity": Identity(),
        "cyclic": Cyclic(),
        "permutations": Permutations(permutations),
        "answer-moved": MovedAnswer(),
    }
    return variants[name]


def arrange(
    item: Item,
    perturbations: Sequence[str],
    *,
    seed: int,
    permutations: int | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> tuple[ArrangedSample, ...]:
    """``item`` in every arrangement of each perturbation, as inspect samples' contents.

    Args:
        item: The item, options in the benchmark's order.
        perturbations: Names from :data:`ARRANGEMENTS`, in the order their samples come.
        seed: Seed of the drawn permutations (per item, independent of item order).
        permutations: Orders drawn per item for ``permutations`` (None: all ``n!``).
        metadata: The sample's own metadata, kept beside pfungst's.

    Raises:
        ConfigError: an unknown perturbation, one named twice, or a sample that is already arranged.

    Example:
        >>> item = Item(id="q1", text="?", options=("x", "y", "z"), gold=0)
        >>> [(s.id, s.choices, s.target) for s in arrange(item, ["cyclic"], seed=0)]  # doctest: +NORMALIZE_WHITESPACE
        [('q1|cyclic|shift 0', ('x', 'y', 'z'), 'A'), ('q1|cyclic|shift 1', ('y', 'z', 'x'), 'C'),
         ('q1|cyclic|shift 2', ('z', 'x', 'y'), 'B')]
    """
    if len(set(perturbations)) != len(perturbations) or not perturbations:
        raise ConfigError(f"perturbations must be one or more distinct names, got {list(perturbations)}")
    if METADATA_KEY in (metadata or {}):
        raise ConfigError(
            f"sample of item '{item.id}' is already arranged (its metadata has '{METADATA_KEY}'). Arrange the "
            "original dataset once, with every perturbation wanted."
        )
    labels = tuple(letter(position) for position in range(item.n_options))
    return tuple(
        _sample(item, name, presentation, labels, metadata or {})
        for name in perturbations
        for presentation in _variant(name, permutations).present(item, labels, seed)
    )


def _sample(
    item: Item, perturbation: str, presentation: Presentation, labels: tuple[str, ...], own: Mapping[str, Any]
) -> ArrangedSample:
    arranged = presentation.arranged
    record = {
        "item_id": item.id,
        "perturbation": perturbation,
        "variant": presentation.variant,
        "order": list(arranged.order),
        "gold": item.gold,
        "gold_position": arranged.gold,
        "labels": list(labels),
    }
    return ArrangedSample(
        id=f"{item.id}|{perturbation}|{presentation.variant}",
        choices=arranged.options,
        target=labels[arranged.gold],
        metadata={**own, METADATA_KEY: record},
    )


def outcome_from_metadata(
    sample_metadata: Mapping[str, Any] | None, chosen_position: int, *, where: str, text: str = ""
) -> Outcome:
    """The outcome of one scored sample of an expanded task.

    Args:
        sample_metadata: The sample's metadata (its ``pfungst`` entry is read).
        chosen_position: The position chosen among the options as the sample listed them; -1 for no single choice.
        where: Where the sample came from, for messages (``log.eval: sample 'q1|cyclic|shift 1'``).
        text: The model's answer text.

    Raises:
        DataError: the sample has no ``pfungst`` metadata, or it is malformed.

    Example:
        >>> metadata = {"pfungst": {"item_id": "q1", "perturbation": "cyclic", "variant": "shift 1",
        ...                         "order": [1, 2, 0], "gold": 0, "labels": ["A", "B", "C"]}}
        >>> outcome = outcome_from_metadata(metadata, 2, where="test")
        >>> outcome.gold_position, outcome.chosen, outcome.correct
        (2, 0, True)
    """
    record = (sample_metadata or {}).get(METADATA_KEY)
    if not isinstance(record, Mapping):
        raise DataError(
            f"{where}: no '{METADATA_KEY}' sample metadata. Expand the task with "
            "pfungst.integrations.inspect_ai.arrange_dataset (or run the pfungst/arrangements task)."
        )
    try:
        order = tuple(int(index) for index in record["order"])
        labels = tuple(str(label) for label in record["labels"])
        gold = int(record["gold"])
        fields = (str(record["item_id"]), str(record["perturbation"]), str(record["variant"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"{where}: malformed '{METADATA_KEY}' sample metadata ({exc!r})") from None
    if sorted(order) != list(range(len(order))) or len(labels) != len(order) or not 0 <= gold < len(order):
        raise DataError(f"{where}: '{METADATA_KEY}' metadata has order {list(order)} and gold {gold}, which disagree")
    answered = 0 <= chosen_position < len(order)
    return Outcome(
        item_id=fields[0],
        perturbation=fields[1],
        variant=fields[2],
        rule=RULE,
        format=FORMAT,
        order=order,
        labels=labels,
        gold=gold,
        chosen=order[chosen_position] if answered else -1,
        chosen_position=chosen_position if answered else -1,
        status="ok" if answered else "unparseable",
        scores=tuple(1.0 if answered and p == chosen_position else 0.0 for p in range(len(order))),
        text=text,
    )
