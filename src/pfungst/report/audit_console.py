"""Console rendering of an :class:`~pfungst.audit.result.AuditResult`: probes, verdict, heuristics, cues."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pfungst.audit.result import AuditResult
from pfungst.stats import Estimate

__all__ = ["render_audit", "render_demo_verdicts"]


def _interval(estimate: Estimate) -> str:
    if math.isnan(estimate.value):
        return "n/a"
    ci = estimate.ci
    if ci is None or math.isnan(ci.low):
        return f"{estimate.value:.3f}"
    return f"{estimate.value:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def _p(p: float) -> str:
    if math.isnan(p):
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def render_audit(result: AuditResult, console: Console, top_cues: int = 10) -> None:
    """Print the probe table, the verdict, heuristics, the gold-position test, cues and the best probe's features."""
    info = result.benchmark
    settings = result.settings
    console.print(
        f"[bold]audit of {escape(info['name'])}[/bold]: {info['n_items']} items, {info['option_kind']}, "
        f"protocol {settings['protocol']}, seed {settings['seed']}"
        + (f", fields {', '.join(settings['fields'])}" if settings["fields"] else "")
    )
    console.print(_probe_table(result))
    style = "bold red" if result.verdict.label == "predictable" else "bold green"
    console.print(f"[{style}]verdict[/{style}]: {escape(result.verdict.explanation)}")
    if result.heuristics is not None:
        console.print(_heuristics_table(result))
        for heuristic in result.heuristics.results:
            uniformity = getattr(heuristic, "uniformity", None)
            if uniformity is not None and not math.isnan(uniformity.value):
                console.print(f"{uniformity.method}: chi2 = {uniformity.value:.2f}, p = {_p(uniformity.pvalue)}")
    if result.cues is not None and result.cues.cues:
        console.print(_cue_table(result, top_cues))
    best = result.best
    if best.top_features:
        features = ", ".join(
            f"{escape(w.feature)} ({escape(w.class_name)} {w.weight:+.2f})" for w in best.top_features[:8]
        )
        console.print(f"most predictive features of {escape(best.feature_set)}: {features}")


def _probe_table(result: AuditResult) -> Table:
    paper = result.settings["protocol"] == "pacchiardi2024"
    table = Table(title="surface-feature probes (95% intervals)", title_justify="left", show_edge=False)
    table.add_column("feature set", no_wrap=True)
    table.add_column("Cohen's kappa", justify="right")
    table.add_column("p", justify="right")
    table.add_column("paper's kappa" if paper else "chance-corr. acc.", justify="right")
    table.add_column("accuracy", justify="right")
    table.add_column("majority", justify="right")
    table.add_column("classifier")
    for outcome in result.probes:
        marker = " *" if outcome.feature_set == result.verdict.feature_set else ""
        table.add_row(
            escape(outcome.feature_set) + marker,
            _interval(outcome.kappa),
            _p(outcome.kappa.pvalue),
            _interval(outcome.chance_corrected_accuracy),
            _interval(outcome.accuracy),
            f"{outcome.majority_baseline.value:.3f}",
            escape(outcome.final_classifier),
        )
    return table


def _heuristics_table(result: AuditResult) -> Table:
    table = Table(title="zero-training baselines", title_justify="left", show_edge=False)
    for column in ("heuristic", "accuracy", "baseline", "kappa", "chance-corr. acc.", "coverage", "ties"):
        table.add_column(column, justify="left" if column == "heuristic" else "right", no_wrap=column == "heuristic")
    assert result.heuristics is not None
    for h in result.heuristics.results:
        table.add_row(
            escape(h.name),
            _interval(h.accuracy),
            f"{h.accuracy.baseline:.3f}",
            _interval(h.kappa),
            _interval(h.chance_corrected_accuracy),
            f"{h.coverage:.1%}",
            f"{h.tie_rate:.1%}",
        )
    return table


def _cue_table(result: AuditResult, top: int) -> Table:
    assert result.cues is not None
    table = Table(title=f"top cues ({escape(result.cues.method)})", title_justify="left", show_edge=False)
    for column in ("cue", "label", "items", "productivity", "coverage", "base rate", "q"):
        table.add_column(column, justify="left" if column in ("cue", "label") else "right")
    for cue in result.cues.cues[:top]:
        table.add_row(
            escape(cue.cue),
            escape(cue.label),
            str(cue.count),
            f"{cue.productivity:.3f}",
            f"{cue.coverage:.3f}",
            f"{cue.base_rate:.3f}",
            _p(cue.qvalue),
        )
    return table


def render_demo_verdicts(result: Any, console: Console) -> None:
    """One line per demo benchmark: what the audit concluded (each planted artifact is named in its heading)."""
    console.rule("demo: verdicts")
    for name, audited in result.audits.items():
        verdict = audited.verdict
        statistic = "kappa" if verdict.statistic == "kappa" else "chance-corrected accuracy"
        console.print(
            f"{escape(name)}: [bold]{verdict.label}[/bold] (best {escape(verdict.feature_set)}, "
            f"{statistic} {_interval(verdict.estimate)})"
        )
