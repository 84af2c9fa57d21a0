"""Load benchmarks: the data model (:class:`Item`, :class:`Benchmark`) and one reader per source format."""

from pfungst.data.benchmark import Benchmark, OptionKind, Provenance, Rejection
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.item import FrozenMapping, Item
from pfungst.data.loading import detect_format, load
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
    "FrozenMapping",
    "Item",
    "ModelAnswer",
    "ModelAnswers",
    "OptionKind",
    "Provenance",
    "ReadOptions",
    "Reader",
    "Rejection",
    "detect_format",
    "get_reader",
    "load",
    "make_synthetic",
    "read_model_answers",
    "summarize",
]
