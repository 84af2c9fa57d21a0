"""Report sections of a reliance analysis (``pfungst.reliance/1``): audit joined with model outcomes.

Per (model, dataset): accuracy on the items a surface-feature probe solves and on the rest, with Wilson intervals,
their difference with its one-sided p-value, and the same within gold labels; per family of models: the paired
t-test, its Benjamini-Hochberg q-value and what difference the test could detect. Nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pfungst.blocks import (
    Block,
    Facts,
    Figure,
    Section,
    Table,
    Text,
    format_estimate,
    format_number,
    format_pvalue,
    methods_note,
)

__all__ = ["reliance_sections"]


def reliance_sections(data: Mapping[str, Any]) -> tuple[Section, ...]:
    """Per model and dataset, per family, the probes used, and what did not join.

    Example:
        >>> acc = {"value": 0.8, "ci": {"low": 0.6, "high": 0.9, "level": 0.95}, "method": "wilson", "n": 20}
        >>> result = {"models": [{"model": "m", "dataset": "d", "family": "f", "accuracy_solvable": acc,
        ...                       "accuracy_rest": acc, "difference": acc}], "families": []}
        >>> [section.title for section in reliance_sections(result)]
        ['Accuracy where the shortcut works and elsewhere']
    """
    sections = [Section("Accuracy where the shortcut works and elsewhere", _model_blocks(data), level=3)]
    if data.get("families"):
        sections.append(Section("Families of models", _family_blocks(data["families"]), level=3))
    shortcuts = data.get("shortcuts") or []
    notes: list[Block] = [Text(f"not joined: {entry}", tone="bad") for entry in data.get("unjoined") or []]
    notes += [Text(f"warning: {entry}", tone="bad") for entry in data.get("warnings") or []]
    if shortcuts or notes:
        sections.append(Section("Shortcut items per dataset", (*_shortcut_blocks(shortcuts), *notes), level=3))
    return tuple(sections)


def _model_blocks(data: Mapping[str, Any]) -> tuple[Block, ...]:
    models = data.get("models") or []
    rows = tuple(
        (
            str(m.get("model")),
            str(m.get("dataset")),
            str(m.get("family", "")),
            f"{format_estimate(m.get('accuracy_solvable'))} (n {format_number(m.get('n_solvable'))})",
            f"{format_estimate(m.get('accuracy_rest'))} (n {format_number(m.get('n_rest'))})",
            format_estimate(m.get("difference")),
            format_pvalue((m.get("difference") or {}).get("pvalue")),
            format_estimate(m.get("difference_within_label")),
            format_pvalue((m.get("difference_within_label") or {}).get("pvalue")),
        )
        for m in models
    )
    columns = (
        "model",
        "dataset",
        "family",
        "accuracy, solvable [CI]",
        "accuracy, rest [CI]",
        "difference [CI]",
        "p (one-sided)",
        "within labels [CI]",
        "p (within labels)",
    )
    keys = ("accuracy_solvable", "accuracy_rest", "difference", "difference_within_label")
    blocks: list[Block] = [
        Table(
            "Accuracy on the items the probe solves out of fold versus the rest",
            columns,
            rows,
            text_columns=3,
            note=methods_note([m.get(k) for m in models for k in keys]),
        )
    ]
    chance = tuple(
        (
            str(m.get("model")),
            str(m.get("dataset")),
            format_estimate(m.get("chance_corrected_solvable")),
            format_estimate(m.get("chance_corrected_rest")),
            format_number(m.get("n_not_predicted")),
            format_number(m.get("n_unmatched_outcomes")),
            format_number(m.get("n_unmatched_audit")),
        )
        for m in models
        if m.get("chance_corrected_solvable") is not None
    )
    if chance:
        blocks.append(
            Table(
                "Chance-corrected accuracy, and items left out",
                (
                    "model",
                    "dataset",
                    "solvable [CI]",
                    "rest [CI]",
                    "not predicted by the probe",
                    "outcomes without audit",
                    "audited without outcome",
                ),
                chance,
                text_columns=2,
            )
        )
    if models:
        blocks.append(
            Figure(
                "intervals",
                "Accuracy difference, solvable minus rest (95% intervals)",
                {
                    "labels": [f"{m.get('model')} | {m.get('dataset')}" for m in models],
                    "estimates": [m.get("difference") for m in models],
                    "references": [[0.0, "no difference"]],
                    "axis": "accuracy difference",
                },
            )
        )
    return tuple(blocks)


def _family_blocks(families: list[Mapping[str, Any]]) -> tuple[Block, ...]:
    rows = tuple(
        (
            str(f.get("family")),
            format_number(f.get("n_pairs")),
            format_estimate(f.get("test")),
            format_pvalue((f.get("test") or {}).get("pvalue")),
            format_pvalue(f.get("qvalue")),
            format_number(f.get("rejected")),
            format_estimate(f.get("within_label")),
            format_pvalue(f.get("qvalue_within_label")),
            format_number(f.get("detectable_difference")),
        )
        for f in families
    )
    columns = (
        "family",
        "pairs",
        "mean difference [CI]",
        "p (one-sided)",
        "q (BH)",
        "rejected",
        "within labels [CI]",
        "q within labels (BH)",
        "detectable difference",
    )
    statements = Facts(
        tuple((str(f.get("family")), str(f.get("power_statement") or f.get("note") or "")) for f in families)
    )
    note = methods_note([f.get(key) for f in families for key in ("test", "within_label")])
    return Table("Paired t-test per family over its (model, dataset) pairs", columns, rows, note=note), statements


def _shortcut_blocks(shortcuts: list[Mapping[str, Any]]) -> tuple[Block, ...]:
    if not shortcuts:
        return ()
    rows = tuple(
        (
            str(s.get("dataset")),
            str(s.get("feature_set")),
            str(s.get("protocol", "")),
            format_number(s.get("n_items")),
            format_number(s.get("n_predicted")),
            format_number(s.get("n_solvable")),
            format_number(s.get("chance")),
            format_number(s.get("kappa")),
            format_pvalue(s.get("kappa_pvalue")),
        )
        for s in shortcuts
    )
    columns = ("dataset", "probe", "protocol", "items", "predicted", "solvable", "chance", "kappa", "p (kappa)")
    rules = "; ".join(dict.fromkeys(str(s["rule"]) for s in shortcuts if s.get("rule")))
    return (Table("The probe behind each split", columns, rows, text_columns=3, note=rules),)
