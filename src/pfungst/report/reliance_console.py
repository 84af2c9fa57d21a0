"""Console rendering of a :class:`~pfungst.reliance.result.RelianceResult`: per model, then per family."""

from __future__ import annotations

import math

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pfungst.reliance.result import RelianceResult
from pfungst.report.audit_console import _interval, _p

__all__ = ["render_reliance"]


def render_reliance(result: RelianceResult, console: Console) -> None:
    """Print the shortcut split of each dataset, each model's accuracy on solvable items versus the rest, and each
    family's paired test with its Benjamini-Hochberg q-value and power."""
    for split in result.shortcuts:
        console.print(
            f"[bold]{escape(split.dataset)}[/bold]: probe {escape(split.feature_set)}, kappa "
            f"{split.kappa:.3f} (p {_p(split.kappa_pvalue)}), {split.n_solvable} of {len(split.solvable)} "
            f"items solvable by the shortcut, chance {split.chance:.3f}"
        )
    console.print(_models_table(result))
    console.print(_families_table(result))
    for family in result.families:
        console.print(f"  {escape(family.family)}: {escape(family.power_statement)}")
    if result.n_unmatched_outcomes or result.n_unmatched_audit:
        console.print(
            f"unmatched item ids: {result.n_unmatched_outcomes} in outcomes only, "
            f"{result.n_unmatched_audit} in audits only"
        )
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}")


def _models_table(result: RelianceResult) -> Table:
    table = Table(
        title="accuracy on items the shortcut solves versus the rest (95% intervals; one-sided p)", title_justify="left"
    )
    for column in ("model", "dataset", "solvable", "rest", "difference", "p", "within label", "p "):
        table.add_column(column, justify="left" if column in ("model", "dataset") else "right")
    for row in result.models:
        table.add_row(
            escape(row.model),
            escape(row.dataset),
            f"{_interval(row.accuracy_solvable)} (n {row.n_solvable})",
            f"{_interval(row.accuracy_rest)} (n {row.n_rest})",
            _interval(row.difference),
            _p(row.difference.pvalue),
            _interval(row.difference_within_label),
            _p(row.difference_within_label.pvalue),
        )
    return table


def _families_table(result: RelianceResult) -> Table:
    table = Table(
        title="per family: one-sided paired t-test over (model, dataset) pairs, Benjamini-Hochberg across families",
        title_justify="left",
    )
    for column in (
        "family",
        "models",
        "datasets",
        "pairs",
        "mean difference",
        "p",
        "q",
        "within label q",
        "detectable",
    ):
        table.add_column(column, justify="left" if column == "family" else "right")
    for family in result.families:
        table.add_row(
            escape(family.family),
            str(len(family.models)),
            str(len(family.datasets)),
            str(family.n_pairs),
            _interval(family.test),
            _p(family.test.pvalue),
            _q(family.qvalue, family.rejected),
            _q(family.qvalue_within_label, family.rejected_within_label),
            "-" if math.isnan(family.detectable_difference) else f"{family.detectable_difference:.3f}",
        )
    return table


def _q(q: float, rejected: bool) -> str:
    return _p(q) + (" *" if rejected else "")
