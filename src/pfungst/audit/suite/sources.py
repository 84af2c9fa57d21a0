"""Which benchmarks a suite holds: the tasks of a BIG-bench checkout, every benchmark file of a folder, or a list.

Every file below a folder is accounted for: it is a source (audited or skipped with its reader's reason by the
suite), or it is listed as ignored with why (:class:`IgnoredFile`): a hidden name, documentation or code, a part of
a BIG-bench task folder, a path already listed. Each ``task.json`` is one BIG-bench benchmark (subtasks included:
``logical_deduction/three_objects``), named by its folder; the other files of a task's folder belong to that task.
Every other file is a source whose reader is detected when it is loaded, so a folder that mixes BIG-bench tasks with
other benchmark files audits all of them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pfungst.errors import DataError
from pfungst.folder_walk import walk_files

__all__ = ["Discovery", "IgnoredFile", "Source", "discover", "file_sha256", "survey"]

_TASK_FILE = "task.json"
_IGNORED_SUFFIXES = {".md", ".txt", ".rst", ".py", ".pdf", ".png", ".jpg", ".html", ".zip", ".lock"}
_IGNORED_NAMES = {"LICENSE", "LICENCE", "NOTICE", "COPYING", "Makefile"}
_MAX_SLUG = 120
"""The longest slug in bytes: its cache files (``<slug>.audit.json``) stay far below the usual 255-byte limit."""
_DATA_SUFFIXES = {".json", ".jsonl", ".csv", ".tsv", ".parquet", ".pq"}


@dataclass(frozen=True)
class Source:
    """One benchmark of a suite: its name in the suite and the path its reader reads."""

    name: str
    """Unique within the suite: the path relative to the argument it was found under (``navigate``,
    ``logical_deduction/three_objects``, ``mmlu/test.csv``)."""
    path: Path
    """The file (or ``task.json``) to load."""
    reader: str | None = None
    """``bigbench`` for the tasks of a checkout (so a generative task says why it cannot be read); None: detect."""

    @property
    def slug(self) -> str:
        """A file-name-safe form of :attr:`name` (``logical_deduction__three_objects``)."""
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.name.replace("/", "__")).strip(".")
        if len(safe.encode()) > _MAX_SLUG:  # a deeply nested file: keep a file name the file system accepts
            digest = hashlib.sha256(self.name.encode()).hexdigest()[:16]
            safe = f"{safe.encode()[: _MAX_SLUG - 40].decode(errors='ignore')}-{digest}"
        return safe or "benchmark"


@dataclass(frozen=True)
class IgnoredFile:
    """A path found under a suite's folder that is not one of its benchmarks, and why (never dropped silently)."""

    source: str
    """The path (a hidden folder is listed once, not searched)."""
    reason: str
    """``hidden``, ``not a benchmark format (.md)``, ``part of BIG-bench task folder navigate``, ``duplicate of
    navigate``, ``not a regular file``."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": "ignored", **asdict(self)}


@dataclass(frozen=True)
class Discovery:
    """What a suite's paths hold: the benchmarks to load and every other path seen, with why it is left out."""

    sources: tuple[Source, ...]
    ignored: tuple[IgnoredFile, ...]


def discover(paths: Sequence[str | Path]) -> tuple[Source, ...]:
    """The benchmarks ``paths`` stand for, in a stable order (arguments in order, then sorted paths).

    Args:
        paths: Files (each one benchmark) and folders (BIG-bench tasks and other benchmark files).

    Raises:
        DataError: a path does not exist, or a folder holds no benchmark file.

    Example:
        >>> import tempfile, pathlib
        >>> root = pathlib.Path(tempfile.mkdtemp())
        >>> for task in ("navigate", "logic/three", "logic/five"):
        ...     (root / task).mkdir(parents=True)
        ...     _ = (root / task / "task.json").write_text("{}")
        >>> [source.name for source in discover([root])]
        ['logic/five', 'logic/three', 'navigate']
    """
    return survey(paths).sources


