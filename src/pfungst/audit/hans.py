"""HANS-style heuristics (McCoy et al. 2019) for NLI-shaped items (fields ``premise`` and ``hypothesis``).

*Lexical overlap* (every hypothesis word is a premise word) and *subsequence* (the hypothesis words are a contiguous
run of the premise words), each reported as counts and rates per gold label, and as a predictor "entailment where
it holds", scored only on the items where it holds. The *constituent* heuristic is not offered: the docstring of
:mod:`pfungst.audit.heuristics` says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pfungst.audit.cues import tokenize
from pfungst.audit.heuristic_scoring import ABSTAIN, HeuristicConfig, HeuristicResult, score_predictions
from pfungst.data.benchmark import Benchmark
from pfungst.errors import ConfigError

__all__ = ["HansCount", "hans_heuristics", "is_nli_shaped"]


@dataclass(frozen=True)
class HansCount:
    """How often a HANS heuristic holds among the items of one gold label."""

    heuristic: str
    """``lexical_overlap`` or ``subsequence``."""
    label: str
    """The gold label."""
    holds: int
    """Items with this label where the heuristic holds."""
    total: int
    """Items with this label."""
    rate: float
    """``holds / total``."""


def hans_heuristics(
    benchmark: Benchmark, *, config: HeuristicConfig | None = None
) -> tuple[tuple[HansCount, ...], tuple[HeuristicResult, ...]]:
    """McCoy et al. 2019's lexical-overlap and subsequence heuristics: counts per label, and scored as predictors
    (their constituent heuristic needs a constituency parser: the module docstring says why it is not offered).

    Raises:
        ConfigError: the items are not NLI-shaped (no ``premise`` / ``hypothesis`` fields, or no ``entailment``
            label).
    """
    config = config or HeuristicConfig()
    if not is_nli_shaped(benchmark):
        raise ConfigError(
            "HANS heuristics need NLI-shaped items: shared labels including 'entailment' and fields "
            "'premise' and 'hypothesis' on every item"
        )
    holds: dict[str, list[bool]] = {"lexical_overlap": [], "subsequence": []}
    for item in benchmark:
        premise = tokenize(item.fields["premise"], expand_negations=False)
        hypothesis = tokenize(item.fields["hypothesis"], expand_negations=False)
        holds["lexical_overlap"].append(bool(hypothesis) and set(hypothesis) <= set(premise))
        holds["subsequence"].append(_is_contiguous_run(hypothesis, premise))
    gold = np.array([item.gold for item in benchmark])
    entailment = benchmark.labels.index("entailment")
    counts, predictors = [], []
    for name, flags in holds.items():
        mask = np.array(flags)
        for index, label in enumerate(benchmark.labels):
            total = int(np.sum(gold == index))
            hits = int(np.sum(mask & (gold == index)))
            counts.append(HansCount(name, label, hits, total, hits / total if total else math.nan))
        predictions = np.where(mask, entailment, ABSTAIN)
        description = f"'entailment' where {name.replace('_', ' ')} holds (scored only there)"
        predictors.append(
            score_predictions(
                benchmark,
                f"hans_{name}",
                description,
                predictions,
                config,
                tie_rate=0.0,
                baseline=float(np.mean(gold == entailment)),
            )
        )
    return tuple(counts), tuple(predictors)


def _is_contiguous_run(needle: list[str], haystack: list[str]) -> bool:
    width = len(needle)
    return width > 0 and any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


def is_nli_shaped(benchmark: Benchmark) -> bool:
    return (
        not benchmark.option_kind.has_positions
        and "entailment" in benchmark.labels
        and len(benchmark) > 0
        and all("premise" in item.fields and "hypothesis" in item.fields for item in benchmark)
    )
