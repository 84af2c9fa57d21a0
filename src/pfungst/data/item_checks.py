"""``check_items``: every item finding of a benchmark, duplicates and broken items, with the ids of the items.

Example:
    >>> from pfungst.data import Benchmark, Item
    >>> items = [Item("a", "Capital of France?", ("Paris", "Rome"), 0)]
    >>> items.append(Item("b", "capital of france", ("rome", "paris"), 1))
    >>> findings = check_items(Benchmark("toy", items))
    >>> findings["exact-duplicate"].groups, findings["empty-option"].count
    ((('a', 'b'),), 0)
"""

from __future__ import annotations

from pfungst.data.benchmark import Benchmark
from pfungst.data.broken_items import broken_item_findings
from pfungst.data.duplicates import NEAR_DUPLICATE_THRESHOLD, duplicate_findings, normalised_forms
from pfungst.data.item_findings import FINDING_CODES, ItemFindings
from pfungst.errors import ConfigError

__all__ = ["check_items"]


def check_items(
    benchmark: Benchmark, *, near_duplicate_threshold: float = NEAR_DUPLICATE_THRESHOLD, seed: int = 0
) -> ItemFindings:
    """Duplicates (exact, near, across splits, keyed differently) and broken items of ``benchmark``, each finding
    with its count, share, ids and groups; a kind with nothing found is listed with count 0.

    Args:
        benchmark: The items to examine.
        near_duplicate_threshold: Jaccard similarity of word (and word-pair) sets at or above which two items are
            near-duplicates, in (0, 1]; default 0.8.
        seed: Seed of the MinHash permutations.

    Raises:
        ConfigError: a threshold outside (0, 1].
    """
    if not 0 < near_duplicate_threshold <= 1:
        raise ConfigError(f"the near-duplicate threshold must lie in (0, 1], not {near_duplicate_threshold}")
    forms = normalised_forms(benchmark)
    found = {f.code: f for f in duplicate_findings(benchmark, near_duplicate_threshold, seed, forms)}
    found |= {f.code: f for f in broken_item_findings(benchmark, forms)}
    return ItemFindings(
        findings=tuple(found[code] for code in FINDING_CODES),
        n=len(benchmark),
        near_duplicate_threshold=near_duplicate_threshold,
        seed=seed,
    )
