"""How the audit decides each per-item shortcut flag (:mod:`~pfungst.audit.item_flags`) from what it computed.

Nothing is refitted: the flags read the probes' out-of-fold predictions and the heuristics' predictions, and their
chance levels are the ones the estimates use (``1 / K`` per item for per-item choices; for a probe on shared labels,
the agreement its prediction and gold marginals give by chance, as Cohen's kappa reads it).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from pfungst.audit.cue_naming import CONTENT_HEURISTICS
from pfungst.audit.feature_sets import get_feature_set
from pfungst.audit.heuristics import GoldPositionResult, HeuristicsReport
from pfungst.audit.item_flags import FlagColumn, ItemFlags, flag_share
from pfungst.audit.position_content import POSITION_FIX
from pfungst.audit.probe_outcome import ProbeOutcome

if TYPE_CHECKING:
    from pfungst.audit.audit_config import AuditConfig
    from pfungst.data.benchmark import Benchmark

__all__ = ["item_flags"]

_OPTIONS_FIX = (
    "rewrite the distractors of the flagged items so that no option gives itself away by its wording alone (match "
    "the gold option's length, style and vocabulary), or report results on the unflagged items beside the full set"
)
_PROBE_FIX = (
    "rewrite or drop the flagged items: a classifier on surface features answers them without the reasoning the "
    "benchmark means to test"
)
_HEURISTIC_FIX = (
    "rewrite the flagged items so that the rule no longer picks the gold answer (for length: make a distractor as "
    "long and as specific as the key), or report results without them"
)


def item_flags(
    benchmark: Benchmark, probes: Sequence[ProbeOutcome], heuristics: HeuristicsReport | None, config: AuditConfig
) -> ItemFlags:
    """The per-item shortcut flags of an audit: the options-only (or, for shared labels, the verdict's) probe, the
    strongest content heuristic, the gold position; each only where the audit ran what it needs."""
    ids = tuple(item.id for item in benchmark)
    per_item = benchmark.option_kind.has_positions
    columns = [
        _probe_column(ids, benchmark, probes, config),
        _heuristic_column(ids, benchmark, heuristics, config),
        _position_column(ids, heuristics, config) if per_item else None,
    ]
    return ItemFlags(ids, tuple(column for column in columns if column is not None))


def _probe_column(
    ids: tuple[str, ...], benchmark: Benchmark, probes: Sequence[ProbeOutcome], config: AuditConfig
) -> FlagColumn | None:
    """Per-item choices: the strongest probe that reads the options alone; shared labels: the strongest probe."""
    per_item = benchmark.option_kind.has_positions
    statistic = "chance_corrected_accuracy" if per_item else "kappa"
    inputs = {p.feature_set: get_feature_set(p.feature_set).evidence_input(config.fields, per_item) for p in probes}
    candidates = [p for p in probes if inputs[p.feature_set] == "options" or not per_item]
    candidates = [p for p in candidates if p.item_ids and not math.isnan(getattr(p, statistic).value)]
    if not candidates:
        return None
    best = max(candidates, key=lambda p: getattr(p, statistic).value)
    row = _rows(best.item_ids, ids)
    gold, predicted, share = best.gold[row], best.prediction[row], best.share_correct[row]
    hits = (predicted >= 0) & (predicted == gold)
    n_repeats = 1 if best.predictions is None else best.predictions.shape[0]
    probability = best.gold_probability[row] if best.gold_probability is not None else np.full(len(row), np.nan)
    evidence = tuple(
        f"{best.feature_set} predicts {best.classes[p]} = gold out of fold ({_repeats(s, n_repeats, q)})" if hit else ""
        for hit, p, s, q in zip(hits, predicted, share, probability, strict=True)
    )
    expected = _probe_chance(best, row, per_item)
    where = "the options alone, no question" if per_item else _input_words(inputs[best.feature_set], config.fields)
    return FlagColumn(
        code="options-only" if per_item else "probe",
        title=f"solvable from {where}",
        source=best.feature_set,
        flagged=tuple(bool(h) for h in hits),
        evidence=evidence,
        share=flag_share(int(hits.sum()), len(ids), expected, config.level, len(candidates)),
        threshold=config.threshold,
        method=f"the cross-fitted probe '{best.feature_set}' ({get_feature_set(best.feature_set).description}; the "
        f"strongest of the {len(candidates)} probe(s) {'that read ' + where if per_item else 'run'}) predicts the "
        f"gold answer out of fold, in the first of {n_repeats} repeat(s) of {config.n_splits}-fold cross-fitting, "
        f"seed {config.seed}",
        fix=_OPTIONS_FIX if per_item else _PROBE_FIX,
    )


def _heuristic_column(
    ids: tuple[str, ...], benchmark: Benchmark, heuristics: HeuristicsReport | None, config: AuditConfig
) -> FlagColumn | None:
    """The content heuristic with the highest chance-corrected accuracy; it flags the items where it picks gold."""
    found = [r for r in (heuristics.results if heuristics else ()) if r.name in CONTENT_HEURISTICS and r.item_ids]
    found = [r for r in found if r.accuracy.n and not math.isnan(r.chance_corrected_accuracy.value)]
    if not found:
        return None
    best = max(found, key=lambda r: r.chance_corrected_accuracy.value)
    row = _rows(best.item_ids, ids)
    predicted, gold = np.asarray(best.predictions)[row], np.asarray(best.gold)[row]
    hits = (predicted >= 0) & (predicted == gold)
    names = _answer_names(benchmark)
    evidence = tuple(
        f"{best.name} picks {names(int(p))} = gold" if hit else "" for hit, p in zip(hits, predicted, strict=True)
    )
    expected = best.accuracy.baseline * best.accuracy.n
    return FlagColumn(
        code="heuristic",
        title=f"solved by a rule: {CONTENT_HEURISTICS[best.name]}",
        source=best.name,
        flagged=tuple(bool(h) for h in hits),
        evidence=evidence,
        share=flag_share(int(hits.sum()), len(ids), expected, config.level, len(found)),
        threshold=config.threshold,
        method=f"the zero-training heuristic '{best.name}' ({best.description}; the strongest of {len(found)} "
        f"content heuristic(s) by chance-corrected accuracy, {best.chance_corrected_accuracy.value:.3f}) picks "
        f"the gold answer; it applies to {best.accuracy.n} of {best.n_items} items",
        fix=_HEURISTIC_FIX,
    )


def _position_column(
    ids: tuple[str, ...], heuristics: HeuristicsReport | None, config: AuditConfig
) -> FlagColumn | None:
    """The gold sits where it sits most often in the other folds (the cross-fitted gold-position heuristic)."""
    found = [r for r in (heuristics.results if heuristics else ()) if isinstance(r, GoldPositionResult)]
    if not found or not found[0].item_ids:
        return None
    result = found[0]
    row = _rows(result.item_ids, ids)
    predicted, gold = np.asarray(result.predictions)[row], np.asarray(result.gold)[row]
    hits = predicted == gold
    evidence = tuple(
        f"gold at {_letter(int(p))}, the position most often gold in the other folds" if hit else ""
        for hit, p in zip(hits, predicted, strict=True)
    )
    return FlagColumn(
        code="gold-position",
        title="gold in the position most often gold",
        source=result.name,
        flagged=tuple(bool(h) for h in hits),
        evidence=evidence,
        share=flag_share(int(hits.sum()), len(ids), result.accuracy.baseline * result.accuracy.n, config.level),
        threshold=config.threshold,
        method=f"the cross-fitted gold-position heuristic ({result.description}, {config.n_splits} folds, seed "
        f"{config.seed}) names the item's gold position",
        fix=POSITION_FIX,
    )


def _rows(found: Sequence[str], ids: tuple[str, ...]) -> np.ndarray:
    """Where each of ``ids`` sits in ``found`` (the same order in the audit; mapped by id otherwise)."""
    if tuple(found) == ids:
        return np.arange(len(ids))
    where = {item_id: index for index, item_id in enumerate(found)}
    return np.array([where[item_id] for item_id in ids], dtype=int)


def _probe_chance(probe: ProbeOutcome, row: np.ndarray, per_item: bool) -> float:
    """Items a guess would get right: the sum of ``1 / K`` (per-item choices; the probe's ``chance`` is its mean),
    or, on shared labels, the agreement of the prediction and gold marginals (Cohen's kappa's chance)."""
    predicted = probe.prediction[row] >= 0
    if per_item:
        return float(probe.settings["chance"]) * len(row)
    gold, prediction = probe.gold[row][predicted], probe.prediction[row][predicted]
    width = len(probe.classes)
    agree = np.bincount(gold, minlength=width) @ np.bincount(prediction, minlength=width)
    return float(agree) / max(int(predicted.sum()), 1)


def _repeats(share: float, n_repeats: int, probability: float) -> str:
    """How sure the probe was of an item: its mean out-of-fold gold probability, and in how many repeats it was
    right."""
    if math.isnan(share):
        return "not predicted"
    right = f"right in {round(share * n_repeats)} of {n_repeats} repeats"
    return right if math.isnan(probability) else f"gold probability {probability:.2f}; {right}"


def _input_words(evidence_input: str, fields: tuple[str, ...]) -> str:
    if evidence_input == "partial":
        return f"part of the input ({', '.join(fields)})"
    return {"options": "the options alone", "position": "the gold position"}.get(evidence_input, "the full input")


def _answer_names(benchmark: Benchmark) -> Callable[[int], str]:
    """How an answer index reads: the option letter for per-item choices, the label for shared labels."""
    if benchmark.option_kind.has_positions:
        return _letter
    labels = benchmark.labels
    return lambda index: labels[index] if 0 <= index < len(labels) else str(index)


def _letter(index: int) -> str:
    return string.ascii_uppercase[index] if 0 <= index < 26 else str(index + 1)
