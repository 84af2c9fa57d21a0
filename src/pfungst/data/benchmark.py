"""A benchmark: immutable items plus where they came from and what was rejected or duplicated on the way."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from pfungst.data.item import Item
from pfungst.data.option_kind import OptionKind
from pfungst.provenance import DataSource, Rejection
from pfungst.serialization import write_jsonl

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Benchmark", "DataSource", "Rejection"]


@dataclass(frozen=True)
class Benchmark(Sequence[Item]):
    """An immutable, sliceable sequence of items with a name, an option kind and provenance.

    Slicing and filtering return new benchmarks that share the items and record the step in provenance.

    Example:
        >>> b = Benchmark("toy", (Item("a", "1+1=", ("1", "2"), 1), Item("b", "2+2=", ("4", "5"), 0)))
        >>> len(b), b[0].answer, len(b[:1])
        (2, '2', 1)
    """

    name: str
    """Short name, used in reports."""
    items: tuple[Item, ...]
    """The items, in source order."""
    option_kind: OptionKind = OptionKind.PER_ITEM
    """Whether items share one label set or each has its own options (its name is read as the kind)."""
    labels: tuple[str, ...] = ()
    """The shared label set, in canonical order (only for ``shared_labels``)."""
    provenance: DataSource = field(default_factory=lambda: DataSource(source="", format="memory"))
    """Where the items came from and what happened on the way (the data file a result's provenance names)."""

    def __post_init__(self) -> None:
        if not isinstance(self.items, tuple):
            object.__setattr__(self, "items", tuple(self.items))
        object.__setattr__(self, "option_kind", OptionKind.named(self.option_kind))

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items)

    @overload
    def __getitem__(self, index: int) -> Item: ...
    @overload
    def __getitem__(self, index: slice) -> Benchmark: ...
    def __getitem__(self, index: int | slice) -> Item | Benchmark:
        if isinstance(index, slice):
            return self._derive(self.items[index], f"slice[{index.start}:{index.stop}:{index.step}]")
        return self.items[index]

    def __repr__(self) -> str:
        return (
            f"Benchmark(name={self.name!r}, items={len(self)}, option_kind={self.option_kind.value!r}, "
            f"format={self.provenance.format!r})"
        )

    def filter(self, predicate: Callable[[Item], bool], description: str = "filter") -> Benchmark:
        """Keep the items for which ``predicate`` is true; ``description`` is recorded in provenance."""
        kept = tuple(item for item in self.items if predicate(item))
        return self._derive(kept, f"{description}: kept {len(kept)} of {len(self)}")

    def select(self, ids: Iterable[str]) -> Benchmark:
        """Keep the items with the given ids, in benchmark order."""
        wanted = set(ids)
        return self.filter(lambda item: item.id in wanted, "select ids")

    def deduplicate(self) -> Benchmark:
        """Drop every item whose text repeats an earlier item's text (keeping the first)."""
        seen: set[str] = set()
        kept = []
        for item in self.items:
            if item.text not in seen:
                seen.add(item.text)
                kept.append(item)
        return self._derive(tuple(kept), f"deduplicate texts: dropped {len(self) - len(kept)}")

    def sample(self, n: int, seed: int = 0) -> Benchmark:
        """A seeded sample of ``n`` items, stratified by gold (label or position), kept in benchmark order.

        Each gold class keeps its share (largest remainders, ties to the earlier class), so a rare label stays in
        the sample; the step is recorded in provenance. The whole benchmark when it has ``n`` items or fewer.

        Example:
            >>> from pfungst.data.synthetic import make_synthetic
            >>> b = make_synthetic("cue-word", 300).sample(30, seed=1)
            >>> len(b), b.provenance.steps[-1]
            (30, 'sample (seed 1, stratified by gold): kept 30 of 300')
        """
        if n >= len(self):
            return self
        import random

        by_gold: dict[int, list[int]] = {}
        for index, item in enumerate(self.items):
            by_gold.setdefault(item.gold, []).append(index)
        shares = {gold: n * len(members) / len(self) for gold, members in sorted(by_gold.items())}
        counts = {gold: int(share) for gold, share in shares.items()}
        by_remainder = sorted(shares, key=lambda gold: -(shares[gold] - counts[gold]))
        for gold in by_remainder[: n - sum(counts.values())]:
            counts[gold] += 1
        rng = random.Random(seed)
        kept = sorted(index for gold, members in sorted(by_gold.items()) for index in rng.sample(members, counts[gold]))
        step = f"sample (seed {seed}, stratified by gold): kept {n} of {len(self)}"
        return self._derive(tuple(self.items[index] for index in kept), step)

    def with_name(self, name: str) -> Benchmark:
        """The same benchmark under another name."""
        return replace(self, name=name)

    @property
    def option_counts(self) -> dict[int, int]:
        """How many items have each number of options, e.g. ``{4: 1165, 3: 4, 5: 3}``."""
        return dict(sorted(Counter(item.n_options for item in self.items).items()))

    @property
    def gold_counts(self) -> dict[str, int]:
        """How often each gold answer occurs: by label for shared labels, by position (``"0"``...) otherwise."""
        if self.option_kind.has_positions:
            positions = Counter(item.gold for item in self.items)
            return {str(k): positions[k] for k in range(max(self.option_counts, default=0))}
        counts = Counter(item.answer for item in self.items)
        return {label: counts.get(label, 0) for label in self.labels}

    def to_frame(self) -> pd.DataFrame:
        """One row per item: id, text, options (list), gold, answer, n_options, then fields and metadata columns."""
        rows = []
        for item in self.items:
            row: dict[str, Any] = {
                "id": item.id,
                "text": item.text,
                "options": list(item.options),
                "gold": item.gold,
                "answer": item.answer,
                "n_options": item.n_options,
            }
            row.update({f"field.{k}": v for k, v in item.fields.items()})
            row.update({f"meta.{k}": v for k, v in item.metadata.items()})
            rows.append(row)
        import pandas as pd  # here, not at the top: loading a benchmark does not need pandas

        columns = ["id", "text", "options", "gold", "answer", "n_options"]
        return pd.DataFrame(rows, columns=None if rows else columns)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe description of the benchmark without its items (name, kind, labels, counts); where it came
        from is :attr:`provenance`, which a result records in its own provenance."""
        return {
            "name": self.name,
            "n_items": len(self),
            "option_kind": self.option_kind.value,
            "labels": list(self.labels),
            "option_counts": {str(k): v for k, v in self.option_counts.items()},
        }

    def save(self, path: str | Path) -> Path:
        """Write the items as native ``pfungst`` JSONL (one :meth:`Item.to_dict` a line), atomically; returns it."""
        labels = {} if self.option_kind.has_positions else {"label_set": list(self.labels)}
        return write_jsonl(path, ({**item.to_dict(), **labels} for item in self.items))

    def _derive(self, items: tuple[Item, ...], step: str) -> Benchmark:
        provenance = replace(self.provenance, steps=(*self.provenance.steps, step))
        return replace(self, items=items, provenance=provenance)
