"""Write one benchmark script's measured figures into ``benchmarks/RESULTS.md``, stamped with commit, date and machine.

Each script owns one section of the file, between ``<!-- begin: NAME -->`` and ``<!-- end: NAME -->``; a new run
replaces its own section and leaves the others as they are, so the file always holds the latest figures of every
script and says where each came from. The README and the docs quote figures from this file only.

Usage in a script::

    from results_file import add_record_option, recording

    add_record_option(parser)
    args = parser.parse_args()
    with recording("audit_speed", "Default audit against the reference code", enabled=not args.no_record):
        ...  # everything printed to stdout here becomes the section's body

or, with a Markdown table built by the script, ``record_results(name, title, markdown_table)``.
``--no-record`` on a script (see :func:`add_record_option`) prints without touching the file.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _datetime
import io
import os
import platform
import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
"""The one file of measured figures."""
_HEADER = (
    "# Measured results\n\n"
    "Written by the scripts in `benchmarks/` (one section each, replaced by the script's latest run); every section\n"
    "names the commit, date, machine and command that produced it. Do not edit by hand: rerun the script.\n"
)


def add_record_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--no-record`` (print only) to a benchmark script's parser."""
    parser.add_argument(
        "--no-record", action="store_true", help="Print the figures without writing them to benchmarks/RESULTS.md."
    )


def _load_now() -> float | None:
    """The 1-minute load average, or None where the system does not report one."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


_LOAD_AT_START = _load_now()
"""The load when the benchmark started (this module is imported at its start), not when its figures are written."""


def machine() -> str:
    """One line naming this machine: CPU model, logical cores, memory and OS."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages * page_size / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        pass
    load = "" if _LOAD_AT_START is None else f", load {_LOAD_AT_START:.1f} at start"
    return f"{cpu}, {os.cpu_count()} logical cores{memory}, {platform.system()} {platform.release()}{load}"


def commit() -> str:
    """The short commit of the checkout, with ``+changes`` when the work tree differs from it (RESULTS.md aside:
    another benchmark recording its figures meanwhile changes no code)."""
    root = Path(__file__).resolve().parents[1]
    try:
        revision = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", f":!{RESULTS.relative_to(root)}"],
            cwd=root,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return revision + ("+changes" if dirty else "")


def record_results(name: str, title: str, body: str, *, command: str | None = None, path: Path = RESULTS) -> None:
    """Replace section ``name`` of RESULTS.md with ``body`` (Markdown) under ``title`` and a provenance line."""
    started = _datetime.datetime.now(_datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shown = command or _command()
    section = (
        f"<!-- begin: {name} -->\n## {title}\n\n"
        f"Commit `{commit()}`, {started}; {machine()}.\nCommand: `{shown}`\n\n{body.strip()}\n<!-- end: {name} -->\n"
    )
    text = path.read_text() if path.exists() else _HEADER
    pattern = re.compile(rf"<!-- begin: {re.escape(name)} -->.*?<!-- end: {re.escape(name)} -->\n?", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".RESULTS.", suffix=".tmp")
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    os.replace(temporary, path)


class _Tee(io.TextIOBase):
    """A text stream that writes through to ``stream`` and keeps a copy."""

    def __init__(self, stream: io.TextIOBase) -> None:
        self.stream, self.copy = stream, io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def recording(name: str, title: str, *, enabled: bool = True, path: Path = RESULTS) -> Iterator[None]:
    """Print as usual and, when the block ends without an error, record what was printed as section ``name``.

    The printed output goes into the section as a preformatted block, so the figures appear exactly as the script
    showed them. Nothing is recorded when ``enabled`` is false (``--no-record``), when the block raises, when it
    printed nothing, or when its output starts with ``skipped:`` (the data it needs is absent).
    """
    import sys

    if not enabled:
        yield
        return
    tee = _Tee(sys.stdout)  # type: ignore[arg-type]
    with contextlib.redirect_stdout(tee):  # type: ignore[type-var]
        yield
    printed = tee.copy.getvalue().strip("\n")
    if printed and not printed.startswith("skipped:"):
        record_results(name, title, f"```text\n{printed}\n```", path=path)
        print(f"recorded in {path}", file=sys.stderr)


def _command() -> str:
    import sys

    script = Path(sys.argv[0])
    shown = f"benchmarks/{script.name}" if script.parent.name == "benchmarks" else str(script)
    return " ".join(["python", shown, *sys.argv[1:]])
