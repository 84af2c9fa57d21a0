"""A benchmark card: a Markdown section summarising an audit for a dataset README (Hugging Face style).

What was audited (file, hash, items), the headline (what explains the score, from which input, how sure, what to
do), the verdict with its interval and the input its evidence needed, the content verdict and the gold-position test
apart (per-item benchmarks), the controls (label-only baseline, constant-answer check), the item findings
(duplicates and broken items with their first ids), the top cues, and how to
reproduce the run (command, pfungst version, seed). For a suite, a table of every benchmark instead, each with its
headline, the findings a task declares it is answered from in a table of their own. Everything is read from
the results; nothing is computed. Text from the data (file and benchmark names, cues, labels) is escaped as in the
Markdown report (:func:`~pfungst.report.markdown.escape_markdown`): a name like ``<img src=x onerror=...>`` shows as
text, and the reproduce command sits in a code fence longer than any run of backticks in it.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from pfungst.audit.fixing import FixResult
from pfungst.audit.result import AuditResult
from pfungst.audit.suite import SuiteEntry, SuiteResult
from pfungst.blocks import format_estimate
from pfungst.data.item_findings_blocks import finding_line
from pfungst.provenance import DataSource
from pfungst.report.markdown import escape_markdown as _text

__all__ = [
    "fenced",
    "hex_digest",
    "render_card",
    "render_fix_lines",
    "render_suite_card",
    "reproduce_command",
]

_HEADING = "## Surface-cue audit (pfungst)"


def render_fix_lines(fixed: FixResult | None) -> str:
    """The mitigated copies' residual verdicts as a Markdown section to append to a card ('' without ``--fix``)."""
    if fixed is None:
        return ""
    lines = ["", "### Mitigated copies, audited again with the same settings", ""]
    lines += [f"- {_text(line)}" for line in fixed.residual_lines()]
    return "\n".join(lines) + "\n"


def render_card(result: AuditResult, command: str = "") -> str:
    """The card of one audit as Markdown, with its content verdict and gold-position finding apart (per-item).

    Example:
        >>> from pfungst.audit import audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> result = audit(make_synthetic("cue-word", 200), feature_sets=("1-grams_presence",),
        ...                n_bootstrap=50, n_permutations=20, heuristics=False)
        >>> card = render_card(result, command="pfungst audit cue.jsonl")
        >>> card.splitlines()[0], "**Headline:** Predictable from the full input" in card
        ('## Surface-cue audit (pfungst)', True)
    """
    benchmark, settings = result.benchmark, result.provenance.settings
    data = result.provenance.data[0] if result.provenance.data else DataSource("?", "?", "?")
    kind = str(benchmark.get("option_kind", "")).replace("_", " ")
    lines = [
        _HEADING,
        "",
        f"Audited with [pfungst](https://pypi.org/project/pfungst/) {result.provenance.environment.pfungst}: can "
        "the answers be predicted from surface features alone (no model, no reasoning)?",
        "",
        f"- **Data:** {_text(benchmark.get('name', '?'))} ({_text(data.source)}), "
        f"{_text(benchmark.get('n_items', '?'))} items, {_text(kind)}; "
        f"SHA-256 {hex_digest(data.sha256 or '?')}",
        f"- **Headline:** {_text(result.headline.sentence)}",
        f"- **Verdict:** {_text(result.verdict.explanation)}",
    ]
    parts = result.position_content
    if parts is not None and parts.position is not None:
        lines += [
            f"- **Content** (probes that cannot see positions: {_text(', '.join(parts.content_feature_sets))}): "
            f"{_text(parts.content.explanation)}",
            f"- **Gold position:** {_text(parts.position.explanation)}"
            + ("" if parts.position.flagged else f". If it were skewed, the fix: {parts.position.fix}"),
        ]
    if result.controls is not None:
        lines.append(f"- **Controls:** {_text(result.controls.explanation)}")
    lines += _item_finding_lines(result)
    lines += ["", *_cue_lines(result), "", *_reproduce_lines(result, settings, command)]
    return "\n".join(lines) + "\n"


def _item_finding_lines(result: AuditResult) -> list[str]:
    """Duplicates and broken items, one bullet each with its first ids (all ids are in the result's JSON)."""
    if result.item_findings is None:
        return []
    found = result.item_findings.found()
    if not found:
        return [f"- **Item findings:** no duplicates or broken items among {result.item_findings.n} items"]
    return ["- **Item findings:**", *(f"  - {_text(finding_line(finding))}" for finding in found)]


def _cue_lines(result: AuditResult) -> list[str]:
    if result.cues is None or not result.cues.cues:
        return ["No cue table (cues were off, or no n-gram reached the minimum count)."]
    lines = [
        "Top cues (productivity: how often the cue points at the answer; coverage: share of items with it):",
        "",
        "| cue | points at | productivity | coverage | q (BH) |",
        "|---|---|---:|---:|---:|",
    ]
    for cue in result.cues.cues[:5]:
        lines.append(
            f"| {_text(cue.cue)} | {_text(cue.label)} | {cue.productivity:.2f} | {cue.coverage:.2f} | "
            f"{cue.qvalue:.2g} |"
        )
    return lines


