"""Name an audit's cue in words: the strongest heuristic or cue word whose own test survives multiple testing.

A headline names its cue (``the longest option is gold in 60 of 60 items``; ``'never' in the hypothesis: 18% of
items, contradiction in 97% of them``) only when the cue's own test survives Benjamini-Hochberg correction at
``1 - level`` (0.05 by default):

- **heuristics** (longest and shortest option for per-item choices; HANS lexical overlap and subsequence for
  NLI-shaped items): the one-sided binomial test of each heuristic's accuracy against its baseline, adjusted over
  the heuristics considered (the gold position and the majority label are the position and label-prior findings,
  not content cues, and are left out);
- **cue words**: the cue table's q-values, already adjusted over every (cue, label) row it tested.

Of the cues that survive, the strongest is named: strength is the share of all items the cue answers beyond its
base rate, ``coverage * (productivity - base) / (1 - base)`` (for a per-item cue word that points away from the
gold option, ``coverage * (base - productivity) / base``), so that a rule that covers every item and a word that
covers a few are compared on one scale. Cues that do not survive are never named.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import NamedTuple

from pfungst.audit.cues import GOLD_OPTION, Cue, CueTable
from pfungst.audit.headline import NamedCue
from pfungst.audit.heuristics import HeuristicResult, HeuristicsReport
from pfungst.stats import benjamini_hochberg

__all__ = ["CONTENT_HEURISTICS", "name_cue", "named_cues"]

CONTENT_HEURISTICS: dict[str, str] = {
    "longest_option": "the longest option is gold",
    "shortest_option": "the shortest option is gold",
    "hans_lexical_overlap": "where every hypothesis word is in the premise, the answer is entailment",
    "hans_subsequence": "where the hypothesis is a run of the premise's words, the answer is entailment",
}
"""The heuristics that name a content cue, and the cue in words."""


class _Candidate(NamedTuple):
    cue: NamedCue
    strength: float


def name_cue(
    heuristics: HeuristicsReport | None,
    cues: CueTable | None,
    n_items: int,
    *,
    fields: tuple[str, ...] = (),
    level: float = 0.95,
) -> NamedCue | None:
    """The strongest cue whose own test survives Benjamini-Hochberg at ``1 - level``; None where none does.

    Args:
        heuristics: The audit's heuristics (None when they were off).
        cues: The audit's cue table (None when it was off).
        n_items: Items audited (the coverage denominator).
        fields: The fields the item text was built from (named in a shared-label cue word's sentence).
        level: Confidence level of the audit; the false discovery rate is ``1 - level``.

    Example:
        >>> from pfungst.audit.heuristics import run_heuristics
        >>> from pfungst.data.synthetic import make_synthetic
        >>> benchmark = make_synthetic("longest-option", 60)
        >>> name_cue(run_heuristics(benchmark), None, len(benchmark)).text
        'the longest option is gold'
    """
    found = named_cues(heuristics, cues, n_items, fields=fields, level=level)
    return found[0] if found else None


def named_cues(
    heuristics: HeuristicsReport | None,
    cues: CueTable | None,
    n_items: int,
    *,
    fields: tuple[str, ...] = (),
    level: float = 0.95,
) -> tuple[NamedCue, ...]:
    """Every cue whose own test survives correction, strongest first (see the module docstring)."""
    alpha = 1 - level
    candidates = list(_heuristic_candidates(heuristics, alpha)) + list(_word_candidates(cues, n_items, fields, alpha))
    candidates.sort(key=lambda c: (-c.strength, c.cue.qvalue, c.cue.text))
    return tuple(candidate.cue for candidate in candidates)


def _heuristic_candidates(report: HeuristicsReport | None, alpha: float) -> Iterator[_Candidate]:
    """The content heuristics that beat their baseline, their p-values adjusted over the ones considered."""
    results = [r for r in (report.results if report else ()) if r.name in CONTENT_HEURISTICS]
    tested = [r for r in results if not math.isnan(r.accuracy.pvalue) and r.accuracy.n > 0]
    if not tested:
        return
    adjusted = benjamini_hochberg([r.accuracy.pvalue for r in tested], alpha=alpha)
    for result, qvalue, rejected in zip(tested, adjusted.qvalues, adjusted.rejected, strict=True):
        if rejected:
            yield _Candidate(_heuristic_cue(result, qvalue), _heuristic_strength(result))


def _heuristic_cue(result: HeuristicResult, qvalue: float) -> NamedCue:
    applicable = result.accuracy.n
    hits = round(result.accuracy.value * applicable)
    text = CONTENT_HEURISTICS[result.name]
    n_items = result.n_items
    if result.name.startswith("hans_"):
        sentence = f"{text} in {hits} of {applicable} such items ({applicable / n_items:.0%} of the items)"
    else:
        sentence = f"{text} in {hits} of {applicable} items"
    return NamedCue(text, sentence, "heuristic", hits, applicable, n_items, qvalue)


def _heuristic_strength(result: HeuristicResult) -> float:
    base = result.accuracy.baseline
    gain = (result.accuracy.value - base) / (1 - base) if base < 1 else 0.0
    return result.coverage * gain


def _word_candidates(
    table: CueTable | None, n_items: int, fields: tuple[str, ...], alpha: float
) -> Iterator[_Candidate]:
    """The cue words whose q-value (the table's own adjustment) is at most ``alpha``."""
    for row in table.cues if table else ():
        if math.isnan(row.qvalue) or row.qvalue > alpha or row.count == 0:
            continue
        if row.label == GOLD_OPTION:
            yield _option_word(row, n_items)
        elif row.productivity > row.base_rate:
            yield _label_word(row, n_items, fields)


def _option_word(row: Cue, n_items: int) -> _Candidate:
    """A per-item cue word: the option containing it is gold (or, pointing away, is not gold)."""
    where = f"items where some but not all options contain '{row.cue}' ({row.coverage:.0%} of the items)"
    if row.productivity >= row.base_rate:
        text = f"the option containing '{row.cue}' is gold"
        strength = row.coverage * (row.productivity - row.base_rate) / (1 - row.base_rate)
        hits = row.hits
    else:
        text = f"an option containing '{row.cue}' is not gold"
        strength = row.coverage * (row.base_rate - row.productivity) / row.base_rate if row.base_rate else 0.0
        hits = row.count - row.hits
    sentence = f"{text} in {hits} of {row.count} {where}"
    return _Candidate(NamedCue(text, sentence, "cue word", hits, row.count, n_items, row.qvalue), strength)


def _label_word(row: Cue, n_items: int, fields: tuple[str, ...]) -> _Candidate:
    """A shared-label cue word: its presence in the text gives the label."""
    where = f"the {', '.join(fields)}" if fields else "the text"
    text = f"'{row.cue}' in {where} gives {row.label}"
    sentence = (
        f"'{row.cue}' in {where}: {row.coverage:.0%} of the items, {row.label} in {row.productivity:.0%} of them "
        f"({row.hits} of {row.count}; base rate {row.base_rate:.0%})"
    )
    strength = row.coverage * (row.productivity - row.base_rate) / (1 - row.base_rate) if row.base_rate < 1 else 0.0
    return _Candidate(NamedCue(text, sentence, "cue word", row.hits, row.count, n_items, row.qvalue), strength)
