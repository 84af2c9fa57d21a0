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
from pfungst.data.item_findings_blocks import item_findings_section
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
    return (benchmark_chapter(result.benchmark, result.provenance.data), *audit_sections(result))


def audit_overview(result: AuditResult) -> Overview:
    """The audit's board row and headline: the headline's sentence (what explains the score, from which input, how
    sure, what to do) and its status; the deciding figure is in the sentence, so the row's figure column is left to
    the benchmark's summary (its majority answer share, folded in by the report)."""
    found = result.headline
    explains = f" ({found.explains})" if found.explains != "none" else ""
    headline = f"{found.certainty}{explains}: {statistic_name(found.statistic)} {format_estimate(found.estimate)}"
    row: BoardRow = (
        str(result.benchmark.get("name", "?")),
        "(data)",
        result.headline.sentence,
        "",
        result.headline.status,
    )
    return Overview(result.benchmark, "", headline, (row,))


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
    if parts is not None and result.option_kind.has_positions:
        sections.append(Section("Position and content, apart", _split_blocks(parts), level=3))
    if result.controls is not None:
        sections.append(Section("Controls", _control_blocks(result.controls, verdict.statistic), level=3))
    sections.append(Section("Surface-feature probes", _probe_blocks(result), level=3))
    if result.heuristics is not None:
        sections.append(
            Section("Heuristic baselines", _heuristic_blocks(result.heuristics, verdict.statistic), level=3)
        )
    if result.item_flags is not None and result.item_flags.columns:
        sections.append(Section("Per-item shortcut flags", result.item_flags.blocks(), level=3))
    if result.cues is not None:
        fdr = 1 - float(result.provenance.settings.get("level", 0.95))
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
    if result.item_findings is not None:
        sections.append(item_findings_section(result.item_findings))
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


def _control_blocks(controls: AuditControls, statistic: str) -> tuple[Block, ...]:
    """What the label prior alone scores, and (per-item) whether gold strings recur as gold more than as distractors."""
    prior = controls.label_only
    # the kappa of always answering the majority is 0 by construction (it stays in the JSON): beside the verdict's
    # chance-corrected accuracy it would read as a contradiction, so the table shows each statistic once, named
    estimates = (prior.majority_share, prior.prior_accuracy, prior.prior_score)
    names = (
        "majority share",
        "label-prior accuracy (cross-fitted)",
        f"label prior, {statistic_name(statistic)} (the verdict's statistic)",
    )
    rows = tuple(estimate_row(name, estimate) for name, estimate in zip(names, estimates, strict=True))
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


def _probe_blocks(result: AuditResult) -> tuple[Block, ...]:
    """One row per probe with the verdict's statistic only, named in its column: kappa and chance-corrected accuracy
    part where the predictions are constant (always the usual gold slot: kappa 0 beside accuracy 0.6). The
    permutation p-value tests kappa (labels shuffled against fixed predictions), so it is shown with kappa only."""
    verdict, probes = result.verdict, result.probes
    with_p = verdict.statistic == "kappa"
    rows = tuple(
        (
            probe.feature_set + (" (best)" if probe.feature_set == verdict.feature_set else ""),
            probe.level,
            probe.classifier_summary,
            format_estimate(getattr(probe, verdict.statistic)),
            *((format_pvalue(probe.kappa.pvalue),) if with_p else ()),
            format_estimate(probe.accuracy),
            format_estimate(probe.majority_baseline),
            format_number(probe.n_items),
        )
        for probe in probes
    )
    columns = (
        "feature set",
        "level",
        "classifier",
        f"{statistic_name(verdict.statistic)} [CI]",
        *(("p (permutation)",) if with_p else ()),
        "accuracy [CI]",
        "majority baseline [CI]",
        "items",
    )
    note = methods_note([e for p in probes for e in (getattr(p, verdict.statistic), p.accuracy)])
    caption = "Probes: one classifier per feature set, out-of-fold predictions for every item"
    table = Table(caption, columns, rows, text_columns=3, note=note)
    return _feature_sets_note(result.provenance.settings), table, _probe_figure(result)


def _feature_sets_note(settings: dict[str, Any]) -> Text:
    """Which feature sets ran and why (the size-aware default says when the benchmark's size cut them)."""
    names = list(settings.get("feature_sets") or [])
    reason = settings.get("feature_sets_reason") or "not recorded"
    groups = (settings.get("item_groups") or {}).get("explanation", "sibling groups not recorded")
    return Text(
        f"feature sets probed ({len(names)}): {', '.join(names)}; why: {reason}. Folds: {settings.get('n_splits')} x "
        f"{settings.get('n_repeats')} repeats, stratified; {groups}"
    )


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


def _heuristic_blocks(heuristics: HeuristicsReport, statistic: str) -> tuple[Block, ...]:
    """Each no-training rule's accuracy with its test, and the verdict's statistic (named; the other one stays in
    the JSON)."""
    results = heuristics.results
    rows = tuple(
        (
            r.name,
            r.description,
            format_estimate(r.accuracy),
            format_number(r.accuracy.baseline),
            format_pvalue(r.accuracy.pvalue),
            format_estimate(getattr(r, statistic)),
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
        f"{statistic_name(statistic)} [CI]",
        "coverage",
        "ties",
    )
    note = methods_note([e for r in results for e in (r.accuracy, getattr(r, statistic))])
    blocks: list[Block] = [Table("No-training baselines", columns, rows, text_columns=2, note=note)]
    if heuristics.hans_counts:
        counts = [vars(count).copy() for count in heuristics.hans_counts]
        blocks.extend(generic_blocks({"HANS heuristics per label": counts}))
    return tuple(blocks)


def _cue_blocks(cues: CueTable, fdr: float) -> tuple[Block, ...]:
    """The cues whose test survives Benjamini-Hochberg correction over every cue tested (q <= ``fdr``, the rule
    that names a cue in the headline); the rest counted in one line, since a table of cues that are not significant
    reads as a list of findings."""
    found = [c for c in cues.cues if c.qvalue <= fdr]
    rest = cues.n_tested - len(found)
    smallest = min((c.qvalue for c in cues.cues if c.qvalue > fdr), default=None)
    closing = (
        f"{format_number(rest)} {'more ' if found else ''}cue{'s' if rest != 1 else ''} tested, none significant "
        f"after Benjamini-Hochberg correction (q <= {fdr:.3g})"
        + (f"; the smallest q among them is {format_pvalue(smallest)}" if smallest is not None else "")
    )
    if cues.config.rank_by != "pvalue" and len(cues.cues) < cues.n_tested:  # the rows cut by top_k were not seen
        closing = (
            f"{format_number(rest)} {'more ' if found else ''}cues tested; of the {len(cues.cues)} kept (the top by "
            f"{cues.config.rank_by}) no other is significant after Benjamini-Hochberg correction (q <= {fdr:.3g})"
        )
    blocks: list[Block] = []
    if found:
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
            )
            for c in found
        )
        caption = (
            f"{len(found)} of {format_number(cues.n_tested)} cues tested survive correction "
            f"(productivity: share of the items with the cue whose answer it points to)"
        )
        columns = ("cue", "label", "items", "hits", "productivity", "coverage", "base rate", "p", "q (BH)")
        note = f"{cues.method}; survives: q <= {fdr:.3g} (Benjamini-Hochberg); only such a cue is named in the headline"
        blocks.append(Table(caption, columns, rows, text_columns=2, note=note))
    if rest:
        blocks.append(Text(closing))
    return tuple(blocks)
