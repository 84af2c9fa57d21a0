"""Blocks of a suite audit: the leaderboard (one row per benchmark, linking to its section), skipped sources, and
one section per benchmark with its headline, content verdict, gold-position finding and top cues.

Nothing is computed: the ranking, the Benjamini-Hochberg q-values and the flags are read from the
:class:`~pfungst.audit.suite.SuiteResult`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pfungst.audit.sections import statistic_name
from pfungst.blocks import Block, Facts, Section, Table, Text, format_estimate, format_number, format_pvalue
from pfungst.results import BoardRow, Overview

if TYPE_CHECKING:
    from pfungst.audit.suite.entry import SuiteEntry
    from pfungst.audit.suite.result import SuiteResult

__all__ = ["benchmark_section_title", "suite_overview", "suite_sections"]

_SHORT = {"kappa": "kappa", "chance_corrected_accuracy": "cc-acc"}
LEADERBOARD_COLUMNS = (
    "benchmark",
    "headline",
    "position",
    "best content probe",
    "top cues",
    "rank",
    "items",
    "risk (low)",
    "content [CI]",
    "q (BH)",
    "position-only [CI]",
)


def benchmark_section_title(entry: SuiteEntry) -> str:
    """The title of a benchmark's section, which its leaderboard row links to."""
    return f"Suite benchmark: {entry.name}"


def suite_sections(result: SuiteResult) -> tuple[Section, ...]:
    """The leaderboard chapter, the skipped sources, then one section per audited benchmark (in rank order).

    Example:
        >>> from pfungst.audit.suite import SuiteResult
        >>> from pfungst.provenance import Provenance
        >>> from pfungst.stats import benjamini_hochberg
        >>> record = Provenance.current({"alpha": 0.05}, 0)
        >>> empty = SuiteResult((), (), benjamini_hochberg([]), benjamini_hochberg([]), record, 0, 0.0)
        >>> [section.title for section in suite_sections(empty)]
        ['Suite leaderboard: 0 benchmarks ranked by Clever-Hans risk']
    """
    chapter = Section(
        f"Suite leaderboard: {len(result.entries)} benchmarks ranked by Clever-Hans risk",
        (_facts(result), _leaderboard(result), *_flags(result)),
    )
    sections = [chapter]
    if result.skipped:
        rows = tuple((s.name, s.reason) for s in result.skipped)
        sections.append(Section("Skipped sources", (Table("Not audited, and why", ("source", "reason"), rows, 2),), 3))
    sections += [_entry_section(entry) for entry in result.entries]
    return tuple(sections)


def suite_overview(result: SuiteResult) -> Overview:
    """One board row per benchmark (its content verdict, a gold-position artifact beside it) and the headline."""
    flagged = sum(entry.position_flagged for entry in result.entries)
    headline = (
        f"{len(result.entries)} benchmarks; {result.content_tests.n_rejected} with content cues (BH); "
        f"{flagged} gold-position artifact(s)"
    )
    return Overview({}, "", headline, tuple(_suite_row(entry) for entry in result.entries))


def _suite_row(entry: SuiteEntry) -> BoardRow:
    """A suite benchmark's board row: its headline's sentence and status (inconclusive is a warning, never clean)."""
    headline = entry.headline
    status = headline.status
    if status == "good" and entry.content.signal_below_threshold:
        status = "warn"
    figure = f"{statistic_name(headline.statistic)} {format_estimate(headline.estimate)}"
    return (entry.name, "(data)", headline.sentence, figure, status)


def _facts(result: SuiteResult) -> Facts:
    alpha = result.provenance.settings.get("alpha", 0.05)
    return Facts(
        (
            ("benchmarks audited", str(len(result.entries))),
            ("skipped", str(len(result.skipped))),
            ("items", format_number(result.n_items)),
            ("reused from the cache", str(result.n_reused)),
            ("wall time", f"{result.seconds:.1f} s"),
            ("content predictable (BH)", f"{result.content_tests.n_rejected} at FDR {alpha}"),
            ("position artifacts flagged", str(sum(e.position_flagged for e in result.entries))),
            ("inconclusive (too few items to rule out a cue)", str(sum(_inconclusive(e) for e in result.entries))),
            ("declared answered from its words (ranked apart)", str(sum(e.expected for e in result.entries))),
        )
    )


