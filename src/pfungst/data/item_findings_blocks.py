"""Item findings as blocks (:mod:`pfungst.blocks`): the section that a benchmark's summary and its audit show.

One line per finding kind with items, groups, where they lie and the first ids; the kinds with nothing found in
one line; then how each finding was found and what to do. Nothing is computed: every figure is read from the
:class:`~pfungst.data.item_findings.ItemFindings`.

Example:
    >>> from pfungst.data import Benchmark, Item
    >>> from pfungst.data.item_checks import check_items
    >>> items = [Item("a", "Capital of France?", ("Paris", "Rome"), 0)]
    >>> items.append(Item("b", "capital of France", ("Rome", "Paris"), 1))
    >>> finding_line(check_items(Benchmark("toy", items))["exact-duplicate"])
    'exact duplicates: 2 of 2 items in 1 group; ids: a, b'
"""

from __future__ import annotations

from pfungst.blocks import Block, Section, Table, Text, format_estimate
from pfungst.data.item_findings import ItemFinding, ItemFindings

__all__ = ["SHOWN_IDS", "finding_line", "item_findings_section", "item_findings_summary"]

SHOWN_IDS = 5
"""Item ids a line shows; all of them are in the result's JSON and in ``ItemFindings.to_frame()``."""


def finding_line(finding: ItemFinding, shown: int = SHOWN_IDS) -> str:
    """The finding in one line: ``exact duplicates: 220 of 14042 items in 110 groups (156 across subjects); ids:
    ...``."""
    groups = f" in {len(finding.groups)} group{'s' if len(finding.groups) != 1 else ''}" if finding.groups else ""
    where = ", ".join(f"{count} {key}" for key, count in finding.breakdown.items() if count)
    ids = ", ".join(finding.item_ids[:shown])
    more = f", ... ({len(finding.item_ids) - shown} more)" if len(finding.item_ids) > shown else ""
    listed = f"; ids: {ids}{more}" if ids else ""
    return f"{finding.title}: {finding.count} of {finding.n} items{groups}{f' ({where})' if where else ''}{listed}"


def item_findings_summary(findings: ItemFindings) -> str:
    """Every finding kind in one sentence, for a short console answer: the kinds found with their counts."""
    found = findings.found()
    if not found:
        return f"Item findings: none of {len(findings)} kinds found in {findings.n} items (duplicates, broken items)."
    listed = "; ".join(f"{finding.title} {finding.count}" for finding in found)
    return f"Item findings ({findings.n} items): {listed} (ids in the result file; every line with --verbose)."


def item_findings_section(findings: ItemFindings, level: int = 3) -> Section:
    """The section: a line per finding found (with its first ids), the kinds not found, and a table of how each was
    found, its share with an exact interval, and what to do."""
    found = findings.found()
    blocks: list[Block] = [Text(finding_line(finding), tone="bad") for finding in found]
    missing = [finding.title for finding in findings if not finding.count]
    if missing:
        blocks.append(Text(f"none found: {', '.join(missing)}", tone="good"))
    if found:
        rows = tuple((f.title, f.method, f.fix, format_estimate(f.share, 4)) for f in found)
        note = (
            f"share: items affected of items examined, exact binomial (Clopper-Pearson) 95% interval; "
            f"near-duplicate threshold {findings.near_duplicate_threshold:g}, seed {findings.seed}"
        )
        columns = ("finding", "how found", "what to do", "share [CI]")
        blocks.append(Table("How each was found", columns, rows, text_columns=3, note=note))
    return Section("Item findings", tuple(blocks), level=level)
