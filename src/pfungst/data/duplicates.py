"""Duplicate items: exact copies, near-duplicates, copies across splits, and copies keyed differently.

One implementation of "the same item", used by the item findings (:func:`duplicate_findings`) and by the audit's
grouped cross-fitting (:mod:`~pfungst.audit.item_groups`), so a pair reported as duplicates is a pair the folds
keep together.

- **Exact duplicates**: the same question and the same options in any order, after :func:`normalised` (case
  folded, every run of white space one space, sentence punctuation and quotes at both ends stripped; signs, brackets
  and punctuation inside the text are kept, so "-1" and "1", "2.5" and "25" differ). For shared labels the
  question alone.
- **Near-duplicates**: Jaccard similarity of the sets of lower-cased words and word pairs of question plus options
  at least ``threshold`` (0.8 by default), found by MinHash LSH and every candidate checked exactly
  (:mod:`~pfungst.data.near_duplicates`); a near-duplicate group holds at least two items that are not exact
  copies of each other.
- **Cross-split overlap**: an exact or near-duplicate group with items from two splits (``metadata["split"]``, as
  the MMLU reader records it when a folder of split folders is read).
- **Conflicting keys**: an exact-duplicate group whose keyed answers differ once normalised.

Example:
    >>> from pfungst.data import Benchmark, Item
    >>> items = [Item("a", "2+2?", ("3", "4"), 1), Item("b", "2 + 2?", ("4", "3"), 0)]
    >>> items.append(Item("c", "2+2 ?", ("4", "3"), 1))
    >>> [finding.item_ids for finding in duplicate_findings(Benchmark("toy", items))][:1]
    [('a', 'c')]
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Hashable, Sequence

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.data.item_findings import ItemFinding
from pfungst.data.near_duplicates import near_duplicate_components

__all__ = [
    "NEAR_DUPLICATE_THRESHOLD",
    "PART_KEYS",
    "duplicate_findings",
    "exact_keys",
    "near_duplicate_ids",
    "normalised",
    "normalised_forms",
]

NEAR_DUPLICATE_THRESHOLD = 0.8
"""Default Jaccard similarity of word (and word-pair) sets at or above which two items are near-duplicates."""

PART_KEYS = ("subject", "subset", "category", "task")
"""Item metadata keys that name the part of a benchmark an item belongs to, the first one present is used."""

_ENDS = ".,;:!?\"'`\u2018\u2019\u201c\u201d" + string.whitespace
"""Stripped at both ends: sentence punctuation and quotes (not signs, brackets or currency: "-1" is not "1")."""


def normalised(text: str) -> str:
    """``text`` case folded, every run of white space one space, sentence punctuation and quotes at both ends
    stripped (``. , ; : ! ?`` and quote marks; a sign, bracket or currency symbol is kept).

    Example:
        >>> normalised("  The  Answer is B. ")
        'the answer is b'
    """
    return " ".join(text.casefold().split()).strip(_ENDS)


Forms = list[tuple[str, tuple[str, ...]]]
"""Per item, its normalised question and its normalised options in their order (:func:`normalised_forms`)."""


def normalised_forms(benchmark: Benchmark) -> Forms:
    """Every item's question and options, :func:`normalised` once (options repeat: each distinct one once)."""
    seen: dict[str, str] = {}

    def form(text: str) -> str:
        found = seen.get(text)
        if found is None:
            found = seen[text] = normalised(text)
        return found

    return [(normalised(item.text), tuple(map(form, item.options))) for item in benchmark]


def exact_keys(benchmark: Benchmark, forms: Forms | None = None) -> list[Hashable]:
    """One key per item; exact duplicates share it: the normalised question and (per-item options) the sorted
    normalised options."""
    forms = normalised_forms(benchmark) if forms is None else forms
    if not benchmark.option_kind.has_positions:
        return [(text,) for text, _ in forms]
    return [(text, tuple(sorted(options))) for text, options in forms]


def _near_text(item: Item, options: tuple[str, ...]) -> str:
    """Question and options, the options in a fixed order (by normalised text), so that their order does not
    count."""
    order = sorted(range(len(options)), key=options.__getitem__)
    return " ".join((item.text, *(item.options[k] for k in order)))


def near_duplicate_ids(
    benchmark: Benchmark, threshold: float = NEAR_DUPLICATE_THRESHOLD, seed: int = 0, forms: Forms | None = None
) -> np.ndarray:
    """A component id per item: items joined by near-identical question and options (see the module docstring)."""
    forms = normalised_forms(benchmark) if forms is None else forms
    texts = [_near_text(item, options) for item, (_, options) in zip(benchmark, forms, strict=True)]
    return near_duplicate_components(texts, threshold, seed=seed)


def near_duplicate_method(threshold: float) -> str:
    """The near-duplicate rule in words, with its threshold."""
    return (
        f"Jaccard similarity of the sets of lower-cased words and word pairs of question and options (in any order) >= "
        f"{threshold:g}, MinHash LSH (8 bands of 4 hashes) with every candidate pair checked exactly"
    )


EXACT_METHOD = (
    "the same question and the same options in any order, after case folding, collapsing white space and "
    "stripping sentence punctuation and quotes at both ends of the question and of each option"
)


