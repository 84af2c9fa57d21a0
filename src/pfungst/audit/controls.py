"""Null controls: copies of a benchmark whose gold answers carry no signal, to check an audit's false-positive rate.

An audit of a shuffled copy must find no evidence: whatever it finds there is noise the real verdict must beat.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pfungst.data.benchmark import Benchmark

__all__ = ["shuffled_copy"]


def shuffled_copy(benchmark: Benchmark, seed: int = 0) -> Benchmark:
    """A copy whose gold answers are independent of the items (seeded).

    Shared labels: the gold labels are permuted across items (the label distribution is kept). Per-item choices:
    each item's gold becomes a uniformly random position among its options.

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> null = shuffled_copy(make_synthetic("gold-position", 200), seed=1)
        >>> sum(item.gold == 0 for item in null) < 100
        True
    """
    rng = np.random.default_rng([seed, 104729])
    if benchmark.option_kind == "shared_labels":
        golds = rng.permutation([item.gold for item in benchmark])
    else:
        golds = np.array([rng.integers(0, item.n_options) for item in benchmark])
    items = tuple(replace(item, gold=int(gold)) for item, gold in zip(benchmark, golds, strict=True))
    provenance = replace(
        benchmark.provenance, steps=(*benchmark.provenance.steps, f"gold answers shuffled (null control, seed {seed})")
    )
    return replace(benchmark, name=f"{benchmark.name} (shuffled)", items=items, provenance=provenance)
