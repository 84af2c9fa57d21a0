"""Blocks of a reliance analysis (:class:`~pfungst.reliance.result.RelianceResult`): audit joined with outcomes.

Per (model, dataset): accuracy on the items a surface-feature probe solves and on the rest, with Wilson intervals,
their difference with its one-sided p-value, and the same within gold labels; per family of models: the paired
t-test, its Benjamini-Hochberg q-value and what difference the test could detect. Nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

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
from pfungst.results import Overview

if TYPE_CHECKING:
    from pfungst.reliance.result import FamilyTest, RelianceResult
    from pfungst.reliance.shortcut import ShortcutItems
    from pfungst.reliance.shortcut_score import ShortcutSummary

__all__ = ["reliance_overview", "reliance_sections"]


def reliance_overview(result: RelianceResult) -> Overview:
    """One board row per (model, dataset): whether its family's test rejected (Benjamini-Hochberg), its difference."""
    rejected = {family.family: family.rejected for family in result.families}
    rows = tuple(
        (
            model.dataset,
            model.model,
            "relies on the shortcut (its family, BH)"
            if rejected.get(model.family)
            else "its family's test not rejected (BH)",
            f"accuracy difference {format_estimate(model.difference)}",
            "bad" if rejected.get(model.family) else "good",
        )
        for model in result.models
    )
    n_rejected = sum(family.rejected for family in result.families)
    headline = (
        f"{len(result.models)} (model, dataset) pairs; {n_rejected} of {len(result.families)} families rejected (BH)"
    )
    models = ", ".join(dict.fromkeys(model.model for model in result.models))
    about = ", ".join(dict.fromkeys(model.dataset for model in result.models))
    return Overview({}, models, headline, rows, about=about)


def reliance_sections(result: RelianceResult) -> tuple[Section, ...]:
    """The chapter, then per model and dataset, per family, the probes used, and what did not join."""
    sections = [
        Section("Reliance on shortcuts", ()),
        Section("Accuracy where the shortcut works and elsewhere", _model_blocks(result), level=3),
    ]
    if result.families:
        sections.append(Section("Families of models", _family_blocks(result.families), level=3))
    if result.shortcut_tables or result.per_shortcut:
        sections.append(Section("One shortcut score per item", _table_blocks(result), level=3))
    notes: list[Block] = [Text(f"not joined: {entry}", tone="bad") for entry in result.unjoined]
    notes += [Text(f"warning: {entry}", tone="bad") for entry in result.warnings]
    if result.shortcuts or notes:
        sections.append(Section("Shortcut items per dataset", (*_shortcut_blocks(result.shortcuts), *notes), level=3))
    return tuple(sections)


