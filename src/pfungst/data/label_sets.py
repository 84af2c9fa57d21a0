"""Find a fixed label set written as per-item options, so that one task reads the same in every layout.

A shared-label task (Yes / No, True / False, entailment / neutral / contradiction) can be stored two ways: with
its label set once (BIG-bench ``target_scores``, an NLI ``label`` column) or with the labels repeated as every
item's options (a ``question`` / ``choices`` / ``answer`` JSONL). Read the second way it is a per-item benchmark,
and an audit then reads label imbalance as a gold *position* artifact and scores content against uniform guessing
among positions. :func:`detect_label_set` finds that layout (the same option strings in every item, in the same
or in varying orders) and gives the benchmark back as shared labels, gold mapped to its label string, so that the
same task gets the same audit whichever way it was written.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.data.option_kind import OptionKind

__all__ = ["LabelSetDetection", "LabelSetView", "detect_label_set"]


@dataclass(frozen=True)
class LabelSetDetection:
    """What the search for a fixed label set in a benchmark's per-item options found.

    Example:
        >>> from pfungst.data import Benchmark, Item
        >>> items = [Item(str(i), f"q{i}", ("Yes", "No") if i else ("No", "Yes"), i % 2) for i in range(4)]
        >>> detection = detect_label_set(Benchmark("toy", items)).detection
        >>> detection.detected, detection.labels, detection.items_reordered
        (True, ('No', 'Yes'), 3)
    """

    enabled: bool
    """Whether the search ran (``detect_label_set=False`` in the audit's settings turns it off)."""
    labels: tuple[str, ...] = ()
    """The label set found, in the first item's order; empty when none was found (or the search did not run)."""
    n_items: int = 0
    """Items searched (every item of the benchmark)."""
    items_reordered: int = 0
    """Items that list the labels in another order than the first item does."""
    reason: str = ""
    """Why the benchmark was taken as it is: it already has shared labels, the option sets differ, ..."""

    @property
    def detected(self) -> bool:
        """Whether a fixed label set was found (and the benchmark audited as shared labels)."""
        return bool(self.labels)

    def describe(self) -> str:
        """One sentence on what was found, for a provenance step and the console."""
        if not self.detected:
            return f"no fixed label set: {self.reason}"
        labels = ", ".join(repr(label) for label in self.labels)
        order = (
            "in the same order in every item"
            if not self.items_reordered
            else f"in varying order ({self.items_reordered} of {self.n_items} items differ from the first)"
        )
        return (
            f"fixed label set detected: every item offers the same {len(self.labels)} options ({labels}) {order}; "
            "read as shared labels, gold mapped to its label"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (recorded in an audit's settings as ``label_set_detection``)."""
        return {
            "enabled": self.enabled,
            "detected": self.detected,
            "labels": list(self.labels),
            "n_items": self.n_items,
            "items_reordered": self.items_reordered,
            "reason": self.reason,
        }


class LabelSetView(NamedTuple):
    """A benchmark as the search leaves it, and what the search found."""

    benchmark: Benchmark
    """The benchmark with shared labels when a fixed label set was found; otherwise the one given."""
    detection: LabelSetDetection
    """What was found."""


def detect_label_set(benchmark: Benchmark, enabled: bool = True) -> LabelSetView:
    """``benchmark`` as shared labels when every item offers the same option strings; otherwise as it is.

    A fixed label set is found when the benchmark has per-item options, at least two items, and every item offers
    exactly the first item's options (the same strings, compared exactly, none repeated within an item), in the same
    order or not. The labels keep the first item's order (the order the BIG-bench reader gives the same task); each
    item's gold becomes the index of its gold option's string in that order. Items, texts, fields and metadata are
    kept; the step is recorded in the benchmark's provenance.

    Args:
        benchmark: The benchmark to search.
        enabled: False: take the benchmark as it is and record that the search was off.

    Example:
        >>> from pfungst.data import Benchmark, Item
        >>> items = [Item(str(i), f"q{i}", ("True", "False"), i % 2) for i in range(4)]
        >>> view = detect_label_set(Benchmark("toy", items))
        >>> view.benchmark.option_kind.value, view.benchmark.labels, view.benchmark.gold_counts
        ('shared_labels', ('True', 'False'), {'True': 2, 'False': 2})
    """
    n_items = len(benchmark)
    if not enabled:
        return LabelSetView(benchmark, LabelSetDetection(False, n_items=n_items, reason="the search was turned off"))
    reason = _not_a_label_set(benchmark)
    if reason:
        return LabelSetView(benchmark, LabelSetDetection(True, n_items=n_items, reason=reason))
    labels = benchmark.items[0].options
    reordered = sum(item.options != labels for item in benchmark.items)
    detection = LabelSetDetection(True, labels, n_items, reordered, "every item offers the same options")
    items = tuple(replace(item, options=labels, gold=labels.index(item.answer)) for item in benchmark.items)
    provenance = replace(benchmark.provenance, steps=(*benchmark.provenance.steps, detection.describe()))
    shared = replace(benchmark, items=items, option_kind=OptionKind.SHARED_LABELS, labels=labels, provenance=provenance)
    return LabelSetView(shared, detection)


def _not_a_label_set(benchmark: Benchmark) -> str:
    """Why ``benchmark``'s options are not one fixed label set ('' when they are)."""
    if not benchmark.option_kind.has_positions:
        return "the benchmark already has a shared label set"
    if len(benchmark) < 2:
        return f"{len(benchmark)} item(s): a label set needs at least two items to be told from per-item options"
    first: Item = benchmark.items[0]
    labels = frozenset(first.options)
    if len(labels) != len(first.options):
        return f"item '{first.id}' repeats an option"
    for item in benchmark.items[1:]:
        if len(item.options) != len(first.options) or frozenset(item.options) != labels:
            return f"item '{item.id}' offers other options than item '{first.id}'"
    return ""
