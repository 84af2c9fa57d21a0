"""Several llama.cpp processes on one machine: how the thread count each uses decides how long they all take.

llama.cpp's worker threads spin while they wait for each other, so processes that together ask for more threads
than there are cores slow each other down by far more than their share (:mod:`pfungst.models.threads`). This script
starts ``--processes`` copies of ``pfungst score DATA --limit N --rule letter`` at once (the embedded SmolLM2, each
with a fresh cache, so every request reaches the model), once per arm:

- ``alone``: one process with ``--threads`` set to the machine's cores (the yardstick);
- ``alone, 1``: one process with ``--threads 1`` (what one thread costs where the cores are free);
- ``all cores``: every process with ``--threads`` set to the machine's cores;
- ``one each``: every process with ``--threads 1``;
- ``default``: every process with no ``--threads``, as a user runs it (:func:`~pfungst.models.threads.choose_threads`
  looks at what else is running when the model loads);
- ``default, alone``: one process with no ``--threads``, right after the others (the machine now idle, its one-minute
  load average still high).

It prints, per arm, each process's wall seconds, the threads the processes used, the slowest against ``alone``, and
whether every process chose what the ``alone`` run chose on every item.

Run: .venv/bin/python benchmarks/llamacpp_threads.py [--data FILE] [--limit 12] [--processes 3] [--no-record]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import add_record_option, recording

from pfungst.models.threads import choose_threads

TITLE = "llama.cpp threads on a shared machine"
"""This script's section title in benchmarks/RESULTS.md."""
REPOSITORY = Path(__file__).resolve().parents[1]
ARC = REPOSITORY.parent / "shared" / "data" / "arc" / "ARC-Challenge-Test.jsonl"
_CHOSEN = re.compile(r"llama\.cpp: (\d+) CPU thread")


def run_arm(data: Path, limit: int, processes: int, threads: int | None, folder: Path) -> list[dict[str, object]]:
    """Start ``processes`` scoring runs at once and wait for all: per process its seconds, threads and choices."""
    started = []
    with contextlib.ExitStack() as logs:
        for index in range(processes):
            stem = folder / f"run{index}"
            command = [sys.executable, "-m", "pfungst", "score", str(data), "--limit", str(limit), "--rule", "letter"]
            command += ["--cache", f"{stem}.sqlite", "--out", f"{stem}.jsonl", "--json", f"{stem}.json", "--quiet"]
            if threads is not None:
                command += ["--threads", str(threads)]
            stderr = logs.enter_context(open(f"{stem}.err", "w"))
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
            started.append((time.perf_counter(), process, stem))
        ended: dict[int, float] = {}
        while len(ended) < len(started):  # each process's own end, not when this loop reached it
            for index, (_, process, _) in enumerate(started):
                if index not in ended and process.poll() is not None:
                    ended[index] = time.perf_counter()
            time.sleep(0.05)
    runs = []
    for index, (start, process, stem) in enumerate(started):
        code = process.returncode
        seconds = ended[index] - start
        log = Path(f"{stem}.err").read_text()
        if code != 0:
            raise SystemExit(f"pfungst score exited {code}:\n{log[-2000:]}")
        chosen = _CHOSEN.search(log)
        rows = [json.loads(line) for line in Path(f"{stem}.jsonl").read_text().splitlines() if line.strip()]
        choices = {str(row["item_id"]): row["chosen"] for row in rows}
        runs.append({"seconds": seconds, "threads": int(chosen.group(1)) if chosen else threads, "choices": choices})
        for path in folder.glob(f"{stem.name}.*"):
            path.unlink()
    return runs


def arm_line(name: str, runs: list[dict[str, object]], alone: float, choices: dict[str, object]) -> str:
    """One printed line per arm."""
    seconds = sorted(float(run["seconds"]) for run in runs)  # type: ignore[arg-type]
    threads = sorted({str(run["threads"]) for run in runs})
    same = all(run["choices"] == choices for run in runs)
    shown = "/".join(f"{value:.1f}" for value in seconds)
    return (
        f"{name:<14} {len(runs)} process(es), threads {','.join(threads):<4} seconds {shown:<18} "
        f"slowest {seconds[-1] / alone:5.2f}x alone   same choices as alone: {'yes' if same else 'NO'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ARC, help="Benchmark to score (default: ARC-Challenge test).")
    parser.add_argument("--limit", type=int, default=12, help="Items each process scores.")
    parser.add_argument("--processes", type=int, default=3, help="Processes started at once.")
    add_record_option(parser)
    args = parser.parse_args()
    if not args.data.exists():
        print(f"skipped: {args.data} is absent (../shared/data)")
        return
    cores = choose_threads(load=0.0).cores  # the cores this process may run on
    arms = [("alone, 1", 1, 1), ("all cores", args.processes, cores), ("one each", args.processes, 1)]
    arms += [("default", args.processes, None), ("default, alone", 1, None)]
    with recording("llamacpp_threads", TITLE, enabled=not args.no_record), tempfile.TemporaryDirectory() as folder:
        (alone,) = run_arm(args.data, args.limit, 1, cores, Path(folder))
        lines = [arm_line("alone", [alone], float(alone["seconds"]), alone["choices"])]  # type: ignore[arg-type]
        for name, processes, threads in arms:
            runs = run_arm(args.data, args.limit, processes, threads, Path(folder))
            lines.append(arm_line(name, runs, float(alone["seconds"]), alone["choices"]))  # type: ignore[arg-type]
        print(f"pfungst score {args.data.name} --limit {args.limit} --rule letter (embedded SmolLM2); {cores} cores")
        print("\n".join(lines))
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
