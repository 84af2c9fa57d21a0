"""A findings report to paste into a benchmark's issue tracker: what is wrong with which items, and what to do.

``pfungst audit DATA --findings FILE.md`` (and :func:`write_findings`) writes Markdown for a benchmark's maintainer:
the audit's headline; a **summary table** (each finding with its count, its share with an exact interval, what
chance would give, its status, what to do); then **each finding** with its counts, first item ids (all in
``FILE.csv`` beside it, one row per finding and item id), evidence, how it was found, the command that reproduces it
and the fix. Findings are the audit's per-item shortcut flags (:mod:`~pfungst.audit.item_flags`; suspected wrong
keys where a validity screen is given) and its item findings (:mod:`~pfungst.data.item_findings`: duplicates and
broken items). The wording is the verdicts': a flag at chance is "no evidence", one spanning the threshold
"inconclusive"; no finding is stated without its count and how it was found. Everything is read from the results;
text from the data is escaped (:func:`~pfungst.report.markdown.escape_markdown`).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from pfungst.audit.item_flags import FlagColumn, ItemFlags
from pfungst.data.item_findings import ItemFinding
from pfungst.errors import ConfigError
from pfungst.path_checks import check_outputs
from pfungst.report.card import fenced, hex_digest, reproduce_command
from pfungst.report.flag_words import flag_detail, flag_status, percent, share_words
from pfungst.report.markdown import escape_markdown as _text
from pfungst.serialization import atomic_write, write_csv
from pfungst.stats import Estimate

if TYPE_CHECKING:
    from pfungst.audit.result import AuditResult
    from pfungst.reliance.validity import ValidityResult

__all__ = [
    "FINDINGS_COLUMNS",
    "FIRST_IDS",
    "findings_frame",
    "findings_paths",
    "read_validity",
    "render_findings",
    "write_findings",
]

FIRST_IDS = 10
"""Item ids (and evidence rows) shown per finding; the CSV holds them all."""
FINDINGS_COLUMNS = ("finding", "title", "item_id", "group", "evidence")
"""Columns of the CSV beside the report: one row per (finding, item id); ``group`` numbers duplicate groups from 1
(0 where the finding has none); ``evidence`` is the flag's evidence (empty for item findings)."""


@dataclass(frozen=True)
class _Finding:
    """A shortcut flag or an item finding, in the shape the report renders."""

    code: str
    title: str
    count: int
    share: Estimate
    status: str
    chance: str
    ids: tuple[str, ...]
    evidence: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]
    detail: str
    method: str
    fix: str
    reproduce: tuple[str, ...]
    acted_on: bool
    """The finding holds (not "no evidence", not "inconclusive"): the report says what to do."""


def findings_paths(path: str | Path) -> tuple[Path, Path]:
    """The report's Markdown file and the CSV of every id beside it (``FILE.md`` -> ``FILE.csv``).

    Raises:
        ConfigError: ``path`` does not end in ``.md``.
    """
    path = Path(path)
    if path.suffix.lower() != ".md":
        raise ConfigError(
            f"--findings {path}: the findings report is Markdown; name it with .md (e.g. findings.md). Its item ids "
            "go beside it as findings.csv."
        )
    return path, path.with_suffix(".csv")


def render_findings(
    result: AuditResult, *, validity: ValidityResult | None = None, command: str = "", csv_name: str = "findings.csv"
) -> str:
    """The findings report on ``result`` as Markdown (see the module docstring).

    Args:
        result: An audit (:func:`pfungst.audit.audit`, or read from its JSON).
        validity: A validity screen of several models' outcomes on the same items: adds the ``wrong-key`` flag.
        command: The command that ran the audit (reproduce lines); by default one rebuilt from its settings.
        csv_name: The name of the CSV of every id, as the report mentions it.
    """
    findings = _findings(result, validity, command)
    benchmark, settings = result.benchmark, result.provenance.settings
    data = result.provenance.data[0] if result.provenance.data else None
    lines = [
        f"# Item findings: {_text(benchmark.get('name', '?'))}",
        "",
        f"{_text(benchmark.get('n_items', '?'))} items of {_text(data.source if data else '?')}"
        + (f" (SHA-256 {hex_digest(data.sha256)})" if data and data.sha256 else "")
        + f", audited with pfungst {result.provenance.environment.pfungst}, seed {_text(settings.get('seed', 0))}. "
        "Sections follow for the findings that affect at least one item.",
        "",
        f"**Headline:** {_text(result.headline.sentence)}",
        "",
        "## Summary",
        "",
        "| finding | items | share [exact interval] | chance would give | status | what to do |",
        "|---|---:|---|---:|---|---|",
        *(_summary_row(finding) for finding in findings),
        "",
        f"Intervals are exact binomial (Clopper-Pearson) at {100 * float(settings.get('level', 0.95)):g}%, or wider "
        "where a flag is the strongest of several candidates (its level is then given). Every affected item id, one "
        f"row per finding and item: `{_text(csv_name)}`. " + _not_covered(result, validity),
    ]
    for number, finding in enumerate((finding for finding in findings if finding.count), start=1):
        lines += ["", *_section(number, finding)]
    return "\n".join(lines) + "\n"


