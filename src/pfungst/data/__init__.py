"""Load benchmarks: the data model (:class:`Item`, :class:`Benchmark`) and one reader per source format."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.lazy import lazy_exports

if TYPE_CHECKING:
    from pfungst.data.benchmark import Benchmark, DataSource, Rejection
    from pfungst.data.builder import BenchmarkBuilder, ReadOptions
    from pfungst.data.item import FrozenMapping, Item
    from pfungst.data.item_checks import check_items
    from pfungst.data.item_findings import ItemFinding, ItemFindings
    from pfungst.data.loading import detect_format, load
    from pfungst.data.option_kind import OptionKind
    from pfungst.data.readers import READERS, Reader, get_reader
    from pfungst.data.readers.openai_evals import ModelAnswer, ModelAnswers, read_model_answers
    from pfungst.data.summary import BenchmarkSummary, summarize
    from pfungst.data.synthetic import SYNTHETIC, make_synthetic

__all__ = [
    "READERS",
    "SYNTHETIC",
    "Benchmark",
    "BenchmarkBuilder",
    "BenchmarkSummary",
    "DataSource",
    "FrozenMapping",
    "Item",
    "ItemFinding",
    "ItemFindings",
    "ModelAnswer",
    "ModelAnswers",
    "OptionKind",
    "ReadOptions",
    "Reader",
    "Rejection",
    "check_items",
    "detect_format",
    "get_reader",
    "load",
    "make_synthetic",
    "read_model_answers",
    "summarize",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Benchmark": "pfungst.data.benchmark",
        "OptionKind": "pfungst.data.option_kind",
        "DataSource": "pfungst.data.benchmark",
        "Rejection": "pfungst.data.benchmark",
        "BenchmarkBuilder": "pfungst.data.builder",
        "ReadOptions": "pfungst.data.builder",
        "FrozenMapping": "pfungst.data.item",
        "Item": "pfungst.data.item",
        "check_items": "pfungst.data.item_checks",
        "ItemFinding": "pfungst.data.item_findings",
        "ItemFindings": "pfungst.data.item_findings",
        "detect_format": "pfungst.data.loading",
        "load": "pfungst.data.loading",
        "READERS": "pfungst.data.readers",
        "Reader": "pfungst.data.readers",
        "get_reader": "pfungst.data.readers",
        "ModelAnswer": "pfungst.data.readers.openai_evals",
        "ModelAnswers": "pfungst.data.readers.openai_evals",
        "read_model_answers": "pfungst.data.readers.openai_evals",
        "BenchmarkSummary": "pfungst.data.summary",
        "summarize": "pfungst.data.summary",
        "SYNTHETIC": "pfungst.data.synthetic",
        "make_synthetic": "pfungst.data.synthetic",
    },
    globals(),
)
