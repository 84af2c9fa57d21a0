"""One way to write results: plain JSON values, atomic files, and output paths checked before any work.

Every result's ``save_json``, every per-item record file, every report and plot goes through this module, so the
same value is written the same way everywhere (NaN and infinity as ``null``, tuples as lists, numpy scalars as
numbers) and no crash or kill can leave a half-written file: :func:`atomic_write` writes a temporary file in the
target's folder, flushes it to disk and renames it into place. :func:`check_outputs` is what every command calls
first, so that a wrong output path (the input itself, a directory, a read-only folder) costs no model call.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from pfungst.errors import ConfigError

__all__ = [
    "RECORD_SUFFIXES",
    "atomic_write",
    "check_distinct_inputs",
    "check_outputs",
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

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     print(write_json(Path(folder) / "r.json", {"value": float("nan")}).read_text(), end="")
        {
          "value": null
        }
    """
    text = _dumps(data)  # before opening: a value that cannot be written leaves no file behind
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
    target is replaced). Missing folders are created. Text is UTF-8 with ``\\n`` line ends.

    Raises:
        ConfigError: the file cannot be written (the message names it and why); the old file is left as it was.

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
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary, descriptor = _create_beside(target)
        mode = "wb" if binary else "w"
        encoding = None if binary else "utf-8"
        with os.fdopen(descriptor, mode, encoding=encoding, newline=None if binary else "") as handle:
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


def _create_beside(target: Path) -> tuple[Path, int]:
    """A new, uniquely named hidden file in ``target``'s folder (permissions as for any new file, umask applied)."""
    while True:
        candidate = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return candidate, os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


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


def check_outputs(
    inputs: Iterable[str | Path | None],
    outputs: Mapping[str, str | Path | None],
    folders: Mapping[str, str | Path | None] | None = None,
) -> None:
    """Refuse output paths that would destroy an input or cannot be written, before any work is done.

    Each output file must differ from every input (symbolic links and ``./x`` against ``x`` resolved) and from
    the other outputs, must not be a directory, and its folder must be writable; a missing folder is created.
    Output folders (``folders``) must not be an input or an existing file. ``-`` (standard output) and None are
    skipped.

    Args:
        inputs: Files and folders the command reads.
        outputs: Option name (``--json``) -> the file it writes.
        folders: Option name (``--fix``) -> a folder files are written into.

    Raises:
        ConfigError: the first path that fails, naming its option, the path and what to do.

    Example:
        >>> check_outputs(["data.jsonl"], {"--json": "data.jsonl"})
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: --json data.jsonl: this is the input data.jsonl; writing there would overwrite it. Choose another output path.
    """  # noqa: E501
    sources = [(str(path), _resolved(path)) for path in inputs if path is not None and str(path) not in ("", "-")]
    written: dict[Path, str] = {}
    for option, path, is_folder in _wanted(outputs, folders or {}):
        resolved = _resolved(path)
        for shown, source in sources:
            if resolved == source or _same_file(path, shown):
                raise ConfigError(
                    f"{option} {path}: this is the input {shown}; writing there would overwrite it. "
                    "Choose another output path."
                )
        if resolved in written:
            raise ConfigError(f"{option} {path}: {written[resolved]} writes there too. Give each output its own path.")
        written[resolved] = option
        if is_folder:
            _check_folder(option, Path(path), Path(path))
        else:
            _check_file(option, Path(path))


def check_distinct_inputs(paths: Iterable[str | Path], option: str) -> None:
    """Refuse two inputs with the same bytes (one file given twice, or a copy of it): every figure computed from
    both would count the same data twice.

    Files are compared by size, then by SHA-256 where sizes agree; paths that are not files are skipped.

    Args:
        paths: The files read, in the order given; the same path may appear twice.
        option: The option that named them (``--outcomes``), for the message.

    Raises:
        ConfigError: naming both paths.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "a.csv"
        >>> _ = path.write_text("model,item_id,correct\\nm,q1,1\\n")
        >>> check_distinct_inputs([path, path], "--outcomes")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: --outcomes .../a.csv: same content as .../a.csv (SHA-256 ...); ...
    """
    by_size: dict[int, list[Path]] = {}
    for path in map(Path, paths):
        if path.is_file():
            by_size.setdefault(path.stat().st_size, []).append(path)
    for group in (group for group in by_size.values() if len(group) > 1):
        seen: dict[str, Path] = {}
        for path in group:
            digest = _sha256(path)
            if digest in seen:
                raise ConfigError(
                    f"{option} {path}: same content as {seen[digest]} (SHA-256 {digest[:12]}); reading both would "
                    "count the same results twice. Pass each file once."
                )
            seen[digest] = path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _wanted(outputs: Mapping[str, str | Path | None], folders: Mapping[str, str | Path | None]) -> Iterator[Any]:
    for option, path in outputs.items():
        if path is not None and str(path) != "-":
            yield option, path, False
    for option, path in folders.items():
        if path is not None:
            yield option, path, True


def _resolved(path: str | Path) -> Path:
    return Path(os.path.realpath(os.path.expanduser(path)))


def _same_file(first: str | Path, second: str | Path) -> bool:
    """Hard links and the like: two existing paths to one file."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def _check_file(option: str, path: Path) -> None:
    if path.is_dir():
        raise ConfigError(f"{option} {path}: this is a directory. Give a file name, e.g. {path / 'result.json'}.")
    if path.exists() and not os.access(path, os.W_OK):
        raise ConfigError(f"{option} {path}: the file is read-only. Choose another path or make it writable.")
    _check_folder(option, path, path.parent)


def _check_folder(option: str, path: Path, folder: Path) -> None:
    """``folder`` exists (created if missing), is a directory, and new files can be made in it."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{option} {path}: {folder} is a file, not a folder. Choose another path.")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"{option} {path}: cannot create the folder {folder} ({exc.strerror or exc}). Choose another path."
        ) from exc
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{option} {path}: the folder {folder} is not writable. Choose another path or make the folder writable."
        )
