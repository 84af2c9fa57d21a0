"""A benchmark card: a Markdown section summarising an audit for a dataset README (Hugging Face style).

What was audited (file, hash, items), the verdict with its interval, the content verdict and the gold-position test
apart (per-item benchmarks), the top cues, and how to reproduce the run (command, pfungst version, seed). For a
suite, one table of every benchmark instead. Everything is read from the results; nothing is computed.
"""

from __future__ import annotations

from typing import Any

from pfungst.audit.position_content import POSITION_FIX
from pfungst.audit.result import AuditResult
from pfungst.audit.suite import SuiteResult
from pfungst.blocks import format_estimate

__all__ = ["render_card", "render_suite_card"]

_HEADING = "## Surface-cue audit (pfungst)"


def render_card(result: AuditResult, command: str = "") -> str:
    """The card of one audit as Markdown, with its content verdict and gold-position finding apart (per-item).

    Example:
        >>> from pfungst import audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> result = audit(make_synthetic("cue-word", 200), feature_sets=("1-grams_presence",),
        ...                n_bootstrap=50, n_permutations=20, heuristics=False)
        >>> card = render_card(result, command="pfungst audit cue.jsonl")
        >>> card.splitlines()[0], "**Verdict:** predictable" in card
        ('## Surface-cue audit (pfungst)', True)
    """
    benchmark, settings = result.benchmark, result.settings
    provenance = benchmark.get("provenance") or {}
    lines = [
        _HEADING,
        "",
        f"Audited with [pfungst](https://pypi.org/project/pfungst/) {_version(result.environment)}: can "
        "the answers be predicted from surface features alone (no model, no reasoning)?",
        "",
        f"- **Data:** `{benchmark.get('name', '?')}` ({provenance.get('source', '?')}), "
        f"{benchmark.get('n_items', '?')} items, {str(benchmark.get('option_kind', '')).replace('_', ' ')}; "
        f"SHA-256 `{provenance.get('sha256', '?')}`",
        f"- **Verdict:** {result.verdict.explanation}",
    ]
    parts = result.position_content
    if parts is not None and parts.position is not None:
        lines += [
            f"- **Content** (probes that cannot see positions: {', '.join(parts.content_feature_sets)}): "
            f"{parts.content.explanation}",
            f"- **Gold position:** {parts.position.explanation}"
            + ("" if parts.position.flagged else f". If it were skewed, the fix: {POSITION_FIX}"),
        ]
    lines += ["", *_cue_lines(result), "", *_reproduce_lines(result, settings, command)]
    return "\n".join(lines) + "\n"


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
        lines.append(f"| `{cue.cue}` | {cue.label} | {cue.productivity:.2f} | {cue.coverage:.2f} | {cue.qvalue:.2g} |")
    return lines


def _reproduce_lines(result: AuditResult, settings: dict[str, Any], command: str) -> list[str]:
    source = (result.benchmark.get("provenance") or {}).get("source", "DATA")
    command = command or (
        f"pfungst audit {source} --seed {settings.get('seed', 0)} --n-splits {settings.get('n_splits')} "
        f"--n-repeats {settings.get('n_repeats')} --n-bootstrap {settings.get('n_bootstrap')} "
        f"--n-permutations {settings.get('n_permutations')} --threshold {settings.get('threshold')}"
    )
    return [
        "Reproduce:",
        "",
        "```bash",
        f"pip install 'pfungst=={_version(result.environment)}'",
        command,
        "```",
        "",
        f"Seed {settings.get('seed', 0)}; {settings.get('n_splits')} folds x {settings.get('n_repeats')} repeats; "
        f"{len(settings.get('feature_sets') or [])} feature sets ({', '.join(settings.get('feature_sets') or [])}).",
    ]


def _version(environment: dict[str, Any]) -> str:
    packages = environment.get("packages") or {}
    return str(packages.get("pfungst", "")) if isinstance(packages, dict) else ""


def render_suite_card(result: SuiteResult, command: str = "") -> str:
    """The card of a suite: one row per benchmark, ranked by content risk, with the position flag beside it."""
    lines = [
        _HEADING,
        "",
        f"{len(result.entries)} benchmarks audited ({result.n_items} items), {len(result.skipped)} skipped; ranked "
        "by the lower bound of the content verdict (probes that cannot see option positions); q-values are "
        f"Benjamini-Hochberg across the benchmarks (FDR {result.settings.get('alpha', 0.05)}).",
        "",
        "| rank | benchmark | items | content verdict | statistic [CI] | q (BH) | gold position |",
        "|---:|---|---:|---|---|---:|---|",
    ]
    for rank, (entry, q) in enumerate(zip(result.entries, result.content_tests.qvalues, strict=True), start=1):
        position = "-"
        if entry.position is not None:
            pattern = entry.position.slot_pattern
            position = f"**artifact**: {pattern}" if entry.position_flagged else pattern
        lines.append(
            f"| {rank} | {entry.name} | {entry.n_items} | {entry.content.label} | {entry.content.statistic} "
            f"{format_estimate(entry.content.estimate)} | {q:.2g} | {position} |"
        )
    seed = result.settings.get("seed", 0)
    lines += ["", "Reproduce:", "", "```bash", command or f"pfungst suite ... --seed {seed}", "```"]
    lines += ["", f"pfungst {result.settings.get('pfungst', '')}, seed {seed}."]
    return "\n".join(lines) + "\n"