def survey(paths: Sequence[str | Path], output_folder: str | Path | None = None) -> Discovery:
    """:func:`discover`'s sources, and every other path seen under ``paths`` with the reason it is not one.

    Files inside ``output_folder`` (the suite's own ``--out``, which may lie inside a data folder) are the suite's
    outputs, never its benchmarks: they are listed as ignored.

    Raises:
        DataError: a path does not exist, or a folder holds no benchmark file (the message says what it holds).
    """
    found: list[Source] = []
    ignored: list[IgnoredFile] = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise DataError(f"{path}: no such file or directory. Pass benchmark files or folders")
        sources, left_out = _sources(path)
        if len(paths) > 1 and path.is_dir():  # several folders: keep the folder's name in front (task/subtask)
            sources = [s if s.name == path.name else Source(f"{path.name}/{s.name}", s.path, s.reader) for s in sources]
        found += sources
        ignored += left_out
    unique, duplicates = _unique(found)
    outside = Path(output_folder).resolve() if output_folder is not None else None
    if outside is not None and outside.is_dir() and not any(Path(p).resolve().is_relative_to(outside) for p in paths):
        outputs = [s for s in unique if s.path.resolve().is_relative_to(outside)]
        unique = tuple(s for s in unique if s not in outputs)
        ignored += [IgnoredFile(str(s.path), "inside the suite's output folder") for s in outputs]
    return Discovery(unique, (*ignored, *duplicates))


def _sources(path: Path) -> tuple[list[Source], list[IgnoredFile]]:
    if path.is_file():
        return [Source(path.parent.name if path.name == _TASK_FILE else path.name, path)], []
    files, ignored = _walk(path)
    task_folders = {file.parent for file in files if file.name == _TASK_FILE}
    sources = []
    for file in files:
        task_folder = _task_folder(file, path, task_folders)
        if file.name == _TASK_FILE:
            sources.append(Source(_relative_name(file.parent, path), file, "bigbench"))
        elif task_folder is not None:
            ignored.append(IgnoredFile(str(file), f"part of BIG-bench task folder {_relative_name(task_folder, path)}"))
        elif _ignored(file):
            ignored.append(IgnoredFile(str(file), f"not a benchmark format ({file.suffix or file.name})"))
        else:
            sources.append(Source(file.relative_to(path).as_posix(), file))
    if not sources:
        seen = "; ".join(f"{Path(i.source).name}: {i.reason}" for i in ignored[:3]) or "nothing"
        raise DataError(
            f"{path}: the folder holds no benchmark file ({len(ignored)} path(s) seen: {seen}). "
            "Pass benchmark files or folders"
        )
    return sources, ignored


def _walk(root: Path) -> tuple[list[Path], list[IgnoredFile]]:
    """The regular files below ``root`` in sorted order, and the paths left out (hidden, links to folders, broken
    links, not regular files) (:func:`~pfungst.folder_walk.walk_files`: no link to a folder is followed)."""
    walked = walk_files(root, skip=_hidden)
    return walked.files, [IgnoredFile(str(path), reason) for path, reason in walked.left_out]


def _hidden(name: str) -> str | None:
    return "hidden (the name starts with . or _)" if name.startswith((".", "_")) else None


def _task_folder(file: Path, root: Path, task_folders: set[Path]) -> Path | None:
    """The outermost BIG-bench task folder (one holding a ``task.json``) that ``file`` lies in, if any."""
    folder = file.parent
    outermost = None
    while True:
        if folder in task_folders:
            outermost = folder
        if folder == root or folder == folder.parent:
            return outermost
        folder = folder.parent


def _relative_name(folder: Path, root: Path) -> str:
    relative = folder.relative_to(root).as_posix()
    return root.name if relative == "." else relative


def _ignored(path: Path) -> bool:
    """Documentation, code, archives, and compressed files whose inner suffix is no data format."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return Path(path.stem).suffix.lower() not in _DATA_SUFFIXES
    return suffix in _IGNORED_SUFFIXES or path.name in _IGNORED_NAMES or path.stem.upper() == "README"


def _unique(sources: Iterable[Source]) -> tuple[tuple[Source, ...], list[IgnoredFile]]:
    """The sources with repeated paths left out (listed as duplicates) and repeated names numbered (``navigate``,
    ``navigate#2``)."""
    seen_paths: dict[Path, str] = {}
    names: dict[str, int] = {}
    unique, duplicates = [], []
    for source in sources:
        resolved = source.path.resolve()
        if resolved in seen_paths:
            duplicates.append(IgnoredFile(str(source.path), f"duplicate of {seen_paths[resolved]}"))
            continue
        names[source.name] = names.get(source.name, 0) + 1
        name = source.name if names[source.name] == 1 else f"{source.name}#{names[source.name]}"
        seen_paths[resolved] = name
        unique.append(Source(name, source.path, source.reader))
    return tuple(unique), duplicates


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes, read in chunks (the data part of a suite's cache key)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()
