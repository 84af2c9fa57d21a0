"""The provenance chapter: for every input, its file and hash and its :class:`~pfungst.provenance.Provenance` record.

One function renders a record (:func:`provenance_blocks`): the data files behind it (path, reader, SHA-256, rows
read, kept and rejected, duplicates, steps), the seed, the software (pfungst and package versions, Python, platform,
git revision, time), the results it was derived from (kind, file, SHA-256, schema), then its settings. The chapter
gives one section per input, one per record inside one (each stress run of a comparison) and one per derived result
(the choices-only pairing); a result that keeps no record (a plugin's kind may not) shows "no provenance recorded"
beside where it was read from. HTML, Markdown, JSON and the console all render these blocks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pfungst.blocks import Block, Code, Facts, Section, Table, format_number
from pfungst.provenance import DataSource, Provenance
from pfungst.report.loading import LoadedResult

__all__ = ["provenance_blocks", "provenance_sections"]


def provenance_sections(loaded: Sequence[LoadedResult], derived: Iterable[Any] = ()) -> list[Section]:
    """A chapter with one section per input, per record inside one, and per derived result."""
    sections = [Section("Provenance", ())]
    for result in loaded:
        where = (
            ("result file", result.source),
            ("result sha256", result.sha256 or "n/a (passed in Python)"),
            ("schema", result.schema_version),
        )
        title = f"{result.kind}: {result.source}"
        sections.append(Section(title, _record_blocks(result.data, where), level=3))
        for label, record in result.data.overview().records:
            sections.append(Section(f"{result.source}: {label}", provenance_blocks(record), level=3))
    for found in derived:
        title = f"{found.sections()[0].title} (derived)"
        sections.append(Section(title, _record_blocks(found), level=3))
    return sections


def _record_blocks(result: Any, where: tuple[tuple[str, str], ...] = ()) -> tuple[Block, ...]:
    """The blocks of ``result``'s provenance record; a result that keeps none (a plugin's kind may not) says so."""
    record = getattr(result, "provenance", None)
    if isinstance(record, Provenance):
        return provenance_blocks(record, where)
    return (Facts((*where, ("provenance", "no provenance recorded"))),)


def provenance_blocks(record: Provenance, where: tuple[tuple[str, str], ...] = ()) -> tuple[Block, ...]:
    """A provenance record as blocks: facts (``where`` first, then data files, seed, software), the inputs it was
    derived from as a table, and its settings as JSON.

    Example:
        >>> from pfungst.environment import Environment
        >>> record = Provenance({"alpha": 0.05}, 3, Environment({"pfungst": "0.1.0"}), (DataSource("mmlu.csv", "mmlu",
        ...     "ab12", rows_read=10, rows_kept=9),))
        >>> blocks = provenance_blocks(record)
        >>> dict(blocks[0].pairs)["rows"], dict(blocks[0].pairs)["seed"]
        ('10 read, 9 kept, 0 rejected', '3')
    """
    pairs = [*where]
    for source in record.data:
        pairs += _data_pairs(source)
    pairs.append(("seed", "none (nothing drawn at random)" if record.seed is None else format_number(record.seed)))
    software = record.environment
    pairs.append(("pfungst", software.pfungst))
    for label, value in (
        ("git revision", software.git_revision),
        ("python", software.python),
        ("platform", software.platform),
        ("created", software.created),
    ):
        if value:
            pairs.append((label, value))
    others = {name: version for name, version in software.packages.items() if name != "pfungst"}
    if others:
        pairs.append(("packages", ", ".join(f"{name} {version}" for name, version in others.items())))
    blocks: list[Block] = [Facts(tuple(pairs))]
    if record.derived_from:
        rows = tuple((ref.kind, ref.source, ref.sha256 or "n/a", ref.schema_version) for ref in record.derived_from)
        blocks.append(Table("Derived from", ("kind", "file", "sha256", "schema"), rows, text_columns=4))
    if record.settings:
        text = json.dumps(record.settings, indent=2, ensure_ascii=False, default=str)
        blocks.append(Code(text, caption="settings"))
    return tuple(blocks)


def _data_pairs(source: DataSource) -> list[tuple[str, str]]:
    """A data file's facts: path, hash, reader, rows, duplicates, steps."""
    pairs = [
        ("data file", source.source or "(in memory)"),
        ("data sha256", source.sha256 or "n/a"),
        ("data format", source.format),
        (
            "rows",
            f"{format_number(source.rows_read)} read, {format_number(source.rows_kept)} kept, "
            f"{format_number(source.rows_rejected)} rejected",
        ),
        (
            "duplicates",
            f"{format_number(source.duplicate_texts)} texts ({format_number(source.conflicting_duplicates)} "
            f"conflicting), {format_number(source.duplicate_ids)} ids",
        ),
    ]
    if source.steps:
        pairs.append(("steps", ", ".join(source.steps)))
    return pairs
