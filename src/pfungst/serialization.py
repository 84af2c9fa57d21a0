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
    "frame_records",
    "to_jsonable",
    "write_csv",
    "write_json",
    "write_jsonl",
    "write_records",
]

RECORD_SUFFIXES = (".jsonl", ".parquet")
"""Per-item record files :func:`write_records` writes: JSON Lines, or Parquet for pandas and Arrow users."""


_PLAIN = frozenset({str, int, bool, type(None)})
"""Types written as they are (exactly these: a subclass goes the general way)."""
_SCALARS = _PLAIN | {float}


def _refuse(value: Any) -> Any:
    """What happens to a value that has no JSON form (``json.dumps`` raises the same)."""
    raise TypeError(f"cannot write a {type(value).__name__} as JSON: {value!r}")


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
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:  # the common containers, their plain members not called on (a result has millions)
        return {
            (key if type(key) is str else _key(key)): (item if type(item) in _PLAIN else to_jsonable(item, default))
            for key, item in value.items()
        }
    if kind is list or kind is tuple:
        return [item if type(item) in _PLAIN else to_jsonable(item, default) for item in value]
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
    return (_refuse if default is None else default)(value)


def frame_records(frame: Any) -> list[dict[str, Any]]:
    """A pandas DataFrame's rows as dicts of plain JSON values (missing values as ``None``): the values of
    ``to_jsonable(frame.to_dict(orient="records"))``, built column by column (a column at a time in numpy), which
    on a million rows takes seconds rather than minutes.

    Example:
        >>> import pandas as pd
        >>> frame_records(pd.DataFrame({"id": ["a", "b"], "x": [0.5, float("nan")], "ok": pd.array([True, None])}))
        [{'id': 'a', 'x': 0.5, 'ok': True}, {'id': 'b', 'x': None, 'ok': None}]
    """
    names = [_key(name) for name in frame.columns]
    columns = [_column_values(frame[name]) for name in frame.columns]
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


def _column_values(column: Any) -> list[Any]:
    """One column as plain JSON values; NaN, infinity and missing values as ``None``."""
    import numpy as np
    from pandas.api import types

    missing = column.isna().to_numpy()
    integers = np.uint64 if getattr(column.dtype, "kind", "") == "u" else np.int64
    for is_kind, dtype, fill in (
        (types.is_bool_dtype, bool, False),
        (types.is_integer_dtype, integers, 0),
        (types.is_float_dtype, np.float64, np.nan),
    ):
        if is_kind(column.dtype):
            values = column.to_numpy(dtype=dtype, na_value=fill)
            listed = values.tolist()
            gaps = missing | ~np.isfinite(values) if dtype is np.float64 else missing
            for index in np.flatnonzero(gaps):
                listed[index] = None
            return listed
    return [
        value if type(value) is str else None if gap else to_jsonable(value)
        for value, gap in zip(column.tolist(), missing.tolist(), strict=True)
    ]


def _key(key: Any) -> str:
    """A dict key as :func:`json.dumps` writes it (``True`` -> ``"true"``, ``1`` -> ``"1"``, ``None`` -> ``"null"``)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool | int | float):
        return json.dumps(key)
    return str(key)


_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)  # CPython's C encoder (absent from the type stubs)
_ONE_LINE_C = (
    _C_ENCODER(None, _refuse, json.encoder.encode_basestring, None, ": ", ", ", False, False, False)
    if _C_ENCODER is not None
    else None
)
_ONE_LINE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def _one_line(value: Any) -> str:
    """``value`` (plain JSON values) on one line: ``json.dumps(value, ensure_ascii=False, allow_nan=False,
    separators=(", ", ": "))``, by the C encoder without its per-call set-up where Python has it."""
    if _ONE_LINE_C is None:
        return _ONE_LINE.encode(value)
    return "".join(_ONE_LINE_C(value, 0))


def _dumps(data: Any) -> str:
    """``data`` as JSON text: containers indented two spaces a level, except that a list or dict below the top whose
    members are all scalars (an interval, one item's record, a list of ids) goes on one line. The same values as
    ``json.dumps(indent=2)``, in far fewer lines, and fast: each one-line container is one call of the C encoder."""
    parts: list[str] = []
    _encode(to_jsonable(data), "\n", parts, top=True)
    parts.append("\n")
    return "".join(parts)


def _encode(value: Any, newline: str, parts: list[str], top: bool = False) -> None:
    """Append ``value``'s text to ``parts``; ``newline`` is a line break and the current indentation."""
    if isinstance(value, dict):
        if not value or (not top and all(type(member) in _SCALARS for member in value.values())):
            parts.append(_one_line(value))
            return
        inner = newline + "  "
        parts.append("{")
        for index, (key, member) in enumerate(value.items()):
            parts.append(("," if index else "") + inner + _one_line(key) + ": ")
            _encode(member, inner, parts)
        parts.append(newline + "}")
    elif isinstance(value, list):
        if not value or (not top and all(type(member) in _SCALARS for member in value)):
            parts.append(_one_line(value))
            return
        inner = newline + "  "
        parts.append("[")
        for index, member in enumerate(value):
            parts.append(("," if index else "") + inner)
            _encode(member, inner, parts)
        parts.append(newline + "]")
    else:
        parts.append(_one_line(value))


def write_json(path: str | Path, data: Any) -> Path:
    """Write ``data`` as indented UTF-8 JSON with a final newline, atomically (folders created); returns the path.
    Below the top, a list or dict of scalars takes one line (an interval, one item's record).

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
