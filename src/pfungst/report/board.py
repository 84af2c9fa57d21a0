"""The board a report opens with: one row per benchmark and model, its verdict and headline figure at a glance.

Each row's status reads from what the result decided (an audit's verdict label, a family's Benjamini-Hochberg
rejection, whether a score's interval clears chance); the board recomputes no statistic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pfungst.blocks import Board, format_estimate, short_model
from pfungst.report.loading import LoadedResult, as_mapping

__all__ = ["board", "headline"]

_DICT_KINDS = ("stress", "stress-comparison", "rank-stability")
"""Kinds rendered from their dict view until their renderers take objects."""
_STATISTIC_NAMES = {"kappa": "Cohen's kappa", "chance_corrected_accuracy": "chance-corrected accuracy"}


def board(loaded: list[LoadedResult]) -> Board:
    """One row per (benchmark, model) of the inputs: the data side (audits) first, then models, then reliance."""
    rows: list[tuple[str, str, str, str, str]] = []
    for result in loaded:
        rows += _rows(result)
    return Board(tuple(rows))


def _rows(result: LoadedResult) -> list[tuple[str, str, str, str, str]]:
    data: Any = as_mapping(result.data) if result.kind in _DICT_KINDS else result.data
    if result.kind == "audit":
        return [_audit_row(data, headline(result))]
    if result.kind == "summary":
        return [(_name(data.benchmark), "(data)", "inspected", headline(result), "info")]
    if result.kind == "suite":
        return [_suite_row(entry) for entry in data.entries]
    if result.kind == "score":
        accuracy = data.accuracy
        above = accuracy.ci is not None and accuracy.ci.low > accuracy.baseline
        verdict = "above chance" if above else "not above chance"
        return [
            (_name(data.benchmark), short_model(data.model), verdict, headline(result), "info" if above else "warn")
        ]
    if result.kind == "reliance":
        rejected = {family.family: family.rejected for family in data.families}
        return [
            (
                model.dataset,
                model.model,
                "relies on the shortcut (its family, BH)"
                if rejected.get(model.family)
                else "its family's test not rejected (BH)",
                f"accuracy difference {format_estimate(model.difference)}",
                "bad" if rejected.get(model.family) else "good",
            )
            for model in data.models
        ]
    if result.kind == "validity":
        return _validity_rows(data)
    if result.kind == "stress":
        return [_stress_row(data, short_model(str(data.get("model"))))]
    if result.kind == "stress-comparison":
        names = list(data["rank_stability"].get("models") or [])
        return [
            _stress_row(inner, names[number] if number < len(names) else short_model(str(inner.get("model"))))
            for number, inner in enumerate(data["results"])
        ]
    return []


def _validity_rows(data: Any) -> list[tuple[str, str, str, str, str]]:
    return [
        (
            screen.dataset,
            f"{len(screen.models)} models",
            f"{screen.n_suspected} key(s) suspected wrong",
            f"{screen.n_suspected} of {screen.n_items} items; {len(screen.no_model_right)} no model gets right",
            "bad" if screen.n_suspected else "good",
        )
        for screen in data.datasets
    ]


def headline(result: LoadedResult) -> str:
    """The one figure that sums a result up, with its interval."""
    data: Any = as_mapping(result.data) if result.kind in _DICT_KINDS else result.data
    if result.kind == "audit":
        verdict = data.verdict
        statistic = _STATISTIC_NAMES.get(verdict.statistic, verdict.statistic.replace("_", " "))
        return f"{verdict.label}: {verdict.feature_set}, {statistic} {format_estimate(verdict.estimate)}"
    if result.kind == "summary":
        return f"majority answer share {format_estimate(data.majority)}"
    if result.kind == "suite":
        flagged = sum(entry.position_flagged for entry in data.entries)
        return (
            f"{len(data.entries)} benchmarks; {data.content_tests.n_rejected} with content cues (BH); "
            f"{flagged} gold-position artifact(s)"
        )
    if result.kind == "score":
        return f"accuracy {format_estimate(data.accuracy)}, chance {_number(data.accuracy.baseline)}"
    if result.kind == "stress":
        return _plain_accuracy(data)
    if result.kind == "reliance":
        rejected = sum(family.rejected for family in data.families)
        return f"{len(data.models)} (model, dataset) pairs; {rejected} of {len(data.families)} families rejected (BH)"
    if result.kind == "validity":
        suspected = sum(screen.n_suspected for screen in data.datasets)
        return f"{suspected} key(s) suspected wrong in {sum(s.n_items for s in data.datasets)} items"
    if result.kind in ("stress-comparison", "rank-stability"):
        ranks = data.get("rank_stability", data)
        return f"Kendall's W over variants {format_estimate(ranks.get('concordance'))}"
    return ""


def _audit_row(data: Any, figure: str) -> tuple[str, str, str, str, str]:
    """An audit's board row: its verdict, with a signal below the threshold as a warning; per-item, its content
    verdict and gold-position finding apart (the slot pattern in words when it is an artifact)."""
    verdict = data.verdict
    status = "bad" if verdict.label == "predictable" else "warn" if verdict.signal_below_threshold else "good"
    if verdict.lexical:  # the words give the label: expected for sentiment, intent or topic tasks
        status = "warn"
    words = _finding(verdict) + (" (signal below threshold)" if verdict.signal_below_threshold else "")
    parts = data.position_content
    if parts is not None and parts.position is not None:
        words += f"; content: {parts.content.label}"
        if parts.position.flagged:
            words += f"; gold-position artifact: {parts.position.slot_pattern}"
    return (_name(data.benchmark), "(data)", f"surface cues: {words}", figure, status)


def _finding(verdict: Any) -> str:
    """A verdict's label, with its kind and the input it needed when it found something."""
    if verdict.kind == "none":
        return str(verdict.label)
    return f"{verdict.label}: {verdict.kind} ({verdict.evidence.description})"


def _suite_row(entry: Any) -> tuple[str, str, str, str, str]:
    """A suite benchmark's board row: its content verdict, with a gold-position artifact flagged beside it."""
    content = entry.content
    status = "bad" if (content.label == "predictable" and not content.lexical) or entry.position_flagged else "good"
    if status == "good" and (content.signal_below_threshold or content.lexical):
        status = "warn"
    words = f"content: {_finding(content)}" + ("; gold-position artifact" if entry.position_flagged else "")
    statistic = _STATISTIC_NAMES.get(content.statistic, content.statistic.replace("_", " "))
    return (
        entry.name,
        "(data)",
        words,
        f"{content.feature_set}, {statistic} {format_estimate(content.estimate)}",
        status,
    )


def _stress_row(data: Mapping[str, Any], model: str) -> tuple[str, str, str, str, str]:
    """A stress run's board row: the verdict the run wrote (position, format, rule) and its deciding figure; a file
    written without a verdict shows the plain accuracy only."""
    verdict = data.get("verdict")
    if not isinstance(verdict, Mapping):
        return (_name(data.get("benchmark")), model, "stressed", _plain_accuracy(data), "info")
    figure = "; ".join(part for part in (_plain_accuracy(data), str(verdict.get("headline", ""))) if part)
    return (_name(data.get("benchmark")), model, str(verdict["label"]), figure, str(verdict["status"]))


def _plain_accuracy(data: Mapping[str, Any]) -> str:
    plain = next((a for a in data.get("accuracies") or [] if a.get("perturbation") == "identity"), None)
    return f"plain accuracy {format_estimate(plain.get('accuracy'))}" if plain else ""


def _name(benchmark: Any) -> str:
    return str(benchmark.get("name", "?")) if isinstance(benchmark, Mapping) else "?"


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"
