"""``summarize``: what a benchmark holds, before any audit (``pfungst inspect``).

Counts and histograms, with the two tests a reader of them needs at once: is the gold answer spread evenly over
positions (or labels), and how far does always guessing the most frequent answer get.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from pfungst.blocks import Section, format_estimate
from pfungst.data.benchmark import Benchmark
from pfungst.data.item_checks import check_items
from pfungst.data.item_findings import ItemFindings
from pfungst.data.item_findings_blocks import item_findings_section
from pfungst.data.option_kind import position_name
from pfungst.data.summary_sections import benchmark_chapter, summary_sections
from pfungst.display import NotebookDisplay
from pfungst.provenance import Provenance
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields
from pfungst.serialization import write_json
from pfungst.stats import Estimate, chisquare_test, wilson_interval

__all__ = ["BenchmarkSummary", "LengthStats", "summarize"]


_NO_FINDINGS = ItemFindings((), 0, 0.8, 0)
"""The findings of a summary made without them (none examined)."""


@dataclass(frozen=True)
class LengthStats:
    """Distribution of a length (characters or words) over items."""

    mean: float
    median: float
    minimum: int
    maximum: int

    @classmethod
    def of(cls, values: Sequence[int]) -> LengthStats:
        if not values:
            return cls(0.0, 0.0, 0, 0)
        return cls(float(statistics.fmean(values)), float(statistics.median(values)), min(values), max(values))

    def to_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "median": self.median, "min": self.minimum, "max": self.maximum}

    @classmethod
    def from_fields(cls, fields: Fields) -> LengthStats:
        """Read :meth:`to_dict` back, checking each value's type."""
        return cls(fields.number("mean"), fields.number("median"), fields.integer("min"), fields.integer("max"))


