"""An audit's short answer (:meth:`AuditResult.summary_lines`): what ``pfungst audit`` prints by default.

The headline (:mod:`pfungst.audit.headline`: what explains the score, its cue, how sure, what else was found, what to
do next), the gold position and the label-only control; every table behind them is in the result file and prints
with ``--verbose``. Nothing is computed here: each sentence is read from the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.audit.headline import statistic_words
from pfungst.blocks import format_estimate
from pfungst.data.item_findings_blocks import item_findings_summary

if TYPE_CHECKING:
    from pfungst.audit.position_content import PositionArtifact
    from pfungst.audit.result import AuditResult

__all__ = ["audit_summary_lines", "verdict_line"]


def audit_summary_lines(result: AuditResult) -> tuple[str, ...]:
    """What it audited, the headline (what explains the score, from which input, how sure, besides, what to do), the
    gold position where the headline does not lead with it, and the label-only control.

    Example:
        >>> from pfungst.audit import AuditConfig, audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> quick = AuditConfig(feature_sets=("options",), n_splits=2, n_repeats=1, n_bootstrap=50, n_refits=0)
        >>> lines = audit_summary_lines(audit(make_synthetic("gold-position", 60), quick))
        >>> lines[0]
        'Audit of gold-position (60 items, options per item)'
    """
    headline = result.headline
    lines = [_title(result), headline.sentence]
    parts = result.position_content
    if parts is not None and parts.position is not None and headline.explains != "position":
        position = parts.position
        lines.append(f"Gold position: {position.explanation if position.flagged else _slots(position)}.")
    controls = result.controls
    if controls is not None and headline.explains != "label prior":
        flagged = controls.constant_answer is not None and controls.constant_answer.flagged
        lines.append(f"Controls: {controls.explanation if flagged else controls.label_only.explanation}.")
    if result.item_findings is not None:
        lines.append(item_findings_summary(result.item_findings))
    return tuple(lines)


def _title(result: AuditResult) -> str:
    benchmark = result.benchmark
    kind = result.option_kind.words
    return f"Audit of {benchmark.get('name', '?')} ({benchmark.get('n_items', '?')} items, {kind})"


def _slots(position: PositionArtifact) -> str:
    """An unflagged gold position: no pattern is named for noise, only the test of uniformity and the guess."""
    counts = ", ".join(str(count) for count in position.position_counts)
    return (
        f"gold per slot {counts} (uniformity p = {position.uniformity.pvalue:.3g}); guessing the usual slot scores "
        f"{format_estimate(position.position_only)}, not above the threshold {position.threshold:g}"
    )


def verdict_line(name: str, result: AuditResult) -> str:
    """One line for an audit among several (the demo prints one per benchmark): the verdict with its best feature set
    and figure, then, for per-item benchmarks, the content verdict and the gold position apart.

    Example:
        >>> from pfungst.audit import AuditConfig, audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> quick = AuditConfig(feature_sets=("options",), n_splits=2, n_repeats=1, n_bootstrap=50, n_refits=0)
        >>> verdict_line("longest", audit(make_synthetic("longest-option", 100), quick)).split(", chance")[0]
        'longest: predictable (best options'
    """
    verdict = result.verdict
    figure = f"{statistic_words(verdict.statistic)} {format_estimate(verdict.estimate)}"
    line = f"{name}: {verdict.label} (best {verdict.feature_set}, {figure})"
    parts = result.position_content
    if parts is None or parts.position is None:
        return line
    finding = "position artifact" if parts.position.flagged else "gold position"
    return f"{line}; content: {parts.content.label}; {finding}: {parts.position.slot_pattern}"