def reproduce_command(result: AuditResult, command: str = "") -> str:
    """The command that reruns ``result``'s audit: ``command`` as given (the running command line), else one built
    from the result's source and settings (seed, folds, repeats, resamples, threshold, protocol)."""
    settings = result.provenance.settings
    source = result.provenance.data[0].source if result.provenance.data else "DATA"
    return command or (
        f"pfungst audit {shlex.quote(str(source))} --seed {settings.get('seed', 0)} "
        f"--n-splits {settings.get('n_splits')} --n-repeats {settings.get('n_repeats')} "
        f"--n-bootstrap {settings.get('n_bootstrap')} "
        f"--n-permutations {settings.get('n_permutations')} --n-refits {settings.get('n_refits')} "
        f"--threshold {settings.get('threshold')}" + f" --protocol {settings.get('protocol', 'crossfit')}"
    )


def _reproduce_lines(result: AuditResult, settings: dict[str, Any], command: str) -> list[str]:
    command = reproduce_command(result, command)
    feature_sets = settings.get("feature_sets") or []
    return [
        "Reproduce:",
        "",
        *fenced("bash", f"pip install 'pfungst=={result.provenance.environment.pfungst}'", command),
        "",
        f"Seed {_text(settings.get('seed', 0))}; {_text(settings.get('n_splits'))} folds x "
        f"{_text(settings.get('n_repeats'))} repeats; {len(feature_sets)} feature sets "
        f"({_text(', '.join(feature_sets))}): {_text(settings.get('feature_sets_reason') or 'reason not recorded')}.",
        "",
        f"Folds: {_text((settings.get('item_groups') or {}).get('explanation', 'sibling groups not recorded'))}.",
    ]


_SUITE_COLUMNS = (
    "| rank | benchmark | items | headline | content verdict | input needed | statistic [CI] | q (BH) "
    "| gold position | controls |",
    "|---:|---|---:|---|---|---|---|---:|---|---|",
)


def _suite_table(rows: list[tuple[SuiteEntry, float]]) -> list[str]:
    """Suite rows as a Markdown table, ranked from 1 in the order given."""
    lines = ["", *_SUITE_COLUMNS]
    for rank, (entry, q) in enumerate(rows, start=1):
        position = "-"
        if entry.position is not None:
            pattern = _text(entry.position.slot_pattern)
            position = f"**artifact**: {pattern}" if entry.position_flagged else pattern
        needed = "-" if entry.content.kind == "none" else _text(entry.content.evidence.description)
        lines.append(
            f"| {rank} | {_text(entry.name)} | {entry.n_items} | {_headline_cell(entry)} | "
            f"{_text(entry.content.label)} | {needed} | "
            f"{_text(entry.content.statistic)} {_text(format_estimate(entry.content.estimate))} | {q:.2g} | "
            f"{position} | {_controls(entry)} |"
        )
    return lines


def _headline_cell(entry: SuiteEntry) -> str:
    """The headline in a table cell: its status in words (inconclusive is never clean), then its sentence."""
    headline = entry.headline
    mark = {"bad": "**finding**", "warn": f"**{headline.certainty}**", "good": "no evidence"}[headline.status]
    if headline.explains == "expected" and headline.certainty == "predictable":
        mark = "expected (declared)"
    return f"{mark}: {_text(headline.sentence)}"


def _controls(entry: SuiteEntry) -> str:
    """The controls in a table cell: the label prior on the verdict's statistic and the constant-answer flag."""
    if entry.controls is None:
        return "-"
    prior = entry.controls.label_only
    text = f"label prior {prior.prior_score.value:.3f} (majority {_text(prior.majority)})"
    check = entry.controls.constant_answer
    if check is not None:
        text += "; constant answer **flagged**" if check.flagged else "; constant answer not flagged"
    return text


def fenced(language: str, *lines: str) -> list[str]:
    """``lines`` as a fenced code block (shown as typed, never rendered), its fence longer than any backtick run."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", *lines, fence]


def hex_digest(digest: Any) -> str:
    """A hash as code when it is one (hex digits), else as escaped text."""
    text = str(digest)
    return f"`{text}`" if re.fullmatch(r"[0-9a-fA-F]+", text) else _text(text)


def render_suite_card(result: SuiteResult, command: str = "") -> str:
    """The card of a suite: one row per benchmark with its headline, ranked by content risk, with the position flag
    beside it; the findings a task declares it is answered from (``--lexical-task``, BIG-bench keywords) in a table
    of their own."""
    lines = [
        _HEADING,
        "",
        f"{len(result.entries)} benchmarks audited ({result.n_items} items), {len(result.skipped)} skipped; ranked "
        "by the lower bound of the content verdict (probes that cannot see option positions); q-values are "
        f"Benjamini-Hochberg across the benchmarks (FDR {result.provenance.settings.get('alpha', 0.05)}).",
    ]
    rows = list(zip(result.entries, result.content_tests.qvalues, strict=True))
    lines += _suite_table([row for row in rows if not row[0].expected])
    declared = [row for row in rows if row[0].expected]
    if declared:
        lines += ["", "Declared to be answered from the words of the input (expected, ranked apart):"]
        lines += _suite_table(declared)
    seed = result.provenance.seed
    lines += ["", "Reproduce:", "", *fenced("bash", command or f"pfungst suite ... --seed {seed}")]
    lines += ["", f"pfungst {_text(result.provenance.environment.pfungst)}, seed {_text(seed)}."]
    return "\n".join(lines) + "\n"
