"""How long the command line takes to answer what needs no work: ``--version``, ``--help``, ``formats`` and an
argument error, against a bare ``python -c pass`` (issue 15 asks for well under 0.5 s).

Run: .venv/bin/python benchmarks/startup_time.py [--runs 7]
Each command runs in a fresh process ``--runs`` times; prints the median seconds, the median minus the bare
interpreter's, and the ratio to it. The installed package is compiled to bytecode first, as a user's install is (pip
compiles it when it installs; an editable checkout run under ``PYTHONDONTWRITEBYTECODE``, as on the project's
machines, never writes it, and would time Python compiling pfungst's sources: about twice as long).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path

from results_file import add_record_option, recording

TITLE = "Command-line start-up time"
"""This script's section title in benchmarks/RESULTS.md."""

CLI = [sys.executable, "-m", "pfungst"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "pfungst --version": [*CLI, "--version"],
    "pfungst --help": [*CLI, "--help"],
    "pfungst audit --help": [*CLI, "audit", "--help"],
    "pfungst formats": [*CLI, "formats"],
    "pfungst audit (argument error)": [*CLI, "audit", "--no-such-option"],
}


def median_seconds(command: list[str], runs: int) -> float:
    """The median wall-clock time of ``runs`` fresh runs of ``command`` (output discarded, exit status ignored)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def compile_package() -> None:
    """Write the bytecode of the installed pfungst package, as an install does (in this process: no import of it)."""
    spec = importlib.util.find_spec("pfungst")
    if spec is None or spec.origin is None:
        raise SystemExit("pfungst is not installed here: make install-dev")
    compileall.compile_dir(Path(spec.origin).parent, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per command (median reported)")
    add_record_option(parser)
    args = parser.parse_args()
    compile_package()
    with recording("startup_time", TITLE, enabled=not args.no_record):
        baseline = median_seconds(COMMANDS["python -c pass"], args.runs)
        print(f"{'command':<34} {'seconds':>8} {'over bare':>10} {'ratio':>7}")
        for name, command in COMMANDS.items():
            seconds = baseline if name == "python -c pass" else median_seconds(command, args.runs)
            print(f"{name:<34} {seconds:>8.3f} {seconds - baseline:>10.3f} {seconds / baseline:>7.1f}")


if __name__ == "__main__":
    main()
