"""``load``: read any supported source into a :class:`Benchmark`, detecting the format when it is unambiguous."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import OnError, ReadOptions
from pfungst.data.readers import GENERIC_READERS, READERS, get_reader
from pfungst.errors import ConfigError, DataError

__all__ = ["detect_format", "load"]

_GENERIC_BY_SUFFIX = {
    ".jsonl": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def load(
    source: str | Path,
    format: str | None = None,
    *,
    on_error: OnError = "raise",
    strict: bool = False,
    name: str = "",
    **mapping: Any,
) -> Benchmark:
    """Read a benchmark from a file, a directory or a Hugging Face dataset name.

    Args:
        source: Path to a file or directory, or a Hugging Face hub name (with ``format="huggingface"``).
        format: A reader name from ``pfungst formats``; detected from the content when omitted.
        on_error: ``"raise"`` (default) stops at the first malformed row; ``"skip"`` rejects it, records the
            reason in ``benchmark.provenance.rejected`` and goes on.
        strict: Also raise on problems that are only warnings by default (duplicate options in an item).
        name: Name of the benchmark in reports; default: derived from the path.
        **mapping: Reader settings, e.g. ``question="stem", option_columns="A,B,C,D", answer="key"`` for the
            generic table readers (see each reader's documentation).

    Raises:
        ReaderError: the source is malformed (the message names file, line and field).
        DataError: the source does not exist or its format cannot be determined.
        ConfigError: unknown format or mapping key.

    Example:
        >>> import pfungst, tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.jsonl"
        >>> _ = path.write_text('{"question": "2+2=", "choices": ["3", "4"], "answer": 1}\\n')
        >>> pfungst.load(path, format="jsonl")[0].answer
        '4'
    """
    options = ReadOptions(on_error=on_error, strict=strict, name=name, mapping=mapping)
    if format is None:
        format = detect_format(source, has_mapping=bool(mapping))
    reader = get_reader(format)
    path = Path(source)
    if format != "huggingface" and not path.exists():
        raise DataError(f"{source}: no such file or directory")
    return reader.read(path, options)


def detect_format(source: str | Path, has_mapping: bool = False) -> str:
    """The one reader whose ``sniff`` claims ``source``; failing that, with a mapping, the generic one for its suffix.

    Raises:
        DataError: the path does not exist, or no reader (or several) claims it.
    """
    path = Path(source)
    if not path.exists():
        raise DataError(
            f"{source}: no such file or directory. For a Hugging Face hub dataset pass --format huggingface"
        )
    claims = [name for name in READERS if name not in GENERIC_READERS and get_reader(name).sniff(path)]
    if len(claims) == 1:
        return claims[0]  # reader settings in a mapping (subset=, language=) are checked by the reader
    if has_mapping:
        return _generic_for(path)
    if len(claims) > 1:
        raise DataError(f"{source}: the format is ambiguous (it could be {', '.join(claims)}). Pass --format NAME")
    raise DataError(
        f"{source}: the format could not be detected. Pass --format NAME (see `pfungst formats`), or a column "
        "mapping such as --map question=COLUMN --map options=COLUMN --map answer=COLUMN"
    )


def _generic_for(path: Path) -> str:
    if path.is_dir():
        return "huggingface"
    suffixes = [s for s in path.suffixes if s != ".gz"]
    generic = _GENERIC_BY_SUFFIX.get(suffixes[-1] if suffixes else "")
    if generic is None:
        raise ConfigError(f"{path}: cannot tell the table format from the suffix. Pass --format jsonl|csv|tsv|parquet")
    return generic