def _leaderboard(result: SuiteResult) -> Table:
    rows = []
    for rank, (entry, q) in enumerate(zip(result.entries, result.content_tests.qvalues, strict=True), start=1):
        position = entry.position
        rows.append(
            (
                entry.name,
                _finding(entry),
                ("ARTIFACT " if entry.position_flagged else "")
                + (f"{position.most_common} {position.most_common_share:.0%}" if position else "-"),
                entry.content.feature_set,
                "; ".join(str(cue) for cue in entry.top_cues) or "-",
                str(rank),
                format_number(entry.n_items),
                "n/a" if math.isnan(entry.risk) else f"{entry.risk:.3f}",
                f"{_SHORT.get(entry.content.statistic, entry.content.statistic)} "
                f"{format_estimate(entry.content.estimate)}",
                format_pvalue(q),
                format_estimate(position.position_only) if position else "-",
            )
        )
    return Table(
        "Leaderboard (ranked on content; position flagged beside it)",
        LEADERBOARD_COLUMNS,
        tuple(rows),
        text_columns=5,
        note="risk is the lower bound of the content verdict's simultaneous interval (probes that cannot see option "
        "positions; Bonferroni over them); kappa for shared labels, chance-corrected accuracy (cc-acc) for per-item "
        "choices. q: Benjamini-Hochberg across the suite's benchmarks on the content p-values. position: the slot "
        "most often gold and its share; ARTIFACT when guessing that slot (cross-fitted) clears the threshold. "
        "A full-input finding of a shared-label task ranks with the others unless the task is declared to be "
        "answered from its words (--lexical-task, BIG-bench keywords); declared ones rank apart, after the others.",
        links=tuple(benchmark_section_title(entry) for entry in result.entries),
    )


def _flags(result: SuiteResult) -> tuple[Block, ...]:
    flagged = [e.name for e in result.entries if e.position_flagged]
    if not flagged:
        return ()
    return (
        Text(
            f"Gold-position artifact in {len(flagged)} benchmark(s): {', '.join(flagged)}. Anyone who renders their "
            "options in file order hands the model the answer; shuffle the options (or `pfungst audit DATA --fix "
            "DIR`).",
            "bad",
        ),
    )


def _inconclusive(entry: SuiteEntry) -> bool:
    return entry.headline.certainty == "inconclusive"


def _finding(entry: SuiteEntry) -> str:
    """The headline in a few words: what explains the score (or how sure), and the input it needed."""
    headline = entry.headline
    if headline.certainty != "predictable":
        return headline.certainty
    cue = f": {headline.cue.text}" if headline.cue is not None else ""
    return f"{headline.explains} ({headline.input}){cue}"


def _entry_section(entry: SuiteEntry) -> Section:
    pairs = [
        ("source", entry.source),
        ("data sha256", entry.sha256),
        ("items", format_number(entry.n_items)),
        ("options", entry.option_kind.replace("_", " ")),
        ("headline", entry.headline.sentence),
        ("content verdict", entry.content.explanation),
        ("input the evidence needed", entry.content.evidence.description),
        ("verdict (all probes)", entry.verdict.explanation),
    ]
    if entry.position is not None:
        counts = ", ".join(
            f"{chr(65 + k) if k < 26 else k + 1}: {c}" for k, c in enumerate(entry.position.position_counts)
        )
        pairs += [("gold position", entry.position.explanation), ("gold per position", counts)]
    if entry.controls is not None:
        pairs.append(("controls", entry.controls.explanation))
    pairs += [
        ("top cues", "; ".join(str(cue) for cue in entry.top_cues) or "none (cues off or none found)"),
        ("full audit", entry.audit_json),
        ("audit time", f"{entry.seconds:.1f} s"),
    ]
    tone = {"bad": "bad", "warn": "warn"}.get(entry.headline.status, "good")
    return Section(benchmark_section_title(entry), (Text(entry.headline.sentence, tone), Facts(tuple(pairs))), 3)
