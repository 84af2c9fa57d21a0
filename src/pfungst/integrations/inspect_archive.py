"""The JSON members of an inspect ``.eval`` archive, read with bounds: a log is a file someone handed over.

An ``.eval`` log is a zip archive whose members are compressed with Zstandard (method 93, read with the
``zstandard`` package from the member's raw bytes, since the standard library cannot before Python 3.14) or with
the zip methods the standard library reads. Each member is decompressed as a stream and refused once it inflates
past its limit: :data:`MAX_MEMBER_BYTES` at most, and no more than :data:`MAX_RATIO` times its compressed size once
past :data:`RATIO_FLOOR` (a 227 KB member that inflates to 6 GiB is a decompression bomb, not a log). All the
members of one archive together may inflate to :data:`MAX_TOTAL_BYTES` (an :class:`InflateTotal` counts them), so
that many members each within their own limit cannot add up to a bomb. A corrupt archive or member, and JSON
nested too deep, are :class:`~pfungst.errors.ReaderError` naming the file and the member.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import IO, Any

from pfungst.data.records import json_value
from pfungst.errors import MissingDependency, ReaderError

__all__ = ["MAX_MEMBER_BYTES", "MAX_RATIO", "MAX_TOTAL_BYTES", "RATIO_FLOOR", "InflateTotal", "read_member"]

MAX_MEMBER_BYTES = 512 * 1024 * 1024
"""The most bytes one member may inflate to (512 MiB; inspect writes one member per sample, far smaller)."""
MAX_RATIO = 1000
"""The most a member past :data:`RATIO_FLOOR` may inflate, as a multiple of its compressed size (JSON compresses
about 5 to 50 times)."""
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024
"""The most bytes all the members of one archive may inflate to together (2 GiB). Every sample is parsed and held
in memory, several times its JSON size as Python objects, so a log past this would not fit a workstation anyway;
without it, 10,000 members each just under :data:`RATIO_FLOOR` would inflate to 160 GB."""
RATIO_FLOOR = 16 * 1024 * 1024
"""Members up to this size (16 MiB) may inflate by any ratio: a small, very repetitive member is no threat."""
_ZSTD = 93
_CHUNK = 1024 * 1024
_HINT = "The archive is damaged or not a log inspect wrote; convert a good copy with: inspect log convert --to json"
_ENCRYPTED = 0x1
"""The general-purpose flag bit of an encrypted zip member."""

_CORRUPT = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    OSError,
    EOFError,
    ValueError,
    struct.error,
    NotImplementedError,
    KeyError,
)
"""What the standard library raises for a damaged archive or member (a bad CRC, a truncated or unknown method)."""


class InflateTotal:
    """The bytes the members of one archive have inflated to so far, against the limit for all of them."""

    def __init__(self, path: Any, limit: int = MAX_TOTAL_BYTES) -> None:
        self.path = path
        self.limit = limit
        self.used = 0

    def check(self, name: str, member_bytes: int) -> None:
        """Refuse once the members read plus ``member_bytes`` of member ``name`` pass the limit."""
        if self.used + member_bytes > self.limit:
            raise ReaderError(
                self.path,
                0,
                name,
                f"the archive's members inflate past {self.limit:,} bytes in all: refusing (a decompression bomb?)",
                "Check where the log came from; to read a log this large, raise --max-total-mib (pfungst inspect-log) "
                "or max_total_bytes= (read_inspect_log)",
            )


def read_member(
    path: Any,
    archive: zipfile.ZipFile,
    name: str,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    total: InflateTotal | None = None,
) -> Any:
    """One member parsed as JSON, decompressed within its limit (and, given ``total``, the archive's).

    Args:
        path: The archive's file, for messages.
        archive: The open archive.
        name: The member (``header.json``, ``samples/1_epoch_1.json``).
        max_member_bytes: The most bytes the member may inflate to (default :data:`MAX_MEMBER_BYTES`).
        total: What the archive's members inflated to so far; this member's bytes are added to it.

    Raises:
        ReaderError: the member is corrupt, inflates past its limit or the archive's, or is not JSON (nested too
            deep included).
        MissingDependency: a Zstandard member and no ``zstandard`` package.
    """
    where = f"{path}: member {name}"
    total = total or InflateTotal(path)
    try:
        info = archive.getinfo(name)
        if info.flag_bits & _ENCRYPTED:  # zipfile would ask for a password (RuntimeError)
            raise ReaderError(path, 0, name, "encrypted member: inspect writes no encrypted logs", _HINT)
        limit = _limit(info, max_member_bytes)
        if info.compress_type == _ZSTD:
            data = _inflate(name, _zstd_stream(path, archive, info), limit, info.compress_size, total)
        else:
            with archive.open(info) as stream:
                data = _inflate(name, stream, limit, info.compress_size, total)
        total.used += len(data)
    except (ReaderError, MissingDependency):
        raise
    except _CORRUPT as exc:
        raise ReaderError(path, 0, name, f"corrupt member ({type(exc).__name__}: {exc})", _HINT) from None
    except Exception as exc:
        if type(exc).__name__ != "ZstdError":  # zstandard is imported only when a member needs it
            raise
        raise ReaderError(path, 0, name, f"corrupt Zstandard data ({exc})", _HINT) from None
    return json_value(data, where, field=name, hint="Pass a log that inspect wrote")


def _limit(info: zipfile.ZipInfo, max_member_bytes: int) -> int:
    return min(max_member_bytes, max(RATIO_FLOOR, MAX_RATIO * info.compress_size))


def _inflate(name: str, stream: IO[bytes], limit: int, compressed: int, total: InflateTotal) -> bytes:
    """Read member ``name``'s ``stream`` to its end, refusing to hold more than ``limit`` bytes, or more than
    ``total`` allows."""
    where = f"{total.path}: member {name}"
    buffer = bytearray()
    while chunk := stream.read(_CHUNK):
        buffer += chunk
        total.check(name, len(buffer))
        if len(buffer) > limit:
            raise ReaderError(
                where,
                0,
                "",
                f"inflates past {limit:,} bytes from {compressed:,} compressed: refusing (a decompression bomb?)",
                "Check where the log came from; a log inspect wrote has small members (the cap: --max-member-mib, or "
                "max_member_bytes= in Python)",
            )
    return bytes(buffer)


def _zstd_stream(path: Any, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> IO[bytes]:
    """A stream of a Zstandard member's inflated bytes, read from its raw bytes after the local header."""
    try:
        import zstandard
    except ModuleNotFoundError as exc:
        raise MissingDependency(
            f"{path}: reading inspect's .eval logs needs 'zstandard': pip install 'pfungst[inspect]' "
            "(or convert the log: inspect log convert --to json)"
        ) from exc
    handle = archive.fp
    if handle is None:  # pragma: no cover - the archive is open here
        raise ReaderError(path, 0, info.filename, "the archive is closed")
    handle.seek(info.header_offset)
    local = handle.read(30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile("no local file header where the central directory points")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    handle.seek(info.header_offset + 30 + name_length + extra_length)
    raw = handle.read(info.compress_size)
    reader: IO[bytes] = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True)
    return reader
