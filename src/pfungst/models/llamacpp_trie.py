"""A llama.cpp context that decodes a prefix trie of token sequences in one call, over a resident prefix.

llama.cpp's key-value cache can tag one cell with several sequences (``kv_unified``): a token that several scorings
feed is evaluated once and every one of them attends to it. A chunk of scorings (:mod:`~pfungst.models.trie_chunks`)
is fed as its prefix trie, each node at its depth and tagged with the sequences that pass through it, with logits
asked only where a continuation token is predicted. Sequence 0 is resident: the prefix that a chunk's members all
feed and need no logits of stays in the cache, so that the next chunk (the next items, in sorted order) evaluates
only what it does not share. Calls are never a lone token (see :mod:`~pfungst.models.llamacpp`); a trie longer than
the batch is fed in several calls, parents before children.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pfungst.errors import BackendUnavailable, RequestFailed
from pfungst.models.local import EvaluationStats, Score
from pfungst.models.packing import PackedRow, Scoring, pack_row
from pfungst.models.trie_chunks import Chunk

__all__ = ["TrieContext"]

_ROWS_PER_BLOCK = 32
"""Logit rows turned to float64 at a time (a row of a 49,152-token vocabulary is 393 kB in float64)."""


class TrieContext:
    """A llama.cpp context of ``sequences`` sequences over one key-value cache of ``n_ctx`` cells.

    Args:
        llama_cpp: The ``llama_cpp`` module.
        llama: A loaded ``llama_cpp.Llama`` (its model and context settings are used; not its context).
        n_ctx: Cells of the cache: a chunk's whole trie must fit.
        n_batch: Most tokens per decode call.
        sequences: Sequences the context holds: the resident one and ``sequences - 1`` members per chunk.
        stats: Counters to add each call's tokens to.

    Raises:
        BackendUnavailable: llama.cpp cannot create the context.
    """

    def __init__(
        self, llama_cpp: Any, llama: Any, *, n_ctx: int, n_batch: int, sequences: int, stats: EvaluationStats
    ) -> None:
        from llama_cpp import _internals

        params = llama_cpp.llama_context_default_params()
        for name, _ in type(params)._fields_:
            setattr(params, name, getattr(llama.context_params, name))
        params.n_ctx, params.n_batch, params.n_ubatch = n_ctx, n_batch, n_batch
        params.n_seq_max, params.kv_unified = sequences, True
        try:
            self._context = _internals.LlamaContext(model=llama._model, params=params, verbose=False)
        except ValueError as exc:
            raise BackendUnavailable(f"llama.cpp could not create a context of {n_ctx} tokens: {exc}") from exc
        self._llama_cpp = llama_cpp
        self._memory = llama_cpp.llama_get_memory(self._context.ctx)
        self._batch = llama_cpp.llama_batch_init(n_batch, 0, sequences)
        self._vocabulary = int(llama.n_vocab())
        self._resident: list[int] = []
        self._rows: dict[int, np.ndarray] = {}
        """Logits computed at resident positions (a context's last token predicts each option's first), by
        position: an option decoded after its sibling needs no re-evaluation of its context's last token."""
        self.n_batch = n_batch
        self.sequences = sequences
        self.stats = stats

    def close(self) -> None:
        """Free the batch and the context (before the model that owns it)."""
        if self._batch is not None:
            self._llama_cpp.llama_batch_free(self._batch)
            self._batch = None
        self._context.close()

    # -- the two uses -------------------------------------------------------------------------------------------------

    def score(self, scorings: Sequence[Scoring], chunk: Chunk) -> dict[int, Score]:
        """The score of each member of ``chunk``, decoded as one trie over the resident prefix."""
        row = pack_row(chunk.members, scorings)
        outputs = {node for pairs in row.targets.values() for node, _ in pairs}
        first = self._decode_start(row, chunk.keep, outputs)
        through = _sequences_through(row, chunk)
        wanted = _tokens_wanted(row)
        kept = sorted(node for node in outputs if node < first)
        seen = _read(np.stack([self._rows[node] for node in kept]), kept, wanted) if kept else {}
        for member in range(1, len(chunk.members) + 1):
            self._llama_cpp.llama_memory_seq_cp(self._memory, 0, member, -1, -1)
        try:
            for start, end in _pieces(first, len(row.tokens), self.n_batch):
                nodes = range(start, end)
                flagged = [node for node in nodes if node in outputs]
                logits = self._decode(
                    [row.tokens[n] for n in nodes],
                    [row.positions[n] for n in nodes],
                    [through[n] for n in nodes],
                    [n in outputs for n in nodes],
                )
                seen.update(_read(logits, flagged, wanted))
                self._rows.update({node: logits[i].copy() for i, node in enumerate(flagged) if node < chunk.keep})
        finally:
            for member in range(1, len(chunk.members) + 1):
                self._llama_cpp.llama_memory_seq_rm(self._memory, member, -1, -1)
        self._resident = list(row.tokens[: chunk.keep])
        return {index: _score(row.targets[index], seen) for index in chunk.members}

    def _decode_start(self, row: PackedRow, keep: int, outputs: set[int]) -> int:
        """The first node to decode: past what the resident sequence holds, but early enough to compute every logit
        row not kept from an earlier call, and never leaving a lone token."""
        first = self._keep_resident(row.tokens[:keep])
        missing = [node for node in outputs if node < first and node not in self._rows]
        if missing:
            first = min(missing)
        if len(row.tokens) - first == 1 and first > 0:
            first -= 1  # never decode a lone token after a prefix: see pfungst.models.llamacpp
        self._truncate(first)
        return first

    def next_logits(self, tokens: Sequence[int]) -> np.ndarray:
        """Float64 logits after ``tokens``, which become the resident sequence (generation extends it a token at a
        time: each call decodes the new token and the one before it)."""
        first = self._keep_resident(tokens)
        first = max(0, min(first, len(tokens) - 2))
        self._truncate(first)
        logits = np.empty(0)
        for start, end in _pieces(first, len(tokens), self.n_batch):
            positions = list(range(start, end))
            outputs = [position == len(tokens) - 1 for position in positions]
            logits = self._decode(list(tokens[start:end]), positions, [(0,)] * len(positions), outputs)
        self._resident = list(tokens)
        return logits[-1].astype(np.float64)

    # -- the cache ----------------------------------------------------------------------------------------------------

    def _keep_resident(self, prefix: Sequence[int]) -> int:
        """Drop what the resident sequence holds past its common prefix with ``prefix``; the length kept."""
        n = min(len(self._resident), len(prefix))
        common = next((i for i in range(n) if self._resident[i] != prefix[i]), n)
        self._truncate(common)
        return len(self._resident)

    def _truncate(self, length: int) -> None:
        if length < len(self._resident):
            if not self._llama_cpp.llama_memory_seq_rm(self._memory, 0, length, -1):
                self._llama_cpp.llama_memory_clear(self._memory, True)  # a cache that cannot drop a part
                length = 0
            del self._resident[length:]
        for position in [position for position in self._rows if position >= length]:
            del self._rows[position]

    def _decode(
        self, tokens: list[int], positions: list[int], sequences: list[tuple[int, ...]], outputs: list[bool]
    ) -> np.ndarray:
        """One llama.cpp decode call; the logits of the flagged tokens, in batch order (a view, valid until the next
        call)."""
        batch = self._batch
        for i, (token, position, owners, output) in enumerate(zip(tokens, positions, sequences, outputs, strict=True)):
            batch.token[i], batch.pos[i], batch.logits[i] = token, position, output
            batch.n_seq_id[i] = len(owners)
            for j, owner in enumerate(owners):
                batch.seq_id[i][j] = owner
        batch.n_tokens = len(tokens)
        status = self._llama_cpp.llama_decode(self._context.ctx, batch)
        if status != 0:
            self._llama_cpp.llama_memory_clear(self._memory, True)
            self._resident, self._rows = [], {}
            raise RequestFailed(f"llama.cpp failed to evaluate {len(tokens)} tokens (llama_decode returned {status})")
        self.stats.tokens_evaluated += len(tokens)
        self.stats.calls += 1
        n_outputs = sum(outputs)
        if n_outputs == 0:
            return np.empty((0, self._vocabulary), dtype=np.float32)
        pointer = self._llama_cpp.llama_get_logits(self._context.ctx)
        return np.ctypeslib.as_array(pointer, shape=(n_outputs, self._vocabulary))