def _model_blocks(result: RelianceResult) -> tuple[Block, ...]:
    models = result.models
    rows = tuple(
        (
            m.model,
            m.dataset,
            m.family,
            f"{format_estimate(m.accuracy_solvable)} (n {format_number(m.n_solvable)})",
            f"{format_estimate(m.accuracy_rest)} (n {format_number(m.n_rest)})",
            format_estimate(m.difference),
            format_pvalue(m.difference.pvalue),
            format_estimate(m.difference_within_label),
            format_pvalue(m.difference_within_label.pvalue),
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
    estimates = [
        e for m in models for e in (m.accuracy_solvable, m.accuracy_rest, m.difference, m.difference_within_label)
    ]
    caption = (
        "Accuracy on the items some shortcut solves versus those none solves"
        if result.shortcut_tables
        else "Accuracy on the items the probe solves out of fold versus the rest"
    )
    blocks: list[Block] = [Table(caption, columns, rows, text_columns=3, note=methods_note(estimates))]
    if models:
        blocks += [_chance_table(result), _difference_figure(result)]
    return tuple(blocks)


def _chance_table(result: RelianceResult) -> Table:
    rows = tuple(
        (
            m.model,
            m.dataset,
            format_estimate(m.chance_corrected_solvable),
            format_estimate(m.chance_corrected_rest),
            format_number(m.n_not_predicted),
            format_number(m.n_unmatched_outcomes),
            format_number(m.n_unmatched_audit),
        )
        for m in result.models
    )
    columns = (
        "model",
        "dataset",
        "solvable [CI]",
        "rest [CI]",
        "not predicted by the probe",
        "outcomes without audit",
        "audited without outcome",
    )
    return Table("Chance-corrected accuracy, and items left out", columns, rows, text_columns=2)


def _difference_figure(result: RelianceResult) -> Figure:
    return Figure(
        "intervals",
        "Accuracy difference, solvable minus rest (95% intervals)",
        {
            "labels": [f"{m.model} | {m.dataset}" for m in result.models],
            "estimates": [m.difference.to_dict() for m in result.models],
            "references": [[0.0, "no difference"]],
            "axis": "accuracy difference",
        },
    )


def _family_blocks(families: Sequence[FamilyTest]) -> tuple[Block, ...]:
    rows = tuple(
        (
            f.family,
            format_number(f.n_pairs),
            format_estimate(f.test),
            format_pvalue(f.test.pvalue),
            format_pvalue(f.qvalue),
            format_number(f.rejected),
            format_estimate(f.within_label),
            format_pvalue(f.qvalue_within_label),
            format_number(f.detectable_difference),
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
    statements = Facts(tuple((f.family, f.power_statement or f.note) for f in families))
    note = methods_note([e for f in families for e in (f.test, f.within_label)])
    return Table("Paired t-test per family over its (model, dataset) pairs", columns, rows, note=note), statements


def _shortcut_blocks(shortcuts: Sequence[ShortcutItems]) -> tuple[Block, ...]:
    if not shortcuts:
        return ()
    rows = tuple(
        (
            s.dataset,
            s.feature_set,
            s.protocol,
            format_number(s.n_items),
            format_number(s.n_predicted),
            format_number(s.n_solvable),
            format_number(s.chance),
            format_number(s.kappa),
            format_pvalue(s.kappa_pvalue),
        )
        for s in shortcuts
    )
    columns = ("dataset", "probe", "protocol", "items", "predicted", "solvable", "chance", "kappa", "p (kappa)")
    rules = "; ".join(
        dict.fromkeys(
            f"solvable: share of {s.n_repeats} repeat(s) predicting it right > {s.min_share:g}" for s in shortcuts
        )
    )
    lines = tuple(
        Text(
            f"{s.dataset}: probe {s.feature_set}, kappa {format_number(s.kappa)} (p {format_pvalue(s.kappa_pvalue)}), "
            f"{s.n_solvable} of {s.n_predicted} predicted items solvable by the shortcut, chance "
            f"{format_number(s.chance)}"
        )
        for s in shortcuts
    )
    return (Table("The probe behind each split", columns, rows, text_columns=3, note=rules), *lines)


def _table_blocks(result: RelianceResult) -> tuple[Block, ...]:
    """Per dataset what each shortcut solves and how many solve each item; per shortcut, each model's split."""
    blocks: list[Block] = []
    for summary in result.shortcut_tables:
        blocks += _summary_blocks(summary)
    rows = []
    for breakdown in result.per_shortcut:
        qvalues = {f.family: f.qvalue for f in breakdown.families}
        rows += [
            (
                breakdown.shortcut,
                m.model,
                m.dataset,
                format_estimate(m.accuracy_solvable),
                format_estimate(m.accuracy_rest),
                f"{m.n_solvable} / {m.n_rest}",
                format_estimate(m.difference),
                format_pvalue(m.difference.pvalue),
                format_pvalue(qvalues.get(m.family, float("nan"))),
            )
            for m in breakdown.models
        ]
    if rows:
        columns = (
            "shortcut",
            "model",
            "dataset",
            "accuracy, solved [CI]",
            "accuracy, not solved [CI]",
            "n solved / not",
            "difference [CI]",
            "p (one-sided)",
            "family q (BH)",
        )
        estimates = [m.difference for b in result.per_shortcut for m in b.models]
        caption = "Accuracy split by each shortcut alone (family q: BH across families, within that shortcut)"
        blocks.append(Table(caption, columns, tuple(rows), text_columns=3, note=methods_note(estimates)))
    return tuple(blocks)


def _summary_blocks(summary: ShortcutSummary) -> tuple[Block, ...]:
    rows = tuple(
        (name, format_number(n), format_number(solving), format_number(solving / n if n else float("nan")))
        for name, n, solving in zip(summary.shortcuts, summary.n_predicted, summary.n_solving, strict=True)
    )
    table = Table(
        f"{summary.dataset}: the shortcuts joined per item",
        ("shortcut", "items with a verdict", "items solved", "share solved"),
        rows,
        text_columns=1,
        note=summary.definition,
    )
    histogram = ", ".join(f"{k}: {n}" for k, n in enumerate(summary.score_counts))
    facts = Facts(
        (
            ("items with a verdict", format_number(summary.n_items)),
            ("solvable by some shortcut", format_number(summary.n_any)),
            ("solvable by none", format_number(summary.n_none)),
            ("items by number of shortcuts solving them", histogram),
            ("mean shortcut score", format_number(summary.mean_score)),
        )
    )
    return table, facts
