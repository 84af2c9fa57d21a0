"""Sections of a benchmark's summary (``pfungst inspect``): what :meth:`BenchmarkSummary.sections` renders.

Each function takes a result object and returns :class:`~pfungst.blocks.Section` objects, which the HTML, Markdown
and JSON reports and the console all render. Nothing is computed: every figure is read from the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pfungst.blocks import (
    ESTIMATE_COLUMNS,
    Block,
    Facts,
    Figure,
    Section,
    Table,
    Text,
    estimate_row,
    format_number,
    methods_note,
)
from pfungst.data.option_kind import OptionKind

if TYPE_CHECKING:
    from pfungst.data.summary import BenchmarkSummary

__all__ = ["benchmark_chapter", "benchmark_facts", "summary_sections"]


def benchmark_chapter(benchmark: Mapping[str, Any]) -> Section:
    """The chapter that opens a benchmark's results: its name and facts (a summary and an audit of it share it)."""
    return Section(f"Benchmark: {benchmark.get('name', '?')}", (benchmark_facts(benchmark),))


def benchmark_facts(benchmark: Mapping[str, Any]) -> Facts:
    """Name, size, option kind, labels and option counts of a ``Benchmark.to_dict()``.

    Example:
        >>> benchmark_facts({"name": "toy", "n_items": 4, "option_kind": "per_item"}).pairs[:2]
        (('benchmark', 'toy'), ('items', '4'))
    """
    pairs = [("benchmark", str(benchmark.get("name", "?"))), ("items", format_number(benchmark.get("n_items")))]
    provenance = benchmark.get("provenance")
    if isinstance(provenance, Mapping) and provenance.get("format"):
        pairs.append(("read as", str(provenance["format"])))
    if isinstance(provenance, Mapping) and provenance.get("layout"):  # a table mapped by a common layout
        pairs.append(("layout", str(provenance["layout"])))
    if isinstance(provenance, Mapping) and provenance.get("steps"):  # e.g. a sample (--max-items), de-duplication
        pairs.append(("steps", "; ".join(str(step) for step in provenance["steps"])))
    if benchmark.get("option_kind"):
        pairs.append(("options", str(benchmark["option_kind"]).replace("_", " ")))
    if benchmark.get("labels"):
        pairs.append(("labels", ", ".join(str(label) for label in benchmark["labels"])))
    if benchmark.get("option_counts"):
        counts = ", ".join(f"{k} options: {v} items" for k, v in benchmark["option_counts"].items())
        pairs.append(("option counts", counts))
    return Facts(tuple(pairs))


def summary_sections(summary: BenchmarkSummary) -> tuple[Section, ...]:
    """The gold-answer histogram with its uniformity test, the majority baseline, lengths, named fields, and the
    rows read, kept and rejected.

    Example:
        >>> from pfungst.data import Benchmark, Item
        >>> from pfungst.data.summary import summarize
        >>> summary = summarize(Benchmark("toy", [Item(str(i), "q", ("x", "y"), i % 2) for i in range(4)]))
        >>> [section.title for section in summary_sections(summary)]
        ['Gold answers']
    """
    counts = summary.gold_counts
    total = sum(counts.values())
    rows = tuple((str(key), str(count), f"{count / total:.1%}" if total else "n/a") for key, count in counts.items())
    what = f"{OptionKind.named(summary.benchmark.get('option_kind', OptionKind.PER_ITEM)).gold_unit}s"
    blocks: list[Block] = [
        Table(f"Histogram of gold {what}", ("gold", "items", "share"), rows),
        Figure(
            "bars",
            "Gold answers per position or label",
            {"labels": list(counts), "values": list(counts.values()), "axis": "items"},
        ),
        Table(
            "Tests",
            ESTIMATE_COLUMNS,
            (
                estimate_row("gold uniformity (chi-squared)", summary.gold_uniformity),
                estimate_row("majority answer share", summary.majority),
            ),
            note=methods_note([summary.gold_uniformity, summary.majority]),
        ),
    ]
    lengths = _length_table(summary)
    if lengths is not None:
        blocks.append(lengths)
    if summary.field_names:
        blocks.append(
            Table(
                "Named fields",
                ("field", "items"),
                tuple((str(k), format_number(v)) for k, v in summary.field_names.items()),
            )
        )
    blocks += _rows_blocks(summary.benchmark.get("provenance") or {})
    return (Section("Gold answers", tuple(blocks), level=3),)


def _length_table(summary: BenchmarkSummary) -> Table | None:
    """Question and option lengths; None for a summary that holds none (written before they were recorded)."""
    lengths = (
        ("question characters", summary.text_chars),
        ("question words", summary.text_words),
        ("option characters", summary.option_chars),
    )
    if not any(stats.maximum for _, stats in lengths):
        return None
    return Table(
        "Lengths",
        ("length", "mean", "median", "min", "max"),
        tuple(
            (
                name,
                format_number(s.mean, 1),
                format_number(s.median, 1),
                format_number(s.minimum),
                format_number(s.maximum),
            )
            for name, s in lengths
        ),
    )


def _rows_blocks(provenance: Mapping[str, Any], shown: int = 10) -> list[Block]:
    """Rows read, kept and rejected, duplicates, and the first rejections and warnings, in words."""
    if not provenance:
        return []
    blocks: list[Block] = [
        Text(
            f"rows read {format_number(provenance.get('rows_read'))}, kept {format_number(provenance.get('rows_kept'))}"
            f", rejected {format_number(provenance.get('rows_rejected'))}; duplicate texts "
            f"{format_number(provenance.get('duplicate_texts'))} "
            f"({format_number(provenance.get('conflicting_duplicates'))} with a different answer); duplicate ids "
            f"{format_number(provenance.get('duplicate_ids'))}"
        )
    ]
    for what, entries in (
        ("rejected", provenance.get("rejected") or []),
        ("warning", provenance.get("warnings") or []),
    ):
        texts = [str(entry.get("reason")) if isinstance(entry, Mapping) else str(entry) for entry in entries]
        blocks += [Text(f"{what}: {text}", tone="bad") for text in texts[:shown]]
        if len(texts) > shown:
            blocks.append(Text(f"... and {len(texts) - shown} more ({what})", tone="bad"))
    return blocks