def findings_frame(result: AuditResult, *, validity: ValidityResult | None = None) -> pd.DataFrame:
    """Every affected item id, one row per (finding, item id), in the report's order (:data:`FINDINGS_COLUMNS`)."""
    rows = []
    for finding in _findings(result, validity, ""):
        group_of = {item_id: number for number, group in enumerate(finding.groups, 1) for item_id in group}
        evidence = finding.evidence or ("",) * len(finding.ids)
        rows += [
            (finding.code, finding.title, item_id, group_of.get(item_id, 0), why)
            for item_id, why in zip(finding.ids, evidence, strict=True)
        ]
    return pd.DataFrame(rows, columns=list(FINDINGS_COLUMNS))


def write_findings(
    result: AuditResult,
    path: str | Path,
    *,
    validity: ValidityResult | str | Path | None = None,
    command: str = "",
) -> tuple[Path, Path]:
    """Write the findings report to ``path`` (``.md``) and every affected id to the CSV beside it, each atomically.

    Args:
        result: An audit (:func:`pfungst.audit.audit`, or read from its JSON).
        path: The Markdown file; the CSV goes beside it with the suffix ``.csv``.
        validity: A validity result (or its JSON file, written by ``pfungst validity --json``) of the same items.
        command: The command that ran the audit; by default one rebuilt from its settings, with ``--findings``.

    Returns:
        The Markdown file and the CSV.

    Raises:
        ConfigError: ``path`` does not end in ``.md``; it or the CSV is the audited data or the validity file, or
            cannot be written; the validity screen names none of the audited items.

    Example:
        >>> import tempfile, pathlib
        >>> from pfungst.audit import audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> result = audit(make_synthetic("longest-option", 120), feature_sets=("options_no_position",),
        ...                n_bootstrap=50, n_permutations=20, cues=False, n_repeats=1)
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> report, ids = write_findings(result, folder / "findings.md")
        >>> "| finding | items |" in report.read_text(), ids.name
        (True, 'findings.csv')
    """
    markdown, csv = findings_paths(path)
    source = result.provenance.data[0].source if result.provenance.data else None
    inputs: list[str | Path | None] = [source if source and Path(source).exists() else None]
    if isinstance(validity, str | Path):
        inputs.append(validity)
    check_outputs(inputs, {"--findings": markdown, "--findings (its CSV)": csv})
    screen: ValidityResult | None = None
    if isinstance(validity, str | Path):
        command = command or f"{reproduce_command(result)} --validity {validity}"
        screen = read_validity(validity)
    else:
        screen = validity
    command = command or reproduce_command(result)
    if "--findings" not in command:
        command += f" --findings {markdown}"
    text = render_findings(result, validity=screen, command=command, csv_name=csv.name)
    frame = findings_frame(result, validity=screen)
    with atomic_write(markdown) as handle:
        handle.write(text)
    return markdown, write_csv(csv, frame)


def read_validity(path: str | Path) -> ValidityResult:
    """The validity result in ``path`` (``pfungst validity --json``), read before any work.

    Raises:
        ConfigError: the file cannot be read, or holds another kind of result.
        ReaderError: not JSON, or a value of the wrong type.
    """
    from pfungst.reliance.validity.result import ValidityResult
    from pfungst.report.loading import read_result

    found = read_result(path)
    if not isinstance(found, ValidityResult):
        raise ConfigError(
            f"--validity {path}: this is a {type(found).__name__}, not a validity result. Pass the JSON that "
            "pfungst validity --outcomes ... --json FILE writes."
        )
    return found


def _findings(result: AuditResult, validity: ValidityResult | None, command: str) -> list[_Finding]:
    """The shortcut flags (the wrong-key flag joined from ``validity``), then the item findings, in order."""
    flags = result.item_flags
    audit_line = reproduce_command(result, command)
    found: list[_Finding] = []
    if flags is not None:
        if validity is not None:
            flags = flags.with_column(validity.wrong_key_flags(flags.item_ids))
        reproduce = {"wrong-key": (*_validity_lines(validity, audit_line), audit_line)}
        found += [_from_flag(flags, column, reproduce.get(column.code, (audit_line,))) for column in flags]
    if result.item_findings is not None:
        found += [_from_item_finding(finding, audit_line) for finding in result.item_findings]
    return found