@dataclass(frozen=True)
class BenchmarkSummary(NotebookDisplay):
    """A benchmark's shape: sizes, histograms, lengths, duplicates, and provenance."""

    benchmark: dict[str, Any]
    """``Benchmark.to_dict()``: name, kind, labels, option counts and provenance."""
    gold_counts: dict[str, int]
    """Gold answers per label (shared labels) or per position letter ``A``, ``B``, ... (per-item choices)."""
    gold_uniformity: Estimate
    """Chi-squared test that gold answers are spread evenly (over each item's own positions, or over labels)."""
    majority: Estimate
    """Share of items whose gold is the most frequent label / position (Wilson interval); baseline = 1/K."""
    text_chars: LengthStats
    text_words: LengthStats
    option_chars: LengthStats
    """Option lengths in characters (per-item choices; zeros for shared labels)."""
    provenance: Provenance
    """The data file it summarises (:attr:`Provenance.data`), the software that read it; no settings, no seed."""
    field_names: dict[str, int] = field(default_factory=dict)
    """Named fields present, with the number of items that have each."""
    item_findings: ItemFindings = field(default_factory=lambda: _NO_FINDINGS)
    """Duplicates and broken items, each with its count, share and item ids (:func:`~pfungst.data.check_items`)."""
    KIND: ClassVar[str] = "summary"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = SCHEMA_VERSIONS["summary"]
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "data"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    def sections(self) -> tuple[Section, ...]:
        """Its chapter: the benchmark's facts, then the gold answers, lengths and rows read (computes nothing)."""
        return (
            benchmark_chapter(self.benchmark, self.provenance.data),
            *summary_sections(self),
            item_findings_section(self.item_findings),
        )

    def overview(self) -> Overview:
        """Its board row: the benchmark inspected, its majority answer share."""
        headline = f"majority answer share {format_estimate(self.majority)}"
        name = str(self.benchmark.get("name", "?"))
        return Overview(self.benchmark, "", headline, ((name, "(data)", "inspected", headline, "info"),))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> BenchmarkSummary:
        """Read :meth:`to_dict` back, every value's type checked.

        Raises:
            ReaderError: a value of the wrong type or a missing key, naming ``source`` and the field.

        Example:
            >>> from pfungst.data import Benchmark, Item
            >>> summary = summarize(Benchmark("toy", [Item("a", "q", ("x", "y"), 0)]))
            >>> BenchmarkSummary.from_dict(summary.to_dict()).to_dict() == summary.to_dict()
            True
        """
        fields = Fields(data, source)
        fields.check_schema(cls.SCHEMA_VERSION)
        return cls(
            benchmark=fields.benchmark(),
            gold_counts=fields.typed("gold_counts", dict[str, int]),
            gold_uniformity=fields.estimate("gold_uniformity"),
            majority=fields.estimate("majority"),
            text_chars=LengthStats.from_fields(fields.sub("text_chars")),
            text_words=LengthStats.from_fields(fields.sub("text_words")),
            option_chars=LengthStats.from_fields(fields.sub("option_chars")),
            provenance=Provenance.from_fields(fields.sub("provenance")),
            field_names=fields.typed("field_names", dict[str, int]),
            item_findings=ItemFindings.from_fields(fields.sub("item_findings")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.SCHEMA_VERSION,
            "kind": self.KIND,
            "benchmark": self.benchmark,
            "gold_counts": self.gold_counts,
            "gold_uniformity": self.gold_uniformity.to_dict(),
            "majority": self.majority.to_dict(),
            "text_chars": self.text_chars.to_dict(),
            "text_words": self.text_words.to_dict(),
            "option_chars": self.option_chars.to_dict(),
            "field_names": self.field_names,
            "provenance": self.provenance.to_dict(),
            "item_findings": self.item_findings.to_dict(),
        }

    def histograms_frame(self) -> pd.DataFrame:
        """Tidy histograms: one row per (histogram, key) with its count."""
        rows = [("gold", key, count) for key, count in self.gold_counts.items()]
        rows += [("options_per_item", key, count) for key, count in self.benchmark.get("option_counts", {}).items()]
        return pd.DataFrame(rows, columns=["histogram", "key", "count"])

    def save_json(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as JSON to ``path`` (atomically, folders created) and return it."""
        return write_json(path, self.to_dict())

    def __repr__(self) -> str:
        return f"BenchmarkSummary(name={self.benchmark.get('name')!r}, items={self.benchmark.get('n_items')})"


def summarize(benchmark: Benchmark, *, near_duplicate_threshold: float = 0.8, seed: int = 0) -> BenchmarkSummary:
    """Describe ``benchmark``: histograms, lengths, a gold-uniformity test, the majority baseline, and the item
    findings (duplicates and broken items with their ids, near-duplicates at ``near_duplicate_threshold`` with the
    MinHash ``seed``: :func:`~pfungst.data.item_checks.check_items`).

    Example:
        >>> from pfungst.data import Benchmark, Item
        >>> b = Benchmark("toy", [Item(str(i), "q", ("x", "y"), i % 2) for i in range(10)])
        >>> summarize(b).gold_counts
        {'A': 5, 'B': 5}
    """
    gold_counts, expected = _gold_histogram(benchmark)
    top = max(gold_counts.values(), default=0)
    n = len(benchmark)
    what = "gold positions uniform" if benchmark.option_kind.has_positions else "gold labels equally frequent"
    majority = Estimate(
        value=top / n if n else 0.0,
        method="share of the most frequent gold answer (Wilson 95% interval)",
        n=n,
        ci=wilson_interval(top, n),
        baseline=1 / len(gold_counts) if gold_counts else float("nan"),
    )
    fields = Counter(name for item in benchmark for name in item.fields)
    option_lengths = [len(o) for item in benchmark for o in item.options] if benchmark.option_kind.has_positions else []
    return BenchmarkSummary(
        benchmark=benchmark.to_dict(),
        gold_counts=gold_counts,
        gold_uniformity=chisquare_test(list(gold_counts.values()), expected, what),
        majority=majority,
        text_chars=LengthStats.of([len(item.text) for item in benchmark]),
        text_words=LengthStats.of([len(item.text.split()) for item in benchmark]),
        option_chars=LengthStats.of(option_lengths),
        provenance=Provenance.current({}, None, data=(benchmark.provenance,)),
        field_names=dict(fields),
        item_findings=check_items(benchmark, near_duplicate_threshold=near_duplicate_threshold, seed=seed),
    )


def _gold_histogram(benchmark: Benchmark) -> tuple[dict[str, int], list[float]]:
    """Observed gold counts and the counts expected if every item's gold were uniform over its own options."""
    if not benchmark.option_kind.has_positions:
        counts = benchmark.gold_counts
        return counts, [1.0] * len(counts)
    width = max(benchmark.option_counts, default=0)
    observed = Counter(item.gold for item in benchmark)
    expected = [sum(1 / item.n_options for item in benchmark if item.n_options > k) for k in range(width)]
    return {position_name(k): observed.get(k, 0) for k in range(width)}, expected
