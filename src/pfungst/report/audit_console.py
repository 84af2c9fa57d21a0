"""Console one-liners of audits: the demo's verdicts, and the interval and p-value formats the stress console uses.

An audit itself prints through the generic block renderer (:func:`pfungst.report.console_blocks.render_to_console`).
"""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.markup import escape

from pfungst.stats import Estimate

__all__ = ["render_demo_verdicts"]


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


def render_demo_verdicts(result: Any, console: Console) -> None:
    """One line per demo benchmark: what the audit concluded (each planted artifact is named in its heading)."""
    console.rule("demo: verdicts")
    for name, audited in result.audits.items():
        verdict = audited.verdict
        statistic = "kappa" if verdict.statistic == "kappa" else "chance-corrected accuracy"
        console.print(
            f"{escape(name)}: [bold]{verdict.label}[/bold] (best {escape(verdict.feature_set)}, "
            f"{statistic} {_interval(verdict.estimate)}){_apart(audited)}"
        )


def _apart(audited: Any) -> str:
    """``; content: no evidence; position artifact: gold is the first option (A) in ...`` (per-item audits)."""
    parts = audited.position_content
    if parts is None or parts.position is None:
        return ""
    position = parts.position
    finding = "[bold red]position artifact[/bold red]" if position.flagged else "gold position"
    return f"; content: {parts.content.label}; {finding}: {escape(position.slot_pattern)}"
