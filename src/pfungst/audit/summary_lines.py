"""An audit's short answer (:meth:`AuditResult.summary_lines`): what ``pfungst audit`` prints by default.

The verdict in one sentence (with its cue, how sure, and what to do next), the gold position, the controls; every
table behind them is in the result file and prints with ``--verbose``. Nothing is computed here: each sentence is
read from the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.audit.position_content import POSITION_FIX
from pfungst.audit.sections import statistic_name
from pfungst.blocks import format_estimate

if TYPE_CHECKING:
    from pfungst.audit.result import AuditResult

__all__ = ["audit_summary_lines"]


def audit_summary_lines(result: AuditResult) -> tuple[str, ...]:
    """What it audited, the verdict, content apart from position, the gold position, the controls, what to do.

    Example:
        >>> from pfungst.audit import AuditConfig, audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> quick = AuditConfig(feature_sets=("options",), n_splits=2, n_repeats=1, n_bootstrap=50, n_refits=0)
        >>> lines = audit_summary_lines(audit(make_synthetic("gold-position", 60), quick))
        >>> lines[0]
        'Audit of gold-position (60 items, options per item)'
    """
    verdict = result.verdict
    lines = [_title(result), f"Verdict: {verdict.explanation}."]
    parts = result.position_content
    if parts is not None and parts.position is not None:
        content = parts.content
        lines.append(
            f"Content, position apart ({content.evidence.description}): {content.label}, "
            f"{statistic_name(content.statistic)} {format_estimate(content.estimate)} "
            f"against the threshold {content.threshold:g}."
        )
        lines.append(f"Gold position: {parts.position.explanation}.")
    controls = result.controls
    if controls is not None:  # the constant-answer check in full only where it flags something
        flagged = controls.constant_answer is not None and controls.constant_answer.flagged
        lines.append(f"Controls: {controls.explanation if flagged else controls.label_only.explanation}.")
    lines.append(_next(result))
    return tuple(lines)


def _title(result: AuditResult) -> str:
    benchmark = result.benchmark
    kind = "shared labels" if benchmark.get("option_kind") == "shared_labels" else "options per item"
    return f"Audit of {benchmark.get('name', '?')} ({benchmark.get('n_items', '?')} items, {kind})"


def _next(result: AuditResult) -> str:
    """What to do next, from the findings: fix the gold position, look at the cues, or nothing to fix."""
    parts = result.position_content
    if parts is not None and parts.position is not None and parts.position.flagged:
        return f"Next: {POSITION_FIX}"
    if result.verdict.label == "predictable":
        return "Next: read the cue words and heuristics behind it (--verbose), or write mitigated copies (--fix DIR)."
    return "Next: nothing to fix at this threshold; --verbose shows every probe, heuristic and cue word."
