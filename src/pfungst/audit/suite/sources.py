"""Which benchmarks a suite holds: every task of a BIG-bench checkout, every file of a folder, or a list.

A folder holding any ``task.json`` is read as a BIG-bench checkout: each ``task.json`` below it is one benchmark
(subtasks included: ``logical_deduction/three_objects``), named by its folder relative to the root. Any other
folder contributes every file below it (hidden files and documentation such as ``README.md`` aside); its reader is
detected when the file is loaded, so a file no reader claims is skipped with the reason, not dropped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pfungst.errors import DataError

__all__ = ["Source", "discover", "file_sha256"]

_TASK_FILE = "task.json"
_IGNORED_SUFFIXES = {".md", ".txt", ".rst", ".py", ".pdf", ".png", ".jpg", ".html", ".gz", ".zip", ".lock"}
_IGNORED_NAMES = {"LICENSE", "LICENCE", "NOTICE", "COPYING", "Makefile"}


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
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.name.replace("/", "__"))
        return safe.strip(".") or "benchmark"


def discover(paths: Sequence[str | Path]) -> tuple[Source, ...]:
    """The benchmarks ``paths`` stand for, in a stable order (arguments in order, then sorted paths).

    Args:
        paths: Files (each one benchmark) and folders (a BIG-bench checkout, or a folder of benchmark files).

    Raises:
        DataError: a path does not exist, or a folder holds no file at all.

    Example:
        >>> import tempfile, pathlib
        >>> root = pathlib.Path(tempfile.mkdtemp())
        >>> for task in ("navigate", "logic/three", "logic/five"):
        ...     (root / task).mkdir(parents=True)
        ...     _ = (root / task / "task.json").write_text("{}")
        >>> [source.name for source in discover([root])]
        ['logic/five', 'logic/three', 'navigate']
    """
    found: list[Source] = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise DataError(f"{path}: no such file or directory. Pass benchmark files or folders")
        sources = _sources(path)
        if len(paths) > 1 and path.is_dir():  # several folders: keep the folder's name in front (task/subtask)
            sources = [s if s.name == path.name else Source(f"{path.name}/{s.name}", s.path, s.reader) for s in sources]
        found += sources
    return _unique(found)


def _sources(path: Path) -> list[Source]:
    if path.is_file():
        return [Source(path.parent.name if path.name == _TASK_FILE else path.name, path)]
    tasks = sorted(path.rglob(_TASK_FILE))
    if tasks:
        return [
            Source(_relative_name(task.parent, path), task, "bigbench") for task in tasks if not _hidden(task, path)
        ]
    files = sorted(p for p in path.rglob("*") if p.is_file() and not _hidden(p, path) and not _ignored(p))
    if not files:
        raise DataError(f"{path}: the folder holds no benchmark file. Pass benchmark files or folders")
    return [Source(p.relative_to(path).as_posix(), p) for p in files]


def _relative_name(folder: Path, root: Path) -> str:
    relative = folder.relative_to(root).as_posix()
    return root.name if relative == "." else relative


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith((".", "_")) for part in path.relative_to(root).parts)


def _ignored(path: Path) -> bool:
    return path.suffix.lower() in _IGNORED_SUFFIXES or path.name in _IGNORED_NAMES or path.stem.upper() == "README"


def _unique(sources: Iterable[Source]) -> tuple[Source, ...]:
    """The sources with repeated paths dropped and repeated names numbered (``navigate``, ``navigate#2``)."""
    seen_paths: set[Path] = set()
    names: dict[str, int] = {}
    unique = []
    for source in sources:
        resolved = source.path.resolve()
        if resolved in seen_paths:
            continue
        seen_paths.add(resolved)
        names[source.name] = names.get(source.name, 0) + 1
        name = source.name if names[source.name] == 1 else f"{source.name}#{names[source.name]}"
        unique.append(Source(name, source.path, source.reader))
    return tuple(unique)


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes, read in chunks (the data part of a suite's cache key)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()
