"""One way to write results: plain JSON values, atomic files, and output paths checked before any work.

Every result's ``save_json``, every per-item record file, every report and plot goes through this module, so the
same value is written the same way everywhere (NaN and infinity as ``null``, tuples as lists, numpy scalars as
numbers) and no crash or kill can leave a half-written file: :func:`atomic_write` writes a temporary file in the
target's folder, flushes it to disk and renames it into place. The paths themselves are checked before any work by
:mod:`pfungst.path_checks`.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from pfungst.errors import ConfigError
from pfungst.path_checks import create_beside, file_kind

__all__ = [
    "RECORD_SUFFIXES",
    "atomic_write",
    "to_jsonable",
    "write_csv",
    "write_json",
    "write_jsonl",
    "write_records",
]

RECORD_SUFFIXES = (".jsonl", ".parquet")
"""Per-item record files :func:`write_records` writes: JSON Lines, or Parquet for pandas and Arrow users."""


def to_jsonable(value: Any, default: Callable[[Any], Any] | None = None) -> Any:
    """``value`` as plain JSON values, the one conversion every pfungst file uses.

    Dicts keep their key order (keys become strings); tuples, lists and numpy arrays become lists; numpy scalars
    become numbers; NaN and infinity become ``None``; paths become strings; a dataclass becomes its ``to_dict()``
    (or its fields). Anything else goes to ``default``.

    Args:
        value: What to convert.
        default: Called on a value of any other type; None raises ``TypeError`` for it, as :func:`json.dumps` does.

    Example:
        >>> import numpy as np
        >>> to_jsonable({"a": (1, float("nan")), 2: np.float64(0.5), "c": np.array([True, False])})
        {'a': [1, None], '2': 0.5, 'c': [True, False]}
    """
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):  # numpy's float64 too
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {_key(key): to_jsonable(item, default) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(item, default) for item in value]
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # numpy arrays and scalars, without importing numpy
        return to_jsonable(value.tolist(), default)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        to_dict = getattr(value, "to_dict", None)
        data = to_dict() if callable(to_dict) else {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return to_jsonable(data, default)
    if default is not None:
        return default(value)
    raise TypeError(f"cannot write a {type(value).__name__} as JSON: {value!r}")


def _key(key: Any) -> str:
    """A dict key as :func:`json.dumps` writes it (``True`` -> ``"true"``, ``1`` -> ``"1"``, ``None`` -> ``"null"``)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool | int | float):
        return json.dumps(key)
    return str(key)


def _dumps(data: Any) -> str:
    return json.dumps(to_jsonable(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: str | Path, data: Any) -> Path:
    """Write ``data`` as indented UTF-8 JSON with a final newline, atomically (folders created); returns the path.

    A ``.gz`` name (``result.json.gz``) writes it gzip-compressed; every reader of result files inflates it.

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     print(write_json(Path(folder) / "r.json", {"value": float("nan")}).read_text(), end="")
        {
          "value": null
        }
    """
    text = _dumps(data)  # before opening: a value that cannot be written leaves no file behind
    if Path(path).suffix.lower() == ".gz":
        with atomic_write(path, binary=True) as handle:
            handle.write(gzip.compress(text.encode("utf-8"), mtime=0))  # mtime 0: the same data, the same bytes
        return Path(path)
    with atomic_write(path) as handle:
        handle.write(text)
    return Path(path)


def write_records(
    path: str | Path, rows: Iterable[Mapping[str, Any]], frame: Callable[[], Any], name: str = "records"
) -> Path:
    """Write per-item ``rows`` atomically: one JSON object per line for ``.jsonl``, ``frame()`` as ``.parquet``.

    Args:
        path: The file; its suffix picks the format.
        rows: The records (JSON Lines); converted with :func:`to_jsonable`.
        frame: Builds the table for Parquet (called only for ``.parquet``).
        name: What the records are, for the error message (``results``, ``outcomes``).

    Raises:
        ConfigError: another suffix (the message suggests ``<name>.jsonl``), or the file cannot be written.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in RECORD_SUFFIXES:
        raise ConfigError(
            f"cannot write per-item {name} to {path}: the suffix {path.suffix!r} is not one of "
            f"{list(RECORD_SUFFIXES)}. Name the file {name}.jsonl or {name}.parquet."
        )
    if suffix == ".parquet":
        table = frame()
        with atomic_write(path, binary=True) as handle:
            table.to_parquet(handle, index=False)
        return path
    return write_jsonl(path, rows)


def write_jsonl(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write ``rows`` as JSON Lines (one compact UTF-8 object per line, via :func:`to_jsonable`), atomically."""
    with atomic_write(path) as handle:
        for row in rows:
            handle.write(json.dumps(to_jsonable(row), ensure_ascii=False, allow_nan=False) + "\n")
    return Path(path)


def write_csv(path: str | Path, frame: Any) -> Path:
    """Write a pandas ``frame`` as CSV without its index, atomically; returns the path."""
    with atomic_write(path) as handle:
        frame.to_csv(handle, index=False)
    return Path(path)


@contextmanager
def atomic_write(path: str | Path, *, binary: bool = False) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on success it replaces ``path``, on error it is removed.

    The temporary file is flushed and synced to disk before :func:`os.replace` renames it into place, so a reader,
    a crash or a kill sees the old file or the new one, never a part. A symbolic link at ``path`` is followed (its
    target is replaced). A replaced file keeps its permission bits; a new one gets the usual ones (umask applied).
    Missing folders are created. Text is UTF-8 with ``\\n`` line ends.

    Raises:
        ConfigError: the file cannot be written, or ``path`` exists and is not a regular file (a FIFO, a device, a
            socket: never replaced by a file); the message names it and why. The old file is left as it was.

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     with atomic_write(Path(folder) / "a.txt") as handle:
        ...         _ = handle.write("done")
        ...     print((Path(folder) / "a.txt").read_text())
        done
    """
    target = Path(os.path.realpath(path))
    temporary: Path | None = None
    try:
        mode = _kept_mode(path, target)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary, descriptor = create_beside(target)
        if mode is not None:
            os.chmod(temporary, mode)
        with os.fdopen(
            descriptor, "wb" if binary else "w", encoding=None if binary else "utf-8", newline=None if binary else ""
        ) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
        temporary = None
        _sync_folder(target.parent)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}. Check the path and its folder.") from exc
    finally:
        if temporary is not None:
            temporary.unlink(missing_ok=True)


def _kept_mode(path: str | Path, target: Path) -> int | None:
    """The permission bits of the file ``target`` replaces (None: a new file); refuse what is not a regular file."""
    try:
        status = os.stat(target)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(status.st_mode):
        raise ConfigError(f"cannot write {path}: {file_kind(status.st_mode)}, not a regular file. Choose another path.")
    return stat.S_IMODE(status.st_mode)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (POSIX); platforms that cannot open a folder skip it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
