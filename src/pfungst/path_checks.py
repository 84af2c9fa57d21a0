"""Check the paths a command reads and writes before any work: no output onto an input, no input given twice.

:func:`check_outputs` is what every command calls first, so that a wrong output path (the input itself, a file
beneath an input folder, a directory, a FIFO or device, a folder that cannot be written) costs no model call;
:func:`check_distinct_inputs` refuses the same input file twice (by content), which would count it twice.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pfungst.errors import ConfigError
from pfungst.folder_walk import walk_files

__all__ = ["MAX_NEW_FOLDERS", "check_distinct_inputs", "check_outputs", "create_beside", "file_kind"]

MAX_NEW_FOLDERS = 100
"""The most nested folders an output path may need created (a deeper one is a mistake, and Python's recursive
folder creation fails near 1000 levels)."""


def create_beside(target: Path) -> tuple[Path, int]:
    """A new, uniquely named hidden file in ``target``'s folder (permissions as for any new file, umask applied)."""
    while True:
        candidate = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return candidate, os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words, for a message."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "a special file")


def check_outputs(
    inputs: Iterable[str | Path | None],
    outputs: Mapping[str, str | Path | None],
    folders: Mapping[str, str | Path | None] | None = None,
    *,
    own: Iterable[str | Path] = (),
) -> None:
    """Refuse output paths that would destroy an input or cannot be written, before any work is done.

    Each output file must differ from every input (symbolic links, hard links and ``./x`` against ``x`` resolved;
    an input folder stands for every file beneath it) and from the other outputs, must not be a directory, a FIFO,
    a device or a socket, and its folder must take new files (tried, not assumed: root passes every permission
    test); a missing folder is created (at most :data:`MAX_NEW_FOLDERS` levels of it). Output folders
    (``folders``) must not be an input or an existing file. ``-`` (standard output) and None are skipped.

    Args:
        inputs: Files and folders the command reads.
        outputs: Option name (``--json``) -> the file it writes.
        folders: Option name (``--fix``) -> a folder files are written into.
        own: Folders holding only the command's own earlier outputs (a suite's ``--out`` inside its data folder):
            files beneath them are not inputs, though they lie beneath an input folder (unless the folder is an
            input or holds one: then it is refused like any other output onto an input).

    Raises:
        ConfigError: the first path that fails, naming its option, the path and what to do.

    Example:
        >>> check_outputs(["data.jsonl"], {"--json": "data.jsonl"})
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: --json data.jsonl: this is the input data.jsonl; writing there would overwrite it. Choose another output path.
    """  # noqa: E501
    inputs = list(inputs)
    sources = _sources(inputs)
    given = [_resolved(path) for path in inputs if path is not None and str(path) not in ("", "-")]
    mine = [
        folder
        for folder in map(_resolved, own)
        if (folder.is_dir() or not folder.exists()) and not any(path.is_relative_to(folder) for path in given)
    ]
    sources = [entry for entry in sources if not any(entry[1].is_relative_to(folder) for folder in mine)]
    wanted = list(_wanted(outputs, folders or {}))
    written: dict[Path | tuple[int, int], str] = {}
    for option, path, _ in wanted:  # every clash first: a refused command creates no folder
        resolved, identity = _resolved(path), _identity(path)
        for shown, source, source_identity in sources:
            if resolved == source or (identity is not None and identity == source_identity):
                raise ConfigError(
                    f"{option} {path}: this is the input {shown}; writing there would overwrite it. "
                    "Choose another output path."
                )
        other = written.get(resolved) or (written.get(identity) if identity is not None else None)
        if other is not None:
            raise ConfigError(f"{option} {path}: {other} writes there too. Give each output its own path.")
        written[resolved] = option
        if identity is not None:
            written[identity] = option
    for option, path, is_folder in wanted:
        if is_folder:
            _check_folder(option, Path(path), Path(path))
        else:
            _check_file(option, Path(path))


def _sources(inputs: Iterable[str | Path | None]) -> list[tuple[str, Path, tuple[int, int] | None]]:
    """Each input as (shown, resolved, device and inode), and every file beneath an input folder (links followed)."""
    given = [str(path) for path in inputs if path is not None and str(path) not in ("", "-")]
    return [(path, _resolved(path), _identity(path)) for path in [*given, *_files_beneath(given)]]


def _files_beneath(folders: Iterable[str]) -> Iterator[str]:
    """Every file in ``folders`` and their subfolders (:func:`~pfungst.folder_walk.walk_files`: links to folders
    are not followed, so a link loop or a link out of the folder is not walked)."""
    for folder in folders:
        if os.path.isdir(folder):
            yield from (str(path) for path in walk_files(folder).files)


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


def _identity(path: str | Path) -> tuple[int, int] | None:
    """(device, inode) of an existing path, links followed: two names of one file (hard links) share it."""
    try:
        status = os.stat(os.path.expanduser(path))
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _check_file(option: str, path: Path) -> None:
    try:
        mode: int | None = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise ConfigError(f"{option} {path}: this is a directory. Give a file name, e.g. {path / 'result.json'}.")
    if mode is not None and not stat.S_ISREG(mode):
        raise ConfigError(
            f"{option} {path}: this is {file_kind(mode)}, not a regular file; pfungst writes only regular files. "
            "Choose another path."
        )
    if mode is not None and not os.access(path, os.W_OK):
        raise ConfigError(f"{option} {path}: the file is read-only. Choose another path or make it writable.")
    _check_folder(option, path, path.parent)


def _check_folder(option: str, path: Path, folder: Path) -> None:
    """``folder`` exists (created if missing), is a directory, and a new file can be made in it (tried)."""
    _create_folder(option, path, folder)
    reason = "" if os.access(folder, os.W_OK | os.X_OK) else "permission denied"
    if not reason:
        try:
            probe, descriptor = create_beside(folder / "pfungst-check")
            os.close(descriptor)
            probe.unlink()
        except OSError as exc:
            reason = str(exc.strerror or exc)
    if reason:
        raise ConfigError(
            f"{option} {path}: the folder {folder} is not writable. Choose another path or make the folder "
            f"writable ({reason})."
        )


def _create_folder(option: str, path: Path, folder: Path) -> None:
    """``folder`` exists or is created: not a file, at most :data:`MAX_NEW_FOLDERS` levels missing, a name the
    system takes (a path too long for it is refused here, not where the result is written)."""
    try:
        if folder.exists() and not folder.is_dir():
            kind = "a file" if folder.is_file() else file_kind(os.stat(folder).st_mode)
            raise ConfigError(f"{option} {path}: {folder} is {kind}, not a folder. Choose another path.")
        missing = _missing_levels(folder)
        if missing > MAX_NEW_FOLDERS:
            raise ConfigError(
                f"{option} {_shown(path)}: the path needs {missing} nested folders created; pfungst creates at most "
                f"{MAX_NEW_FOLDERS}. Choose a shorter path, or create the folders first."
            )
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"{option} {_shown(path)}: cannot create the folder {_shown(folder)} ({exc.strerror or exc}). "
            "Choose another path."
        ) from exc


def _missing_levels(folder: Path) -> int:
    """How many folders, from ``folder`` up, do not exist (counted without recursion)."""
    missing, current = 0, folder
    while not os.path.lexists(current) and current.parent != current:
        missing, current = missing + 1, current.parent
    return missing


def _shown(path: Path) -> str:
    """``path`` for a message: whole up to 200 characters, else its ends and its length."""
    text = str(path)
    return text if len(text) <= 200 else f"{text[:80]}...{text[-80:]} ({len(text)} characters)"
