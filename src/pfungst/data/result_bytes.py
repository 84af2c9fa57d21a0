"""The bytes of a result file as written: a gzip-compressed result (``gzip result.json``) is inflated, within bounds.
Every reader of result files goes through it: ``pfungst report`` (:mod:`pfungst.report.loading`) and ``pfungst
reliance`` (its audits, and the score and stress results it reads as outcomes).

A result file starting with gzip's magic number (``1f 8b``), whatever its name, is decompressed as a stream and
refused once it inflates past :data:`MAX_INFLATED_BYTES` (a small file that inflates to gigabytes is a
decompression bomb, not a result); a truncated or corrupt stream is a :class:`~pfungst.errors.ReaderError` naming
the file. Any other file is read as it is (``--json result.json.gz`` writes gzip data, so both forms occur). The JSON
parser after it bounds the nesting depth (:func:`pfungst.data.records.parse_json`).
"""

from __future__ import annotations

from pathlib import Path

from pfungst.data.records import gunzip

__all__ = ["GZIP_MAGIC", "MAX_INFLATED_BYTES", "result_bytes"]

GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of every gzip file."""
MAX_INFLATED_BYTES = 1024 * 1024 * 1024
"""The most bytes a gzip-compressed result may inflate to (1 GiB: per-item stress results of 100,000 items stay far
below; the result is parsed and held in memory whole)."""
_HINT = "Copy the file again, or pass it uncompressed (gunzip it)"


def result_bytes(path: Path, raw: bytes, *, max_bytes: int | None = None) -> bytes:
    """``raw`` (the bytes of ``path``), inflated when it is gzip data, to at most ``max_bytes`` (default
    :data:`MAX_INFLATED_BYTES`).

    Raises:
        ReaderError: gzip data that is truncated, corrupt, or inflates past ``max_bytes``.

    Example:
        >>> import gzip
        >>> result_bytes(Path("r.json.gz"), gzip.compress(b'{"kind": "audit"}'))
        b'{"kind": "audit"}'
    """
    if not raw.startswith(GZIP_MAGIC):
        return raw
    return gunzip(path, raw, max_bytes=MAX_INFLATED_BYTES if max_bytes is None else max_bytes, hint=_HINT)