def _from_flag(flags: ItemFlags, column: FlagColumn, reproduce: tuple[str, ...]) -> _Finding:
    rows = zip(flags.item_ids, column.flagged, column.evidence, strict=True)
    flagged = [(item_id, why) for item_id, hit, why in rows if hit]
    chance = "-" if math.isnan(column.expected) else f"{column.expected:.1f} ({percent(column.share.baseline)})"
    return _Finding(
        code=column.code,
        title=column.title,
        count=column.count,
        share=column.share,
        status=flag_status(column),
        chance=chance,
        ids=tuple(item_id for item_id, _ in flagged),
        evidence=tuple(why for _, why in flagged),
        groups=(),
        detail=flag_detail(column),
        method=column.method,
        fix=column.fix,
        reproduce=reproduce,
        acted_on=column.certainty in ("predictable", "found") and column.count > 0,
    )


def _from_item_finding(finding: ItemFinding, audit_line: str) -> _Finding:
    breakdown = "; ".join(f"{_text(where)} {count}" for where, count in finding.breakdown.items())
    detail = f"{finding.count} of {finding.n} items ({share_words(finding.share)})"
    if finding.groups:
        detail += f", in {len(finding.groups)} groups"
    if breakdown:
        detail += f"; {breakdown}"
    return _Finding(
        code=finding.code,
        title=finding.title,
        count=finding.count,
        share=finding.share,
        status="**found**" if finding.count else "none found",
        chance="-",
        ids=finding.item_ids,
        evidence=(),
        groups=finding.groups,
        detail=detail + ".",
        method=finding.method,
        fix=finding.fix,
        reproduce=(audit_line,),
        acted_on=finding.count > 0,
    )


def _summary_row(finding: _Finding) -> str:
    return (
        f"| {_text(finding.title)} (`{_text(finding.code)}`) | {finding.count} | {share_words(finding.share)} | "
        f"{finding.chance} | {finding.status} | {_text(_first_clause(finding.fix)) if finding.acted_on else '-'} |"
    )


def _section(number: int, finding: _Finding) -> list[str]:
    lines = [
        f"## {number}. {_text(finding.title[:1].upper() + finding.title[1:])} (`{_text(finding.code)}`)",
        "",
        f"**Status:** {finding.status}. {finding.detail}",
        "",
    ]
    if finding.ids:
        shown = ", ".join(_text(item_id) for item_id in finding.ids[:FIRST_IDS])
        more = f" (all {finding.count} in the CSV)" if finding.count > FIRST_IDS else ""
        lines += [f"**Items:** {shown}{more}", ""]
    if finding.evidence:
        lines += ["| item | evidence |", "|---|---|"]
        lines += [f"| {_text(i)} | {_text(why)} |" for i, why in zip(finding.ids, finding.evidence, strict=True)][
            :FIRST_IDS
        ]
        lines.append("")
    if finding.groups:
        groups = "; ".join("(" + ", ".join(_text(i) for i in group) + ")" for group in finding.groups[:5])
        lines += [f"**Groups** (first {min(5, len(finding.groups))}): {groups}", ""]
    lines += [f"**How it was found:** {_text(finding.method)}", "", "**Reproduce:**", ""]
    lines += [*fenced("bash", *finding.reproduce), ""]
    if finding.acted_on:
        lines.append(f"**Fix:** {_text(finding.fix)}")
    else:
        lines.append(f"**Fix:** nothing on this evidence; if it held, {_text(finding.fix)}")
    return lines


def _validity_lines(validity: ValidityResult | None, audit_line: str) -> tuple[str, ...]:
    """The command that screened the keys, writing the file the audit command reads with ``--validity``."""
    if validity is None:
        return ()
    sources = dict.fromkeys(read.source for read in validity.provenance.derived_from)  # one per model read
    outcomes = " ".join(f"--outcomes {shlex.quote(source)}" for source in sources) or "--outcomes ..."
    try:
        words = shlex.split(audit_line)
    except ValueError:  # a command given by hand with an unclosed quote: name no file
        words = []
    after = [words[k + 1] for k, word in enumerate(words[:-1]) if word == "--validity"]
    return (f"pfungst validity {outcomes} --json {shlex.quote(after[0]) if after else 'VALIDITY.json'}",)


def _not_covered(result: AuditResult, validity: ValidityResult | None) -> str:
    """What the report could not look at, said rather than left out."""
    notes = []
    if result.item_flags is None:
        notes.append("This audit holds no per-item shortcut flags (a result file from an older pfungst).")
    if result.item_findings is None:
        notes.append("Duplicates and broken items were not checked in this audit.")
    if validity is None:
        notes.append(
            "Keys were not screened: pass a validity result of several models' outcomes (`pfungst validity "
            "--outcomes ...`, then `--validity FILE`) to flag suspected wrong keys."
        )
    return " ".join(notes)


def _first_clause(text: str) -> str:
    """The fix's first clause, for the summary table (the section has it whole)."""
    for mark in ("; ", ". "):
        text = text.split(mark)[0]
    return text
