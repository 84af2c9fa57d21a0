"""Which items belong together: the cluster each item sits in, for cluster-robust intervals (Miller 2024).

An item's cluster is the first of these it carries: metadata ``cluster``, ``group``, ``subject`` (MMLU),
``subtask`` (BIG-bench); or a field ``passage`` / ``context`` shared with other items (reading comprehension:
questions on one passage). A benchmark clusters only when every item has a cluster and there are at least
:data:`MIN_CLUSTERS` of them and fewer clusters than items; otherwise :func:`item_clusters` returns None and
intervals stay the independent-item ones.
"""

from __future__ import annotations

from collections.abc import Mapping

from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item

__all__ = ["CLUSTER_KEYS", "MIN_CLUSTERS", "item_clusters"]

CLUSTER_KEYS = ("cluster", "group", "subject", "subtask")
"""Metadata keys read as a cluster, in order of precedence."""
_SHARED_FIELDS = ("passage", "context")
MIN_CLUSTERS = 2
"""Fewer clusters than this give no cluster-robust interval (it needs ``G - 1 >= 1`` degrees of freedom)."""


def _cluster(item: Item) -> str | None:
    for key in CLUSTER_KEYS:
        value = item.metadata.get(key)
        if value not in (None, ""):
            return f"{key}={value}"
    for name in _SHARED_FIELDS:
        if item.fields.get(name):
            return f"{name}={item.fields[name]}"
    return None


def item_clusters(benchmark: Benchmark) -> Mapping[str, str] | None:
    """Item id -> cluster label, or None where the benchmark does not cluster (module docstring).

    Example:
        >>> from pfungst.data import Item
        >>> items = [Item(f"q{i}", "?", ("a", "b"), 0, metadata={"subject": "law" if i < 2 else "art"})
        ...          for i in range(4)]
        >>> dict(item_clusters(Benchmark("toy", items)))
        {'q0': 'subject=law', 'q1': 'subject=law', 'q2': 'subject=art', 'q3': 'subject=art'}
    """
    found = {item.id: _cluster(item) for item in benchmark}
    labels = set(found.values())
    if None in labels or not MIN_CLUSTERS <= len(labels) < len(found):
        return None
    return {item_id: str(label) for item_id, label in found.items()}
