"""Chunks of a prefix trie for a decoder that holds several sequences at once: which scorings are decoded together.

A chunk is the scorings of one context (an item's options, a prompt's candidate labels), decoded as the prefix trie
of their tokens (each shared token once, :func:`~pfungst.models.packing.pack_row`) on top of a resident prefix kept
from the chunk before. Its cells (the whole trie) are at most the context window, its members at most the sequences
the decoder holds beside the resident one. Pure logic: no llama.cpp.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pfungst.models.packing import Scoring

__all__ = ["Chunk", "plan_chunks"]


class Chunk(NamedTuple):
    """Scorings decoded together, and how much of their shared prefix outlives the call."""

    members: tuple[int, ...]
    """Indices into the scorings, in lexicographic order of their tokens."""
    keep: int
    """Leading tokens that every member feeds: they stay resident for the next chunk (the decoder keeps the logits it
    computed there)."""


class _Growing(NamedTuple):
    members: tuple[int, ...]
    nodes: int
    """Distinct prefixes of the members' fed tokens (the trie's nodes)."""
    common: int
    """Length of the prefix every member feeds."""


def plan_chunks(
    scorings: Sequence[Scoring], groups: Sequence[str], *, max_cells: int, max_sequences: int
) -> list[Chunk]:
    """Cut the scorings with a non-empty continuation into chunks: one per group (``groups[i]`` is scoring ``i``'s
    context), cut further only where a group's trie exceeds ``max_cells`` cells or ``max_sequences`` members.

    A chunk never mixes groups, so that what is decoded beside a scoring is its own group's other continuations and
    nothing else (llama.cpp's sums depend on where a sequence's cells lie among other sequences' cells). Groups come
    in lexicographic order of their tokens, so that neighbours share the longest resident prefix.

    Example:
        >>> scorings = [Scoring((1, 2, 3, 4), 3), Scoring((1, 2, 3, 5), 3), Scoring((1, 9, 9), 1), Scoring((1,), 1)]
        >>> plan_chunks(scorings, ["q", "q", "r", "s"], max_cells=100, max_sequences=8)
        [Chunk(members=(0, 1), keep=3), Chunk(members=(2,), keep=2)]
    """
    members: dict[str, list[int]] = {}
    for index, (tokens, start) in enumerate(scorings):
        if start < len(tokens):
            members.setdefault(groups[index], []).append(index)
    for group in members.values():
        group.sort(key=lambda i: scorings[i])
    chunks: list[Chunk] = []
    for group in sorted(members.values(), key=lambda group: scorings[group[0]]):
        chunks.extend(_cut(group, scorings, max_cells, max_sequences))
    return chunks


def _cut(group: list[int], scorings: Sequence[Scoring], max_cells: int, max_sequences: int) -> list[Chunk]:
    """One group's scorings, in lexicographic order, in as few chunks as the limits allow."""
    chunks: list[Chunk] = []
    growing: _Growing | None = None
    previous: tuple[int, ...] = ()
    for index in group:
        fed = scorings[index].tokens[:-1]
        if growing is not None:
            shared = _common_length(previous, fed)
            grown = _Growing((*growing.members, index), growing.nodes + len(fed) - shared, min(growing.common, shared))
            if grown.nodes <= max_cells and len(grown.members) <= max_sequences:
                growing, previous = grown, fed
                continue
            chunks.append(Chunk(growing.members, growing.common))
        growing, previous = _Growing((index,), len(fed), len(fed)), fed
    if growing is not None:
        chunks.append(Chunk(growing.members, growing.common))
    return chunks


def _common_length(first: Sequence[int], second: Sequence[int]) -> int:
    n = min(len(first), len(second))
    return next((i for i in range(n) if first[i] != second[i]), n)
