"""Readers: one module per source format, one registry line each.

A reader is anything with a ``name``, a one-line ``description``, ``sniff(path) -> bool`` (is this file surely
mine?) and ``read(path, options) -> Benchmark``. To add one: write ``readers/<format>.py`` with a class that
satisfies :class:`Reader`, and add one line to :data:`READERS`. Registration is lazy (``"module:Class"``), so an
unused reader costs no import. An installed package adds a reader with an entry point in the group
``pfungst.readers`` naming its reader class (built with no arguments); a plugin reader takes part in auto-detection
by its ``sniff``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import ReadOptions
from pfungst.registry import Registry

__all__ = ["GENERIC_READERS", "READERS", "Reader", "get_reader"]


@runtime_checkable
class Reader(Protocol):
    """Reads one source format into a :class:`Benchmark`."""

    name: str
    """Registry name, as given to ``--format``."""
    description: str
    """One line for ``pfungst formats``."""

    def sniff(self, path: Path) -> bool:
        """True when ``path`` is unmistakably in this format (used for auto-detection; cheap, never raises)."""
        ...

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        """Read ``path``; raises :class:`~pfungst.errors.ReaderError` naming file, line and field."""
        ...


# Order matters for auto-detection only in that the generic readers come last: they never claim a file by
# sniffing alone, they are chosen by name or when a column mapping is given.
READERS: Registry[type[Reader]] = Registry(
    "format",
    {
        "pfungst": "pfungst.data.readers.native:NativeReader",
        "mmlu": "pfungst.data.readers.mmlu:MmluReader",
        "arc": "pfungst.data.readers.arc:ArcReader",
        "csqa": "pfungst.data.readers.csqa:CommonsenseQaReader",
        "csqa2": "pfungst.data.readers.csqa2:CommonsenseQa2Reader",
        "llm-foundry": "pfungst.data.readers.llm_foundry:LlmFoundryReader",
        "kinds-of-reasoning": "pfungst.data.readers.kinds_of_reasoning:KindsOfReasoningReader",
        "openai-evals": "pfungst.data.readers.openai_evals:OpenAIEvalsReader",
        "bigbench": "pfungst.data.readers.bigbench:BigBenchReader",
        "arct": "pfungst.data.readers.arct:ArctReader",
        "mnli": "pfungst.data.readers.nli:MnliReader",
        "snli": "pfungst.data.readers.nli:SnliReader",
        "legalbench": "pfungst.data.readers.legalbench:LegalBenchReader",
        "cladder": "pfungst.data.readers.cladder:CLadderReader",
        "prontoqa": "pfungst.data.readers.prontoqa:ProntoQaReader",
        "neubaroco": "pfungst.data.readers.neubaroco:NeuBarocoReader",
        "truthfulqa": "pfungst.data.readers.truthfulqa:TruthfulQaReader",
        "copa": "pfungst.data.readers.copa:CopaReader",
        "jsonl": "pfungst.data.readers.table:JsonlTableReader",
        "csv": "pfungst.data.readers.table:CsvTableReader",
        "tsv": "pfungst.data.readers.table:TsvTableReader",
        "parquet": "pfungst.data.readers.table:ParquetTableReader",
        "huggingface": "pfungst.data.readers.huggingface:HuggingFaceReader",
    },
    group="pfungst.readers",
)
"""Reader name -> ``"module:Class"``; installed packages add theirs through the ``pfungst.readers`` entry points."""

GENERIC_READERS: tuple[str, ...] = ("jsonl", "csv", "tsv", "parquet")
"""Readers that need a column mapping and are never chosen by sniffing alone (huggingface sniffs saved folders)."""


def get_reader(name: str) -> Reader:
    """The reader registered as ``name``.

    Raises:
        ConfigError: no reader has that name (the message lists close matches and all names).
        MissingDependency: the reader's module needs a package that is not installed.
        PluginError: the installed package that registered ``name`` failed to import or build it.
    """
    reader: Reader = READERS.create(name)
    return reader
