"""``load``: read any supported source into a :class:`Benchmark`, detecting the reader when it is unambiguous.

Detection asks every specific reader whether it claims the file (``sniff``); when none does and no column mapping is
given, a JSON Lines, CSV, TSV or Parquet table in a common layout (:data:`~pfungst.data.layout_catalog.LAYOUTS`:
published benchmarks' columns such as HellaSwag's ``ctx``/``endings``/``label`` or SciQ's, and plain tables with
``question`` and a list of options or one column per option) goes to the generic reader for its suffix, which maps
that layout. A table that fits none is an error that lists its columns and the ``--map`` line most likely to work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import OnError, ReadOptions
from pfungst.data.mapping_hint import mapping_hint
from pfungst.data.readers import GENERIC_READERS, READERS, get_reader
from pfungst.data.readers.sniffing import DETECTION_WINDOW, first_line_exceeds_head
from pfungst.data.records import read_text
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
    reader: str | None = None,
    *,
    on_error: OnError = "raise",
    strict: bool = False,
    name: str = "",
    **mapping: Any,
) -> Benchmark:
    """Read a benchmark from a file, a directory or a Hugging Face dataset name.

    Args:
        source: Path to a file or directory, or a Hugging Face hub name (with ``reader="huggingface"``).
        reader: A reader name from ``pfungst formats``; detected from the content when omitted.
        on_error: ``"raise"`` (default) stops at the first malformed row; ``"skip"`` rejects it, records the
            reason in ``benchmark.provenance.rejected`` and goes on.
        strict: Also raise on problems that are only warnings by default (duplicate options in an item).
        name: Name of the benchmark in reports; default: derived from the path.
        **mapping: Reader settings, e.g. ``question="stem", option_columns="A,B,C,D", answer="key"`` for the
            generic table readers (see each reader's documentation).

    Raises:
        ReaderError: the source is malformed (the message names file, line and field).
        DataError: the source does not exist or its format cannot be determined.
        ConfigError: unknown reader or mapping key.

    Example:
        >>> import pfungst, tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.jsonl"
        >>> _ = path.write_text('{"question": "2+2=", "choices": ["3", "4"], "answer": 1}\\n')
        >>> pfungst.load(path, reader="jsonl")[0].answer
        '4'
    """
    options = ReadOptions(on_error=on_error, strict=strict, name=name, mapping=mapping)
    if reader is None:
        reader = detect_format(source, has_mapping=bool(mapping))
    path = Path(source)
    if reader != "huggingface" and not path.exists():
        raise DataError(f"{source}: no such file or directory")
    return get_reader(reader).read(path, options)


def detect_format(source: str | Path, has_mapping: bool = False) -> str:
    """The name of the reader for ``source``: the one specific reader whose ``sniff`` claims it; failing that, the
    generic table reader for its suffix, given a mapping or a table in a common layout.

    Raises:
        DataError: the path does not exist, or no reader (or several) claims it.
        ReaderError: a ``.gz`` file no reader claims is truncated or corrupt.
    """
    path = Path(source)
    if not path.exists():
        raise DataError(
            f"{source}: no such file or directory. For a Hugging Face hub dataset pass --reader huggingface"
        )
    claims = [
        name
        for name in READERS
        if name not in GENERIC_READERS and READERS.skip_if_broken(name, "sniff", _sniff, name, path)
    ]
    if len(claims) == 1:
        return claims[0]  # reader settings in a mapping (subset=, language=) are checked by the reader
    if has_mapping:
        return _generic_for(path)
    if len(claims) > 1:
        raise DataError(f"{source}: the format is ambiguous (it could be {', '.join(claims)}). Pass --reader NAME")
    generic = next((name for name in GENERIC_READERS if get_reader(name).sniff(path)), None)
    if generic is not None:
        return generic
    if path.suffix == ".gz" and path.is_file():
        read_text(path)  # a truncated or corrupt .gz hides its format: say that, not "could not be detected"
    if first_line_exceeds_head(path):
        raise DataError(
            f"{source}: the first record is larger than the format detection window "
            f"({DETECTION_WINDOW // 1024} KiB), so the format could not be detected."
            " Pass --reader NAME (see `pfungst formats`)"
        )
    hint = _table_hint(path)
    if hint:
        raise DataError(
            f"{source}: the format could not be detected: {hint}Or pass --reader NAME (see `pfungst formats`)"
        )
    raise DataError(
        f"{source}: the format could not be detected. Pass --reader NAME (see `pfungst formats`), or a column "
        "mapping such as --map question=COLUMN --map options=COLUMN --map answer=COLUMN"
    )


def _table_hint(path: Path) -> str:
    """For a table no layout fits: its columns and the ``--map`` line most likely to read it; '' for other files."""
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    generic = _GENERIC_BY_SUFFIX.get(suffixes[-1] if suffixes else "")
    if generic is None or not path.is_file():
        return ""
    reader = get_reader(generic)
    rows = reader.first_rows(path) if hasattr(reader, "first_rows") else []
    return mapping_hint(rows)


def _sniff(name: str, path: Path) -> bool:
    """Whether reader ``name`` claims ``path`` (the caller skips, with a warning, a plugin whose sniff raises)."""
    return bool(get_reader(name).sniff(path))


def _generic_for(path: Path) -> str:
    if path.is_dir():
        return "huggingface"
    suffixes = [s for s in path.suffixes if s != ".gz"]
    generic = _GENERIC_BY_SUFFIX.get(suffixes[-1] if suffixes else "")
    if generic is None:
        raise ConfigError(f"{path}: cannot tell the table format from the suffix. Pass --reader jsonl|csv|tsv|parquet")
    return generic
