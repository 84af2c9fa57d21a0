"""Cutting scorings into prefix-trie chunks: every scoring once, each chunk within the decoder's limits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pfungst.models.packing import Scoring, pack_row
from pfungst.models.trie_chunks import Chunk, plan_chunks

CONTEXT = (11, 12, 13, 14, 15)


def _check(chunks: list[Chunk], scorings: list[Scoring], groups: list[str], max_cells: int, max_sequences: int) -> None:
    members = [index for chunk in chunks for index in chunk.members]
    assert sorted(members) == [i for i, (tokens, start) in enumerate(scorings) if start < len(tokens)]
    for chunk in chunks:
        row = pack_row(chunk.members, scorings)
        fed = [scorings[i].tokens[:-1] for i in chunk.members]
        shared = next((n for n in range(min(map(len, fed))) if len({sequence[n] for sequence in fed}) > 1), None)
        assert chunk.keep == (min(map(len, fed)) if shared is None else shared)  # what every member feeds
        assert row.tokens[: chunk.keep] == list(fed[0][: chunk.keep])
        assert len({groups[i] for i in chunk.members}) == 1  # one context's scorings, nothing else
        if len(chunk.members) > 1:
            assert len(row.tokens) <= max_cells and len(chunk.members) <= max_sequences
    for group in set(groups):  # a group is cut only where a limit makes it
        cut = [chunk for chunk in chunks if groups[chunk.members[0]] == group]
        for first, second in zip(cut, cut[1:], strict=False):
            joined = pack_row(first.members + second.members, scorings)
            assert len(joined.tokens) > max_cells or len(first.members) + len(second.members) > max_sequences


def test_an_items_options_share_one_chunk_and_its_context_is_fed_once() -> None:
    options = [(21,), (22, 23), (24, 25, 26), (27,)]
    scorings = [Scoring((*CONTEXT, *option), len(CONTEXT)) for option in options]

    (chunk,) = plan_chunks(scorings, ["item"] * 4, max_cells=64, max_sequences=8)

    assert sorted(chunk.members) == [0, 1, 2, 3]
    assert chunk.keep == len(CONTEXT)
    assert len(pack_row(chunk.members, scorings).tokens) == len(CONTEXT) + 3  # the context once, then 22, 24, 25


def test_items_are_never_decoded_together_and_neighbours_share_the_longest_prefix() -> None:
    scorings = [Scoring((100 + item % 3, *CONTEXT, 200 + option), 6) for item in range(6) for option in range(2)]
    groups = [f"item {item}" for item in range(6) for _ in range(2)]

    chunks = plan_chunks(scorings, groups, max_cells=64, max_sequences=64)

    assert [groups[chunk.members[0]] for chunk in chunks] == [f"item {i}" for i in (0, 3, 1, 4, 2, 5)]
    _check(chunks, scorings, groups, max_cells=64, max_sequences=64)


def test_a_group_is_cut_at_the_cells_and_the_sequences() -> None:
    scorings = [Scoring((*CONTEXT, 200 + option, 300 + option), 5) for option in range(12)]
    groups = ["one context"] * 12

    for limits in ({"max_cells": 14, "max_sequences": 64}, {"max_cells": 64, "max_sequences": 5}):
        chunks = plan_chunks(scorings, groups, **limits)
        assert len(chunks) > 1
        _check(chunks, scorings, groups, **limits)


def test_empty_continuations_are_in_no_chunk() -> None:
    assert plan_chunks([Scoring(CONTEXT, len(CONTEXT))], ["q"], max_cells=8, max_sequences=8) == []


_TOKENS = st.lists(st.integers(0, 3), min_size=1, max_size=7)


@given(
    st.lists(st.tuples(_TOKENS, _TOKENS), min_size=1, max_size=12),
    st.integers(4, 30),
    st.integers(1, 5),
)
def test_every_scoring_is_in_one_chunk_within_the_limits(
    pairs: list[tuple[list[int], list[int]]], max_cells: int, max_sequences: int
) -> None:
    scorings = [Scoring((*context, *continuation), len(context)) for context, continuation in pairs]
    groups = [str(context) for context, _ in pairs]

    chunks = plan_chunks(scorings, groups, max_cells=max_cells, max_sequences=max_sequences)

    _check(chunks, scorings, groups, max_cells, max_sequences)