def _pieces(first: int, end: int, size: int) -> list[tuple[int, int]]:
    """``[first, end)`` in consecutive pieces of at most ``size``, none of a lone token unless the whole is one."""
    bounds = list(range(first, end, size)) + [end]
    if len(bounds) > 2 and bounds[-1] - bounds[-2] == 1:
        bounds[-2] -= 1
    return list(zip(bounds[:-1], bounds[1:], strict=False))


def _sequences_through(row: PackedRow, chunk: Chunk) -> list[tuple[int, ...]]:
    """The sequences each node belongs to: the kept prefix to all (and the resident 0), the rest to the members whose
    tokens pass through it (member ``k`` is sequence ``k + 1``)."""
    through: list[list[int]] = [[] for _ in row.tokens]
    for sequence, index in enumerate(chunk.members, start=1):
        node = row.targets[index][-1][0]
        while node >= chunk.keep:
            through[node].append(sequence)
            node = row.parents[node]
    everyone = (0, *range(1, len(chunk.members) + 1))
    return [everyone if node < chunk.keep else tuple(owners) for node, owners in enumerate(through)]


def _tokens_wanted(row: PackedRow) -> dict[int, set[int]]:
    wanted: dict[int, set[int]] = {}
    for pairs in row.targets.values():
        for node, token in pairs:
            wanted.setdefault(node, set()).add(token)
    return wanted


def _read(logits: np.ndarray, nodes: list[int], wanted: dict[int, set[int]]) -> dict[int, tuple[int, dict[int, float]]]:
    """Per output node: its argmax token and the log-probabilities of the tokens wanted there."""
    read: dict[int, tuple[int, dict[int, float]]] = {}
    for begin in range(0, len(nodes), _ROWS_PER_BLOCK):
        block = logits[begin : begin + _ROWS_PER_BLOCK].astype(np.float64)
        peak = block.max(axis=-1, keepdims=True)
        normaliser = (peak + np.log(np.exp(block - peak).sum(axis=-1, keepdims=True)))[:, 0]
        for offset, node in enumerate(nodes[begin : begin + _ROWS_PER_BLOCK]):
            values = {token: float(block[offset, token] - normaliser[offset]) for token in wanted[node]}
            read[node] = (int(block[offset].argmax()), values)
    return read


def _score(pairs: list[tuple[int, int]], seen: dict[int, tuple[int, dict[int, float]]]) -> Score:
    logprobs = np.array([seen[node][1][token] for node, token in pairs])
    greedy = all(seen[node][0] == token for node, token in pairs)
    return Score(float(logprobs.sum()), greedy)
