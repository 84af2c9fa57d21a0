"""Which items belong together: the cluster each item sits in, for cluster-robust intervals (Miller 2024).

An item's cluster is the first of these it carries: metadata ``cluster``, ``group``, ``subject`` (MMLU),
``subtask`` (BIG-bench); or a field ``passage`` / ``context`` shared with other items (reading comprehension:
questions on one passage). A benchmark clusters only when every item has a cluster and there are at least
:data:`MIN_CLUSTERS` of them and fewer clusters than items; otherwise :func:`item_clusters` returns None and
intervals stay the independent-item ones.

``by`` (``--cluster-by``) chooses: ``auto`` (the above, the default), ``none`` (never cluster: the independent-item
intervals) or the name of one metadata key or field that every item must carry.
"""

from __future__ import annotations

from collections.abc import Mapping

from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.errors import ConfigError

__all__ = ["AUTO", "CLUSTER_KEYS", "MIN_CLUSTERS", "NONE", "check_cluster_by", "item_clusters"]

AUTO = "auto"
"""``cluster_by``: the first cluster key or shared field each item has (module docstring)."""
NONE = "none"
"""``cluster_by``: never cluster."""

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


def check_cluster_by(by: str) -> None:
    """Check a ``cluster_by`` setting before any data is read (the field itself is checked on the items).

    Raises:
        ConfigError: not a non-empty string.
    """
    if not isinstance(by, str) or not by.strip():
        raise ConfigError(
            f"cluster_by must be '{AUTO}', '{NONE}' or the name of a metadata key or field, got {by!r}. "
            f"Use --cluster-by {AUTO}|{NONE}|FIELD."
        )


def item_clusters(benchmark: Benchmark, by: str = AUTO) -> Mapping[str, str] | None:
    """Item id -> cluster label, or None where the benchmark does not cluster (module docstring).

    Args:
        benchmark: The items.
        by: ``auto`` (default), ``none``, or a metadata key or field name every item carries.

    Raises:
        ConfigError: ``by`` names a key some item lacks, or one that gives fewer than two clusters.

    Example:
        >>> from pfungst.data import Item
        >>> items = [Item(f"q{i}", "?", ("a", "b"), 0, metadata={"subject": "law" if i < 2 else "art"})
        ...          for i in range(4)]
        >>> dict(item_clusters(Benchmark("toy", items)))
        {'q0': 'subject=law', 'q1': 'subject=law', 'q2': 'subject=art', 'q3': 'subject=art'}
        >>> item_clusters(Benchmark("toy", items), by="none") is None
        True
    """
    check_cluster_by(by)
    if by == NONE:
        return None
    if by != AUTO:
        return _named_clusters(benchmark, by)
    found = {item.id: _cluster(item) for item in benchmark}
    labels = set(found.values())
    if None in labels or not MIN_CLUSTERS <= len(labels) < len(found):
        return None
    return {item_id: str(label) for item_id, label in found.items()}


def _named_clusters(benchmark: Benchmark, by: str) -> dict[str, str]:
    """Item id -> ``by=value`` from each item's metadata (first) or fields."""
    found: dict[str, str] = {}
    for item in benchmark:
        value = item.metadata.get(by, item.fields.get(by))
        if value not in (None, ""):
            found[item.id] = f"{by}={value}"
    missing = [item.id for item in benchmark if item.id not in found]
    if missing:
        carried = sorted({key for item in benchmark for key in (*item.metadata, *item.fields)})
        raise ConfigError(
            f"cluster_by {by!r}: {len(missing)} of {len(benchmark)} items of '{benchmark.name}' have no metadata "
            f"key or field {by!r} (e.g. '{missing[0]}'). The items carry: {', '.join(carried) or 'none'}. "
            f"Use --cluster-by {AUTO}|{NONE}|FIELD with a key every item has."
        )
    if len(set(found.values())) < MIN_CLUSTERS:
        raise ConfigError(
            f"cluster_by {by!r}: every item of '{benchmark.name}' has the same value, one cluster; a cluster-robust "
            f"interval needs at least {MIN_CLUSTERS}. Use --cluster-by {NONE} or another key."
        )
    return found
