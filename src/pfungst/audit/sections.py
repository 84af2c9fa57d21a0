"""Sections of an audit (``pfungst audit``): what :meth:`AuditResult.sections` renders.

Each function takes a result object and returns level-3 :class:`~pfungst.blocks.Section` objects, which the HTML,
Markdown and JSON reports and the console all render; the document puts them under one chapter per benchmark.
Nothing is computed: every figure is read from the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pfungst.audit.controls import AuditControls
from pfungst.audit.cues import CueTable
from pfungst.audit.heuristics import HeuristicsReport
from pfungst.audit.position_content import PositionContentSplit
from pfungst.blocks import (
    ESTIMATE_COLUMNS,
    Block,
    Facts,
    Figure,
    Section,
    Table,
    Text,
    estimate_row,
    format_estimate,
    format_number,
    format_pvalue,
    generic_blocks,
    methods_note,
)
from pfungst.data.summary_sections import benchmark_chapter
from pfungst.results import BoardRow, Overview

if TYPE_CHECKING:
    from pfungst.audit.result import AuditResult

__all__ = ["audit_chapter", "audit_overview", "audit_sections", "statistic_name"]

_STATISTIC_NAMES = {"kappa": "Cohen's kappa", "chance_corrected_accuracy": "chance-corrected accuracy"}


def statistic_name(statistic: str) -> str:
    """A verdict statistic in words (``kappa`` -> ``Cohen's kappa``)."""
    return _STATISTIC_NAMES.get(statistic, statistic.replace("_", " "))


def audit_chapter(result: AuditResult) -> tuple[Section, ...]:
    """The audit's chapter: its benchmark's facts (shared with the benchmark's summary), then its sections."""
    return (benchmark_chapter(result.benchmark), *audit_sections(result))


def audit_overview(result: AuditResult) -> Overview:
    """The audit's board row and headline: the headline's sentence, its deciding figure and its status."""
    headline = result.headline
    figure = f"{statistic_name(headline.statistic)} {format_estimate(headline.estimate)}"
    row: BoardRow = (str(result.benchmark.get("name", "?")), "(data)", headline.sentence, figure, headline.status)
    return Overview(result.benchmark, "", headline.sentence, (row,))


def audit_sections(result: AuditResult) -> tuple[Section, ...]:
    """The headline and verdict, kappa per feature set with intervals, heuristic baselines, cues and the best probe's
    features."""
    verdict, headline = result.verdict, result.headline
    statistic = _STATISTIC_NAMES.get(verdict.statistic, verdict.statistic)
    verdict_blocks: list[Block] = [
        Text(headline.sentence, tone=headline.status),
        Facts(_headline_facts(result)),
        Text(f"verdict: {verdict.explanation}", tone=_verdict_status(verdict.label)),
        Table(
            "Verdict statistic",
            ESTIMATE_COLUMNS,
            (estimate_row(statistic, verdict.estimate),),
            note=methods_note([verdict.estimate]),
        ),
    ]
    sections = [Section("Verdict", tuple(verdict_blocks), level=3)]
    parts = result.position_content
    if parts is not None and result.benchmark.get("option_kind") == "per_item":
        sections.append(Section("Position and content, apart", _split_blocks(parts), level=3))
    if result.controls is not None:
        sections.append(Section("Controls", _control_blocks(result.controls), level=3))
    sections.append(Section("Surface-feature probes", _probe_blocks(result), level=3))
    if result.heuristics is not None:
        sections.append(Section("Heuristic baselines", _heuristic_blocks(result.heuristics), level=3))
    if result.cues is not None:
        fdr = 1 - float(result.settings.get("level", 0.95))
        sections.append(Section("Cue words", _cue_blocks(result.cues, fdr), level=3))
    best = result.best
    if best.top_features:
        rows = tuple(
            (f.class_name, f.feature, format_number(f.weight), format_number(f.rank)) for f in best.top_features
        )
        sections.append(
            Section(
                f"Most predictive features of {best.feature_set}",
                (
                    Table(
                        "Top features (largest weights)", ("class", "feature", "weight", "rank"), rows, text_columns=2
                    ),
                ),
                level=3,
            )
        )
    return tuple(sections)


def _verdict_status(label: str) -> str:
    return {"predictable": "bad", "inconclusive": "warn"}.get(label, "good")


def _headline_facts(result: AuditResult) -> tuple[tuple[str, str], ...]:
    """The headline's parts, one line each: what explains the score, the input, the cue, how sure, what to do."""
    headline = result.headline
    pairs = [
        ("explains the score", headline.explains if headline.certainty == "predictable" else headline.certainty),
        ("input the evidence needed", headline.input),
        ("cue", headline.cue.sentence if headline.cue is not None else "none named (no cue survives correction)"),
        ("how sure", headline.resolution),
    ]
    if headline.declared:
        pairs.append(("declared answered from its words", headline.declared))
    pairs += [("besides", clause.removeprefix("besides, ")) for clause in headline.besides]
    if headline.action:
        pairs.append(("next", headline.action))
    return tuple(pairs)


def _split_blocks(parts: PositionContentSplit) -> tuple[Block, ...]:
    """The content verdict (position-blind probes) and the gold-position finding, with the slot pattern in words."""
    content, position = parts.content, parts.position
    blocks: list[Block] = [
        Text(
            f"content verdict ({', '.join(parts.content_feature_sets)}): {content.explanation}",
            tone="bad" if content.label == "predictable" else "good",
        )
    ]
    if position is None:
        return tuple(blocks)
    blocks.append(Text(f"gold position: {position.explanation}", tone="bad" if position.flagged else "good"))
    letters = [chr(ord("A") + k) if k < 26 else str(k + 1) for k in range(len(position.position_counts))]
    rows = tuple(
        (letter, format_number(count), format_number(expected, 1))
        for letter, count, expected in zip(letters, position.position_counts, position.expected_counts, strict=False)
    )
    blocks += [
        Table("Gold answers per position", ("position", "gold", "uniform"), rows),
        Table(
            "Position-only baselines",
            ESTIMATE_COLUMNS,
            (
                estimate_row("guess the usual gold position (chance-corrected)", position.position_only),
                estimate_row("gold uniformity (chi-squared)", position.uniformity),
            ),
            note=methods_note([position.position_only, position.uniformity]),
        ),
    ]
    return tuple(blocks)


def _control_blocks(controls: AuditControls) -> tuple[Block, ...]:
    """What the label prior alone scores, and (per-item) whether gold strings recur as gold more than as distractors."""
    prior = controls.label_only
    estimates = (prior.majority_share, prior.constant_kappa, prior.prior_accuracy, prior.prior_score)
    names = ("majority share", "kappa of always answering it", "label-prior accuracy (cross-fitted)")
    rows = tuple(
        estimate_row(name, estimate)
        for name, estimate in zip((*names, "label prior on the verdict's statistic"), estimates, strict=True)
    )
    blocks: list[Block] = [
        Table(
            f"Label-only baseline (majority answer: {prior.majority})",
            ESTIMATE_COLUMNS,
            rows,
            note=methods_note(estimates),
        )
    ]
    check = controls.constant_answer
    if check is not None:
        blocks.append(Text(f"constant answer: {check.explanation}", tone="bad" if check.flagged else "good"))
        gold_rows = tuple(
            (entry.text, format_number(entry.as_gold), format_number(entry.as_distractor)) for entry in check.top_gold
        )
        blocks.append(Table("Most common gold strings", ("gold string", "as gold", "as distractor"), gold_rows))
    return tuple(blocks)


_PROBE_COLUMNS = (
    "feature set",
    "level",
    "classifier",
    "kappa [CI]",
    "p (kappa)",
    "chance-corrected accuracy [CI]",
    "accuracy [CI]",
    "majority baseline [CI]",
    "items",
)


def _probe_blocks(result: AuditResult) -> tuple[Block, ...]:
    verdict, probes = result.verdict, result.probes
    rows = tuple(
        (
            probe.feature_set + (" (best)" if probe.feature_set == verdict.feature_set else ""),
            probe.level,
            probe.classifier_summary,
            format_estimate(probe.kappa),
            format_pvalue(probe.kappa.pvalue),
            format_estimate(probe.chance_corrected_accuracy),
            format_estimate(probe.accuracy),
            format_estimate(probe.majority_baseline),
            format_number(probe.n_items),
        )
        for probe in probes
    )
    note = methods_note([e for p in probes for e in (p.kappa, p.chance_corrected_accuracy, p.accuracy)])
    caption = "Probes: one classifier per feature set, out-of-fold predictions for every item"
    table = Table(caption, _PROBE_COLUMNS, rows, text_columns=3, note=note)
    return _feature_sets_note(result.settings), table, _probe_figure(result)


def _feature_sets_note(settings: dict[str, Any]) -> Text:
    """Which feature sets ran and why (the size-aware default says when the benchmark's size cut them)."""
    names = list(settings.get("feature_sets") or [])
    reason = settings.get("feature_sets_reason") or "not recorded"
    return Text(f"feature sets probed ({len(names)}): {', '.join(names)}; why: {reason}")


def _probe_figure(result: AuditResult) -> Figure:
    """The verdict's statistic per feature set with its interval, against chance and the verdict's threshold."""
    verdict, probes = result.verdict, result.probes
    name = _STATISTIC_NAMES.get(verdict.statistic, verdict.statistic)
    estimates = [getattr(p, verdict.statistic, None) for p in probes]
    return Figure(
        "intervals",
        f"{name} per feature set (out-of-fold, 95% intervals)",
        {
            "labels": [p.feature_set for p in probes],
            "estimates": [e.to_dict() if e is not None else None for e in estimates],
            "references": [[0.0, "chance"], [verdict.threshold, "verdict threshold"]],
            "axis": name,
        },
    )


def _heuristic_blocks(heuristics: HeuristicsReport) -> tuple[Block, ...]:
    results = heuristics.results
    rows = tuple(
        (
            r.name,
            r.description,
            format_estimate(r.accuracy),
            format_number(r.accuracy.baseline),
            format_pvalue(r.accuracy.pvalue),
            format_estimate(r.kappa),
            format_estimate(r.chance_corrected_accuracy),
            format_number(r.coverage),
            format_number(r.tie_rate),
        )
        for r in results
    )
    columns = (
        "heuristic",
        "rule",
        "accuracy [CI]",
        "baseline",
        "p",
        "kappa [CI]",
        "chance-corrected accuracy [CI]",
        "coverage",
        "ties",
    )
    note = methods_note([e for r in results for e in (r.accuracy, r.kappa, r.chance_corrected_accuracy)])
    blocks: list[Block] = [Table("No-training baselines", columns, rows, text_columns=2, note=note)]
    if heuristics.hans_counts:
        counts = [vars(count).copy() for count in heuristics.hans_counts]
        blocks.extend(generic_blocks({"HANS heuristics per label": counts}))
    return tuple(blocks)


def _cue_blocks(cues: CueTable, fdr: float) -> tuple[Block, ...]:
    rows = tuple(
        (
            c.cue,
            c.label,
            format_number(c.count),
            format_number(c.hits),
            format_number(c.productivity),
            format_number(c.coverage),
            format_number(c.base_rate),
            format_pvalue(c.pvalue),
            format_pvalue(c.qvalue),
            "yes" if c.qvalue <= fdr else "no (not a finding)",
        )
        for c in cues.cues
    )
    caption = (
        f"Top {len(cues.cues)} of {format_number(cues.n_tested)} cues tested "
        f"(productivity: share of the items with the cue whose answer it points to)"
    )
    columns = ("cue", "label", "items", "hits", "productivity", "coverage", "base rate", "p", "q (BH)", "survives")
    note = f"{cues.method}; survives: q <= {fdr:.3g} (Benjamini-Hochberg); only such a cue is named in the headline"
    return (Table(caption, columns, rows, text_columns=2, note=note),)
