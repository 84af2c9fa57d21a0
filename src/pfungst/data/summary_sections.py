"""Sections of a benchmark's summary (``pfungst inspect``): what :meth:`BenchmarkSummary.sections` renders.

Each function takes a result object and returns :class:`~pfungst.blocks.Section` objects, which the HTML, Markdown
and JSON reports and the console all render. Nothing is computed: every figure is read from the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from pfungst.provenance import DataSource

if TYPE_CHECKING:
    from pfungst.data.summary import BenchmarkSummary

__all__ = ["benchmark_chapter", "benchmark_facts", "summary_sections"]


def benchmark_chapter(benchmark: Mapping[str, Any], data: Sequence[DataSource] = ()) -> Section:
    """The chapter that opens a benchmark's results: its name and facts (a summary and an audit of it share it);
    ``data`` is the result's :attr:`Provenance.data <pfungst.provenance.Provenance.data>`."""
    return Section(f"Benchmark: {benchmark.get('name', '?')}", (benchmark_facts(benchmark, data),))


def benchmark_facts(benchmark: Mapping[str, Any], data: Sequence[DataSource] = ()) -> Facts:
    """Name, size, option kind, labels and option counts of a ``Benchmark.to_dict()``; the reader, layout and steps of
    the data files in ``data``.

    Example:
        >>> benchmark_facts({"name": "toy", "n_items": 4, "option_kind": "per_item"}).pairs[:2]
        (('benchmark', 'toy'), ('items', '4'))
    """
    pairs = [("benchmark", str(benchmark.get("name", "?"))), ("items", format_number(benchmark.get("n_items")))]
    for source in data:
        if source.format:
            pairs.append(("read as", source.format))
        if source.layout:  # a table mapped by a common layout
            pairs.append(("layout", source.layout))
        if source.steps:  # e.g. a sample (--max-items), de-duplication
            pairs.append(("steps", "; ".join(source.steps)))
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
    for source in summary.provenance.data:
        blocks += _rows_blocks(source)
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


def _rows_blocks(source: DataSource, shown: int = 10) -> list[Block]:
    """Rows read, kept and rejected, duplicates, and the first rejections and warnings, in words."""
    blocks: list[Block] = [
        Text(
            f"rows read {format_number(source.rows_read)}, kept {format_number(source.rows_kept)}, rejected "
            f"{format_number(source.rows_rejected)}; duplicate texts {format_number(source.duplicate_texts)} "
            f"({format_number(source.conflicting_duplicates)} with a different answer); duplicate ids "
            f"{format_number(source.duplicate_ids)}"
        )
    ]
    for what, texts in (("rejected", [entry.reason for entry in source.rejected]), ("warning", list(source.warnings))):
        blocks += [Text(f"{what}: {text}", tone="bad") for text in texts[:shown]]
        if len(texts) > shown:
            blocks.append(Text(f"... and {len(texts) - shown} more ({what})", tone="bad"))
    return blocks
