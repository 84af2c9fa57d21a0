"""Prefix-trie packing: token sequences that share a context become one row with a tree attention mask.

A row is the prefix trie of its sequences, one node per distinct prefix, in insertion order (a parent comes before
its children). Fed with position ids equal to node depths and a mask in which each node attends to its ancestors and
itself, one forward pass over the row gives every sequence exactly the logits of a plain pass over that sequence
alone (tree attention, as in speculative decoding), while each shared token is evaluated once. Pure logic: no torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["PackedBatch", "PackedRow", "Scoring", "pack_batch", "pack_row", "tree_mask"]


class Scoring(NamedTuple):
    """One token sequence to score: the continuation is ``tokens[start:]`` (``start >= 1``)."""

    tokens: tuple[int, ...]
    start: int


class PackedRow(NamedTuple):
    """A prefix trie fed as one row: node ``i`` is token ``tokens[i]`` at position ``positions[i]``."""

    tokens: list[int]
    positions: list[int]
    """Depth of each node: the position of its token in every sequence that passes through it."""
    parents: list[int]
    """Index of each node's parent node; ``-1`` for a first token."""
    targets: dict[int, list[tuple[int, int]]]
    """Scoring index -> ``(node, token)`` per continuation token: the node whose logits predict the token."""

    @property
    def first_target_node(self) -> int:
        """The earliest node whose logits are needed (the nodes before it only feed attention)."""
        return min(node for pairs in self.targets.values() for node, _ in pairs)


def pack_row(members: Sequence[int], scorings: Sequence[Scoring]) -> PackedRow:
    """The prefix trie of the member scorings' tokens but their last (nothing is predicted after the last one).

    Args:
        members: Indices into ``scorings``; each must have a non-empty continuation (``start < len(tokens)``).
        scorings: All scorings of a batch.

    Example:
        >>> row = pack_row([0, 1], [Scoring((5, 6, 7), 2), Scoring((5, 6, 8, 9), 2)])
        >>> row.tokens, row.parents, row.targets
        ([5, 6, 8], [-1, 0, 1], {0: [(1, 7)], 1: [(1, 8), (2, 9)]})
    """
    row = PackedRow([], [], [], {})
    children: dict[tuple[int, int], int] = {}
    path: list[int]
    for index in members:
        tokens, start = scorings[index]
        node, path = -1, []  # the nodes of this sequence's tokens so far
        for token in tokens[:-1]:
            child = children.get((node, token))
            if child is None:
                child = children[(node, token)] = len(row.tokens)
                row.tokens.append(token)
                row.positions.append(len(path))
                row.parents.append(node)
            node = child
            path.append(node)
        row.targets[index] = [(path[p], tokens[p + 1]) for p in range(start - 1, len(tokens) - 1)]
    return row


def tree_mask(parents: Sequence[int], width: int) -> np.ndarray:
    """Boolean ``width x width`` attention of a row left-padded to ``width``: a node sees its ancestors and itself.

    A padding position sees only itself, so that no softmax row is empty.

    Example:
        >>> tree_mask([-1, 0, 0], 4).astype(int)
        array([[1, 0, 0, 0],
               [0, 1, 0, 0],
               [0, 1, 1, 0],
               [0, 1, 0, 1]])
    """
    allowed = np.eye(width, dtype=bool)
    pad = width - len(parents)
    for node, parent in enumerate(parents):
        if parent >= 0:
            allowed[pad + node] = allowed[pad + parent]
        allowed[pad + node, pad + node] = True
    return allowed


class PackedBatch(NamedTuple):
    """Rows left-padded to one width, and where each continuation token's log-probability is read."""

    ids: np.ndarray
    """``(rows, width)`` token ids; padding is ``pad_token``."""
    positions: np.ndarray
    """``(rows, width)`` position ids (node depths; 0 for padding)."""
    allowed: np.ndarray
    """``(rows, width, width)`` boolean tree attention (:func:`tree_mask`)."""
    lengths: np.ndarray
    """``(rows,)`` real tokens per row."""
    keep: int
    """How many trailing positions carry a needed prediction (the rest need no vocabulary projection)."""
    reads: np.ndarray
    """``(n, 4)`` one per continuation token: row, column among the last ``keep`` positions, token, scoring index."""


def pack_batch(rows: Sequence[PackedRow], pad_token: int) -> PackedBatch:
    """Left-pad ``rows`` to the longest so that their predicting nodes line up at the end.

    Example:
        >>> scorings = [Scoring((5, 6, 7), 2), Scoring((8, 9), 1)]
        >>> batch = pack_batch([pack_row([0], scorings), pack_row([1], scorings)], pad_token=0)
        >>> batch.ids.tolist(), batch.positions.tolist(), batch.keep, batch.reads.tolist()
        ([[5, 6], [0, 8]], [[0, 1], [0, 0]], 1, [[0, 0, 7, 0], [1, 0, 9, 1]])
    """
    width = max(len(row.tokens) for row in rows)
    lengths = np.array([len(row.tokens) for row in rows])
    ids = np.full((len(rows), width), pad_token, dtype=np.int64)
    positions = np.zeros((len(rows), width), dtype=np.int64)
    for b, row in enumerate(rows):
        ids[b, width - lengths[b] :] = row.tokens
        positions[b, width - lengths[b] :] = row.positions
    keep = int(width - min(width - length + row.first_target_node for length, row in zip(lengths, rows, strict=True)))
    reads = [
        (b, width - lengths[b] + node - (width - keep), token, index)
        for b, row in enumerate(rows)
        for index, pairs in row.targets.items()
        for node, token in pairs
    ]
    allowed = np.stack([tree_mask(row.parents, width) for row in rows])
    return PackedBatch(ids, positions, allowed, lengths, keep, np.array(reads, dtype=np.int64).reshape(-1, 4))