def _groups(keys: Sequence[Hashable]) -> list[list[int]]:
    """Indices of the items sharing a key, for keys held by two or more; groups by their first item."""
    members: dict[Hashable, list[int]] = {}
    for index, key in enumerate(keys):
        members.setdefault(key, []).append(index)
    return [group for group in members.values() if len(group) > 1]


def _part_key(benchmark: Benchmark) -> str:
    for key in PART_KEYS:
        if any(key in item.metadata for item in benchmark.items[:1000]):
            return key
    return ""


def _values(benchmark: Benchmark, key: str) -> list[str]:
    return [str(item.metadata.get(key, "")) for item in benchmark] if key else [""] * len(benchmark)


def _breakdown(groups: list[list[int]], parts: list[str], noun: str, plural: str) -> dict[str, int]:
    """Items in groups that lie within one part, and in groups that span several."""
    within = sum(len(g) for g in groups if len({parts[i] for i in g}) == 1)
    return {f"within {noun}": within, f"across {plural}": sum(map(len, groups)) - within}


def _finding(
    benchmark: Benchmark, code: str, title: str, groups: list[list[int]], breakdown: dict[str, int], method: str
) -> ItemFinding:
    ids = [item.id for item in benchmark]
    flat = sorted(i for group in groups for i in group)
    return ItemFinding.of(
        code,
        title,
        [ids[i] for i in flat],
        len(benchmark),
        groups=[[ids[i] for i in group] for group in groups],
        breakdown=breakdown,
        method=method,
        fix=_FIXES[code],
    )


_FIXES = {
    "exact-duplicate": "keep one item of each group (or score each group once); a copy counts an item twice",
    "near-duplicate": "check each group: keep one where the items ask the same thing, or keep the group in one split",
    "cross-split-overlap": "remove the overlap from one split: a model tuned on one split has seen the other's items",
    "conflicting-keys": "decide the correct answer of each group and key every copy alike (or drop the copies)",
}


def duplicate_findings(
    benchmark: Benchmark, threshold: float = NEAR_DUPLICATE_THRESHOLD, seed: int = 0, forms: Forms | None = None
) -> tuple[ItemFinding, ...]:
    """The exact-duplicate, near-duplicate, cross-split and conflicting-key findings of ``benchmark`` (``forms``:
    its :func:`normalised_forms`, computed when omitted)."""
    forms = normalised_forms(benchmark) if forms is None else forms
    part = _part_key(benchmark)
    parts, splits = _values(benchmark, part), _values(benchmark, "split")
    plural = {"subject": "subjects", "category": "categories"}.get(part, f"{part}s" if part else "")

    def split_by_part(groups: list[list[int]]) -> dict[str, int]:
        found = _breakdown(groups, parts, part, plural) if part else {}
        if len(set(splits)) > 1:
            found |= _breakdown(groups, splits, "split", "splits")
        return found

    keys = exact_keys(benchmark, forms)
    exact = _groups(keys)
    near_labels = near_duplicate_ids(benchmark, threshold, seed, forms)
    near = [g for g in _groups(near_labels.tolist()) if len({keys[i] for i in g}) > 1]
    answers = [
        options[item.gold] if 0 <= item.gold < item.n_options else ""
        for item, (_, options) in zip(benchmark, forms, strict=True)
    ]
    conflicting = [g for g in exact if len({answers[i] for i in g}) > 1]
    return (
        _finding(benchmark, "exact-duplicate", "exact duplicates", exact, split_by_part(exact), EXACT_METHOD),
        _finding(
            benchmark, "near-duplicate", "near-duplicates", near, split_by_part(near), near_duplicate_method(threshold)
        ),
        _cross_split(benchmark, keys, near_labels, splits),
        _finding(
            benchmark,
            "conflicting-keys",
            "duplicates keyed differently",
            conflicting,
            split_by_part(conflicting),
            f"exact duplicates ({EXACT_METHOD}) whose keyed answers differ once normalised",
        ),
    )


def _union(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Component ids of the items joined by either labelling (each item linked to the first item of its label)."""
    n = first.size
    links = [np.arange(n)]
    heads = []
    for labels in (first, second):
        _, head = np.unique(labels, return_index=True)
        heads.append(head[np.unique(labels, return_inverse=True)[1].ravel()])
    graph = sparse.coo_matrix((np.ones(2 * n), (np.concatenate(links * 2), np.concatenate(heads))), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def _cross_split(benchmark: Benchmark, keys: list[Hashable], near: np.ndarray, splits: list[str]) -> ItemFinding:
    """Exact or near-duplicate groups (joined) whose items come from two or more splits."""
    numbers: dict[Hashable, int] = {}
    joined = _union(np.array([numbers.setdefault(key, len(numbers)) for key in keys], dtype=np.int64), near)
    groups = [g for g in _groups(joined.tolist()) if len({splits[i] for i in g}) > 1]
    pairs = Counter(" and ".join(sorted({splits[i] for i in g})) for g in groups for _ in g)
    loaded = sorted(set(splits) - {""})
    method = (
        f"exact duplicates or near-duplicates whose items come from more than one split ({', '.join(loaded)} loaded)"
        if len(loaded) > 1
        else "needs items from several splits (metadata 'split'); one split was loaded, so none can overlap"
    )
    return _finding(benchmark, "cross-split-overlap", "duplicates across splits", groups, dict(pairs), method)
