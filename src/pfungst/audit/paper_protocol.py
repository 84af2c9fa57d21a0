"""Pacchiardi et al. 2024's rows, their order and their 60/20/20 split, exactly as their code produced them.

Read from the authors' code (``src/results_loaders.py`` and notebook 1 of
``Kinds-of-Intelligence-CFI/benchmark-ground-truth-predictability``, pandas 1.5.3) and checked against their
published cells (see ``../shared/reference/pacchiardi2024_protocol.md``):

- **Order.** Their loader pivots an evals log on ``sample_id``, and a pivot sorts its index; ``sample_id`` is a
  string, so rows come in the *string* order of the ids (``x.test.0, x.test.1, x.test.10, x.test.100, ...``).
  :func:`paper_sample_id` gives an item's id in that run: the item id of an OpenAI-evals log, and
  ``<task>.test.<0-based line>`` for a KindsOfReasoning ``samples.jsonl`` (what the evals run named its lines);
  any other format is ordered by its item ids as strings, which is what the same pivot would do with them.
- **Rows.** Then ``drop_duplicates(subset=["prompt"])`` keeps the first occurrence *in that order*.
- **Split.** ``df.sample(frac=1, random_state=42)``, which is ``RandomState(42).permutation(n)``; then one shared,
  advancing ``RandomState(42)``: ``train = df.sample(frac=0.6, random_state=rng)`` (``rng.choice(n, round(0.6 n),
  replace=False)``, the first ``round(0.6 n)`` of ``rng.permutation(n)``), ``rest = df.drop(train.index)`` in
  ``df``'s order, ``val = rest.sample(frac=0.5, random_state=rng)`` with the same ``rng``, and ``test`` the rest in
  ``df``'s order. Sizes use Python's ``round`` (half to even), as pandas does.

Example:
    >>> [int(part.size) for part in paper_split(197)]
    [118, 40, 39]
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item

__all__ = ["PAPER_MAX_ITER", "PAPER_SEED", "paper_rows", "paper_sample_id", "paper_split"]

PAPER_SEED = 42
"""The seed of Pacchiardi et al. 2024's shuffle and split."""

PAPER_MAX_ITER = 100
"""The iteration limit of the paper's logistic regressions: scikit-learn's default, which their code kept (lbfgs on
raw counts often stops there unconverged; that is part of what produced their cells)."""

_KINDS_OF_REASONING = "kinds-of-reasoning"


def paper_sample_id(item: Item, benchmark: Benchmark) -> str:
    """The ``sample_id`` that the paper's evals run gave ``item`` (its rows are sorted by this string).

    An OpenAI-evals log keeps the run's own ids; a KindsOfReasoning ``samples.jsonl`` line ``k`` (1-based) was
    ``<task>.test.<k - 1>``; any other source is taken by its item id.
    """
    line = item.metadata.get("source_line")
    if benchmark.provenance.format == _KINDS_OF_REASONING and isinstance(line, int):
        return f"{benchmark.name}.test.{line - 1}"
    return item.id


def paper_rows(benchmark: Benchmark) -> Benchmark:
    """``benchmark``'s items as the paper's data frame held them: sorted by sample id as strings, duplicates dropped.

    The sort is stable and the de-duplication keeps the first occurrence of each text in the sorted order (which is
    why a benchmark de-duplicated in file order first may keep another copy, at another position). Both steps are
    recorded in provenance.
    """
    keys = [paper_sample_id(item, benchmark) for item in benchmark]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    steps = (*benchmark.provenance.steps, "paper order: items sorted by evals sample id as strings")
    ordered = replace(
        benchmark,
        items=tuple(benchmark.items[i] for i in order),
        provenance=replace(benchmark.provenance, steps=steps),
    )
    return ordered.deduplicate()


def paper_split(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Train, validation and test positions (into rows in paper order) of the paper's 60/20/20 split of ``n`` rows.

    Each part lists positions in the order the paper's data frame held them after ``DataFrame.sample``: train in
    sampled order, validation in sampled order, test in shuffled-frame order.
    """
    shuffled = np.random.RandomState(PAPER_SEED).permutation(n)
    rng = np.random.RandomState(PAPER_SEED)
    picked = rng.permutation(n)[: round(0.6 * n)]
    in_train = np.zeros(n, dtype=bool)
    in_train[picked] = True
    rest = np.flatnonzero(~in_train)
    chosen = rng.permutation(rest.size)[: round(0.5 * rest.size)]
    in_val = np.zeros(rest.size, dtype=bool)
    in_val[chosen] = True
    return shuffled[picked], shuffled[rest[chosen]], shuffled[rest[~in_val]]
