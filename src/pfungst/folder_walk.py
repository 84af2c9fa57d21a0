"""The one walk of a folder's files, for every command that reads a folder or checks paths against one.

:func:`walk_files` never leaves the folder it is given and never loops: it does not follow a symbolic link to a
folder (the link is left out, with the reason), it reads each entry's type without following links where that
fails (a link to itself, two links to each other, a link into a missing place), and it walks without recursion, so
any depth of nesting is safe. A link to a file is a file: the file it names is read, as a reader would.

Example:
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / "a.jsonl").write_text("{}")
    >>> (root / "loop").symlink_to(root)
    >>> (root / "self").symlink_to(root / "self")
    >>> walked = walk_files(root)
    >>> [path.name for path in walked.files]
    ['a.jsonl']
    >>> [(path.name, reason) for path, reason in walked.left_out]
    [('loop', 'a link to a folder (not followed)'), ('self', 'a broken or looping link')]
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

__all__ = ["Walked", "walk_files"]


class Walked(NamedTuple):
    """What a walk found: the files, and every other path with why it was left out."""

    files: list[Path]
    """Regular files (and links to them) beneath the folder, in sorted order of their relative path."""
    left_out: list[tuple[Path, str]]
    """Each path not walked or not a regular file, with the reason in words, sorted by path."""


def _keep_all(name: str) -> str | None:
    return None


def walk_files(root: str | Path, *, skip: Callable[[str], str | None] = _keep_all) -> Walked:
    """Every regular file beneath ``root``, without following links to folders (see the module docstring).

    Args:
        root: The folder to walk.
        skip: An entry's name -> why it is left out (not descended into, if a folder), or None to keep it;
            default: keep every entry.
    """
    root = Path(root)
    files: list[Path] = []
    left_out: list[tuple[Path, str]] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name, reverse=True)
        except OSError as error:
            left_out.append((folder, f"cannot be listed ({error.strerror or error})"))
            continue
        for entry in entries:  # reversed: the stack then visits them in sorted order
            path = Path(entry.path)
            reason = skip(entry.name)
            if reason is None:
                reason, is_folder = _kind(entry)
                if reason is None:
                    (stack if is_folder else files).append(path)
                    continue
            left_out.append((path, reason))
    files.sort(key=lambda p: p.relative_to(root).parts)
    left_out.sort(key=lambda found: str(found[0]))
    return Walked(files, left_out)


def _kind(entry: os.DirEntry[str]) -> tuple[str | None, bool]:
    """(None, whether it is a real folder) for a folder or a file (or a link to a file); else (why it is neither,
    False)."""
    try:
        if entry.is_dir(follow_symlinks=False):
            return None, True
        mode = os.stat(entry.path).st_mode  # links followed: raises for a broken link or a loop of links
    except OSError:
        return "a broken or looping link", False
    if stat.S_ISDIR(mode):
        return "a link to a folder (not followed)", False
    if stat.S_ISREG(mode):
        return None, False
    return "not a regular file (a FIFO, device or socket)", False
