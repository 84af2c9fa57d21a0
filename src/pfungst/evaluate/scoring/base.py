"""The scoring-rule protocol and its decision record.

A rule first *plans* the requests an arranged, rendered item needs, then *decides* from their results (STYLE rule 8):
planning apart from deciding lets the engine batch and de-duplicate requests across items, arrangements and rules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pfungst.errors import ConfigError, ResponseInvalid
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import RenderedPrompt
from pfungst.models.requests import Request, Result
from pfungst.serialization import to_jsonable

__all__ = ["Decision", "ScoringRule", "Status", "check_results", "check_rendered"]

Status = Literal["ok", "refused", "unparseable", "skipped"]
_R = TypeVar("_R", bound=Result)


@dataclass(frozen=True)
class Decision:
    """What a scoring rule decided for one arranged, rendered item.

    Example:
        >>> from pfungst.data.item import Item
        >>> arranged = ArrangedItem(Item(id="q", text="?", options=("x", "y", "z"), gold=0), (2, 0, 1))
        >>> decision = Decision.from_scores(arranged, (-3.0, -1.0, -2.0))
        >>> decision.position, decision.original, decision.original_scores
        (1, 0, (-1.0, -2.0, -3.0))
    """

    position: int
    """The chosen arranged position; -1 when no option was chosen (``status`` is not ``ok``)."""
    original: int
    """The chosen option's index in the item's original order; -1 when no option was chosen."""
    scores: tuple[float, ...]
    """One score per option in arranged order (higher is better): log-probabilities for letter and cloze rules,
    a log-ratio for PMI, 1.0 for the parsed choice and 0.0 elsewhere for generation."""
    original_scores: tuple[float, ...]
    """The same scores in the item's original option order."""
    status: Status = "ok"
    """``ok``, or for generation ``refused`` / ``unparseable`` (never silently guessed)."""
    text: str = ""
    """The generated text (generation only; empty for other rules)."""

    @classmethod
    def from_scores(cls, arranged: ArrangedItem, scores: Sequence[float]) -> Decision:
        """Choose the best-scoring position; ties go to the first such position (as ``numpy.argmax``).

        Raises:
            ResponseInvalid: a score is NaN, or there is not one score per option.
        """
        values = tuple(float(score) for score in scores)
        if len(values) != arranged.n_options or any(math.isnan(value) for value in values):
            raise ResponseInvalid(
                f"item '{arranged.item.id}': expected {arranged.n_options} scores without NaN, got {list(values)}"
            )
        position = max(range(len(values)), key=lambda p: (values[p], -p))
        return cls(position, arranged.original(position), values, arranged.to_original_order(values))

    @classmethod
    def from_choice(cls, arranged: ArrangedItem, position: int, text: str) -> Decision:
        """A generated answer that chose ``position`` (score 1.0 there, 0.0 elsewhere)."""
        values = tuple(1.0 if p == position else 0.0 for p in range(arranged.n_options))
        return cls(position, arranged.original(position), values, arranged.to_original_order(values), "ok", text)

    @classmethod
    def no_choice(cls, arranged: ArrangedItem, status: Status, text: str) -> Decision:
        """An answer that chose nothing (``refused``, ``unparseable``, or ``skipped``: the question was not asked);
        every score is 0.0."""
        if status == "ok":
            raise ConfigError("a decision without a chosen option cannot have status 'ok'")
        zeros = (0.0,) * arranged.n_options
        return cls(-1, -1, zeros, zeros, status, text)

    @property
    def answered(self) -> bool:
        """Whether an option was chosen."""
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (infinite scores become ``None``)."""
        return {
            "position": self.position,
            "original": self.original,
            "scores": to_jsonable(self.scores),
            "original_scores": to_jsonable(self.original_scores),
            "status": self.status,
            "text": self.text,
        }

    def __repr__(self) -> str:
        return f"Decision(status={self.status!r}, position={self.position}, original={self.original})"


@runtime_checkable
class ScoringRule(Protocol):
    """Turns an arranged, rendered item into model requests, and their results into a :class:`Decision`."""

    @property
    def name(self) -> str:
        """The registry name (``letter``, ``cloze-byte``, ...)."""
        ...

    def requests(self, arranged: ArrangedItem, rendered: RenderedPrompt) -> tuple[Request, ...]:
        """The requests this rule needs for the item, in the order :meth:`decide` expects their results."""
        ...

    def decide(self, arranged: ArrangedItem, rendered: RenderedPrompt, results: Sequence[Result]) -> Decision:
        """The decision, from the results of :meth:`requests` (same order)."""
        ...


def check_rendered(arranged: ArrangedItem, rendered: RenderedPrompt) -> None:
    """Check that ``rendered`` was rendered from an item with as many options as ``arranged``.

    Raises:
        ConfigError: the label count differs from the option count.
    """
    if len(rendered.labels) != arranged.n_options:
        raise ConfigError(
            f"item '{arranged.item.id}' has {arranged.n_options} options but the prompt shows "
            f"{len(rendered.labels)} labels; render the same arranged item that is scored"
        )


def check_results(results: Sequence[Result], kind: type[_R], expected: int, rule: str) -> list[_R]:
    """The results, after checking that there are ``expected`` of them, each a ``kind``.

    Raises:
        ResponseInvalid: a count or type mismatch (a backend or engine answered the wrong requests).
    """
    if len(results) != expected:
        raise ResponseInvalid(f"scoring rule '{rule}' expected {expected} results, got {len(results)}")
    wrong = [type(result).__name__ for result in results if not isinstance(result, kind)]
    if wrong:
        raise ResponseInvalid(f"scoring rule '{rule}' expected {kind.__name__} results, got {wrong}")
    return list(results)  # type: ignore[arg-type]
