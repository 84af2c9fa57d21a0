"""Which items must share a cross-fitting fold: siblings that share an option set, near-identical texts, duplicates.

A held-out item whose sibling sits in training is predicted from the sibling, not from a surface cue: BIG-bench
``disambiguation_qa`` comes in his / her / their variants of one sentence with one option set, and an ungrouped
audit reports 0.939 there. :func:`group_items` joins the items that any :class:`GroupingRule` gives the same key
(connected components, so the rules compose), and the folds keep each group whole
(:func:`~pfungst.audit.folds.crossfit_splits`). The built-in rules:

- ``exact duplicates``: the same text and the same options (in any order), normalised;
- ``shared option set`` (per-item options only): the same options, in any order, normalised;
- ``near-identical text``: word-set Jaccard similarity of the item's text and options at least ``threshold``
  (0.8), found by MinHash LSH.

The exact and near-identical rules are the item findings' own detection (:mod:`~pfungst.data.duplicates`, which
states the normalisation): the duplicates a result reports are the ones the folds keep together.

A key that more than ``max(10, max_share x items)`` items share (5% by default) is not a family of siblings but a
label set written into each item (Yes / No) or a template: it joins nothing, and the result counts it. A shared
label set (NLI's three labels) is no per-item option set, so it never groups. Other findings (duplicates across
splits, say) feed the same folds as one more rule: anything with ``name``, ``description`` and ``keys``.

Example:
    >>> from pfungst.data.synthetic import make_synthetic
    >>> groups = group_items(make_synthetic("cue-word", 200))
    >>> groups.n_groups <= 200, groups.largest >= 1
    (True, True)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from pfungst.data.benchmark import Benchmark
from pfungst.data.duplicates import EXACT_METHOD, exact_keys, near_duplicate_ids, near_duplicate_method, normalised
from pfungst.data.item import Item
from pfungst.errors import ConfigError

__all__ = [
    "ExactDuplicates",
    "GroupingRule",
    "ItemGroups",
    "NearIdenticalText",
    "RuleCount",
    "SharedOptionSet",
    "default_rules",
    "group_items",
    "sibling_groups",
]

MIN_CAP = 10
"""A key shared by this many items or fewer always groups them (the cap never falls below it)."""


class GroupingRule(Protocol):
    """Gives each item a key; items with the same key (not None) belong together."""

    @property
    def name(self) -> str:
        """Short name, as the result lists the rules."""
        ...

    @property
    def description(self) -> str:
        """The rule in words, with its settings."""
        ...

    def keys(self, benchmark: Benchmark) -> Sequence[Hashable | None]:
        """One key per item (None: this rule joins the item to nothing)."""
        ...


def _option_key(item: Item) -> tuple[str, ...]:
    return tuple(sorted(normalised(option) for option in item.options))


@dataclass(frozen=True)
class ExactDuplicates:
    """Same normalised text and the same normalised options, in any order."""

    name: str = "exact duplicates"

    @property
    def description(self) -> str:
        return EXACT_METHOD

    def keys(self, benchmark: Benchmark) -> Sequence[Hashable | None]:
        return exact_keys(benchmark)


@dataclass(frozen=True)
class SharedOptionSet:
    """Per-item options only: the same normalised options, in any order (shared labels have none)."""

    name: str = "shared option set"

    @property
    def description(self) -> str:
        return "the same per-item options (any order), normalised as for exact duplicates"

    def keys(self, benchmark: Benchmark) -> Sequence[Hashable | None]:
        if not benchmark.option_kind.has_positions:
            return [None] * len(benchmark)
        return [_option_key(item) for item in benchmark]


@dataclass(frozen=True)
class NearIdenticalText:
    """Word-set Jaccard similarity of text and options at least ``threshold`` (MinHash LSH, checked exactly)."""

    threshold: float = 0.8
    name: str = "near-identical text"

    @property
    def description(self) -> str:
        return near_duplicate_method(self.threshold)

    def keys(self, benchmark: Benchmark) -> Sequence[Hashable | None]:
        return near_duplicate_ids(benchmark, self.threshold).tolist()


def default_rules(threshold: float = 0.8) -> tuple[GroupingRule, ...]:
    """The built-in rules: exact duplicates, shared option set, near-identical text at ``threshold``."""
    if not 0 < threshold <= 1:
        raise ConfigError(f"the near-identical text threshold must lie in (0, 1], not {threshold}")
    return (ExactDuplicates(), SharedOptionSet(), NearIdenticalText(threshold))


@dataclass(frozen=True)
class RuleCount:
    """What one rule joined: items and groups, and the keys too common to be siblings."""

    rule: str
    description: str
    grouped_items: int
    """Items that share a kept key with another item."""
    groups: int
    """Kept keys shared by two or more items."""
    too_common_keys: int
    """Keys shared by more items than the cap (label sets written into the items, templates): not grouped."""
    too_common_items: int
    """Items with such a key."""

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass(frozen=True)
class ItemGroups:
    """The groups cross-fitting keeps whole: one id per item, how they were formed, and their sizes."""

    ids: np.ndarray = field(repr=False, compare=False)
    """Group id per item (in benchmark order)."""
    rules: tuple[RuleCount, ...] = ()
    cap: int = 0
    """Most items one key may join (``max(10, max_share x items)``)."""
    max_share: float = 0.0
    """Share of the items past which a key is a label set or a template, not siblings."""
    reason: str = ""
    """Why the items were not grouped (empty when they were)."""

    @classmethod
    def ungrouped(cls, n_items: int, reason: str) -> ItemGroups:
        """Every item on its own, with the reason."""
        return cls(np.arange(n_items), reason=reason)

    @property
    def n_items(self) -> int:
        return int(self.ids.size)

    @property
    def sizes(self) -> np.ndarray:
        return np.bincount(np.unique(self.ids, return_inverse=True)[1]) if self.ids.size else np.zeros(0, int)

    @property
    def n_groups(self) -> int:
        return int(self.sizes.size)

    @property
    def largest(self) -> int:
        return int(self.sizes.max()) if self.ids.size else 0

    @property
    def grouped_items(self) -> int:
        """Items that share their group with another item."""
        sizes = self.sizes
        return int(sizes[sizes > 1].sum())

    @property
    def explanation(self) -> str:
        """The groups in one sentence, as the folds are described."""
        if self.reason:
            return f"items not grouped: {self.reason}"
        if not self.grouped_items:
            text = f"no sibling items found (each of the {self.n_items} items its own group)"
        else:
            found = "; ".join(f"{r.rule}: {r.grouped_items} items in {r.groups} groups" for r in self.rules if r.groups)
            text = (
                f"{self.grouped_items} of {self.n_items} items in {int(np.sum(self.sizes > 1))} sibling groups kept "
                f"in one fold each (largest {self.largest}; {found})"
            )
        skipped = [r for r in self.rules if r.too_common_keys]
        if skipped:
            text += f"; not grouped, as label sets or templates (shared by more than {self.cap} items): "
            text += ", ".join(f"{r.rule} {r.too_common_keys} keys on {r.too_common_items} items" for r in skipped)
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "explanation": self.explanation,
            "n_items": self.n_items,
            "n_groups": self.n_groups,
            "grouped_items": self.grouped_items,
            "largest": self.largest,
            "cap": self.cap,
            "max_share": self.max_share,
            "reason": self.reason,
            "rules": [rule.to_dict() for rule in self.rules],
        }


def group_items(
    benchmark: Benchmark, rules: Sequence[GroupingRule] | None = None, *, max_share: float = 0.05
) -> ItemGroups:
    """The items of ``benchmark`` joined by every rule's shared keys (each key capped: see the module docstring).

    Args:
        benchmark: The items, in the order the probes see them.
        rules: The rules; :func:`default_rules` if omitted.
        max_share: Share of the items past which a key is a label set or template and joins nothing (with the floor
            of 10 items).

    Raises:
        ConfigError: ``max_share`` outside (0, 1].
    """
    if not 0 < max_share <= 1:
        raise ConfigError(f"max_share must lie in (0, 1], not {max_share}")
    rules = default_rules() if rules is None else rules
    n = len(benchmark)
    cap = max(MIN_CAP, math.floor(max_share * n))
    left, right, counts = [], [], []
    for rule in rules:
        pairs, count = _rule_links(rule, benchmark, cap)
        left.append(pairs[0])
        right.append(pairs[1])
        counts.append(count)
    a = np.concatenate(left) if left else np.zeros(0, dtype=int)
    b = np.concatenate(right) if right else np.zeros(0, dtype=int)
    graph = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(n, n))
    _, ids = connected_components(graph, directed=False)
    return ItemGroups(ids, tuple(counts), cap, max_share)


def sibling_groups(benchmark: Benchmark, enabled: bool = True, similarity: float = 0.8) -> ItemGroups:
    """The audit's groups: :func:`group_items` with :func:`default_rules` at ``similarity``, or every item on its own
    (the reason recorded) when grouping is off."""
    if not enabled:
        return ItemGroups.ungrouped(len(benchmark), "group_siblings is off")
    return group_items(benchmark, default_rules(similarity))


def _rule_links(rule: GroupingRule, benchmark: Benchmark, cap: int) -> tuple[tuple[np.ndarray, np.ndarray], RuleCount]:
    """Each item joined to the first item with its key, for the keys shared by 2 to ``cap`` items."""
    keys = list(rule.keys(benchmark))
    if len(keys) != len(benchmark):
        raise ConfigError(f"grouping rule {rule.name!r} gave {len(keys)} keys for {len(benchmark)} items")
    sizes = Counter(key for key in keys if key is not None)
    first: dict[Hashable, int] = {}
    left, right = [], []
    for index, key in enumerate(keys):
        if key is None or not 2 <= sizes[key] <= cap:
            continue
        head = first.setdefault(key, index)
        if head != index:
            left.append(head)
            right.append(index)
    common = [size for size in sizes.values() if size > cap]
    kept = [size for size in sizes.values() if 2 <= size <= cap]
    count = RuleCount(rule.name, rule.description, sum(kept), len(kept), len(common), sum(common))
    return (np.asarray(left, dtype=int), np.asarray(right, dtype=int)), count
