"""Load benchmarks: the data model (:class:`Item`, :class:`Benchmark`) and one reader per source format."""

from pfungst.data.benchmark import Benchmark, OptionKind, Provenance, Rejection
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.item import FrozenMapping, Item
from pfungst.data.loading import detect_format, load
from pfungst.data.readers import READERS, Reader, get_reader

__all__ = [
    "READERS",
    "Benchmark",
    "BenchmarkBuilder",
    "FrozenMapping",
    "Item",
    "OptionKind",
    "Provenance",
    "ReadOptions",
    "Reader",
    "Rejection",
    "detect_format",
    "get_reader",
    "load",
]
