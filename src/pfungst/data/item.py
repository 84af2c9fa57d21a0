"""One multiple-choice item: the text a model sees, its options in their original order, and the gold index."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FrozenMapping", "Item"]


class FrozenMapping(Mapping[str, Any]):
    """A read-only, hashable, picklable mapping with insertion order (item fields and metadata)."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = dict(data or {})
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple((k, _hashable(v)) for k, v in self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._data) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMapping({self._data!r})"

    def __reduce__(self):
        return (FrozenMapping, (self._data,))


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple((k, _hashable(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    return value


@dataclass(frozen=True)
class Item:
    """A multiple-choice item as a benchmark defines it, before any rearrangement or prompt formatting.

    Example:
        >>> item = Item(id="q1", text="2 + 2 =", options=("3", "4"), gold=1)
        >>> item.answer
        '4'
    """

    id: str
    """Identifier, unique within its benchmark."""
    text: str
    """The text shown to the model, without the options (question, or premise and hypothesis, ...)."""
    options: tuple[str, ...]
    """The answer options in the benchmark's original order; for shared-label tasks, the label set."""
    gold: int
    """0-based index of the correct option in ``options``."""
    fields: Mapping[str, str] = field(default_factory=FrozenMapping)
    """Named parts of the text (``premise``, ``hypothesis``, ``passage``, ...) for partial-input baselines."""
    metadata: Mapping[str, Any] = field(default_factory=FrozenMapping)
    """Anything else the source recorded (subject, source line, difficulty, ...); never shown to a model."""

    def __post_init__(self) -> None:
        # Accept plain lists and dicts from callers but store immutable versions.
        if not isinstance(self.options, tuple):
            object.__setattr__(self, "options", tuple(self.options))
        if not isinstance(self.fields, FrozenMapping):
            object.__setattr__(self, "fields", FrozenMapping(self.fields))
        if not isinstance(self.metadata, FrozenMapping):
            object.__setattr__(self, "metadata", FrozenMapping(self.metadata))

    @property
    def answer(self) -> str:
        """The text of the gold option."""
        return self.options[self.gold]

    @property
    def n_options(self) -> int:
        """How many options the item has."""
        return len(self.options)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (the native ``pfungst`` JSONL record)."""
        return {
            "id": self.id,
            "text": self.text,
            "options": list(self.options),
            "gold": self.gold,
            "fields": dict(self.fields),
            "metadata": dict(self.metadata),
        }
