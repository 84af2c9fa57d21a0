"""How many CPU threads an in-process model uses when none is given: the cores this process may run on, less the
others' demand for them.

llama.cpp's threads wait for each other at every layer by spinning; when another program holds a core, a thread
that lost it stalls the others, and an evaluation over two threads on two busy cores ran 30 times slower than over
one (6 against 175 tokens per second on the embedded SmolLM2). Too few threads costs at most their share of the
cores; too many can cost everything. So the choice leaves a core to every other task that is running, and never
goes below one.

What is running is sampled when the model loads (Linux's ``/proc/loadavg`` counts the runnable tasks: the median of
a few samples over a tenth of a second, less this one). The one-minute load average, the fallback elsewhere, also
counts what this same user ran in the minute before (a previous run, a test suite): on two idle cores it kept one
thread for a minute after every run, which then took 1.4 to 1.5 times as long as with two
(``benchmarks/llamacpp_threads.py``).
"""

from __future__ import annotations

import math
import os
import statistics
import time
from pathlib import Path
from typing import Literal, NamedTuple

__all__ = ["ThreadChoice", "choose_threads"]

_LOADAVG = Path("/proc/loadavg")
_SAMPLES = 21
_SAMPLE_SECONDS = 0.005


class ThreadChoice(NamedTuple):
    """The threads chosen and what they were chosen from."""

    threads: int
    """CPU threads to use (at least 1)."""
    cores: int
    """Cores this process may run on."""
    load: float | None
    """The other tasks' demand for cores when chosen: tasks running besides this one, or the one-minute load
    average (see ``source``); None where the system reports neither."""
    source: Literal["running", "load average"] | None = None
    """Where ``load`` came from: ``running`` (sampled now), ``load average`` (one minute), or given by the caller."""

    def describe(self, option: str = "--threads N") -> str:
        """One line for stderr: ``1 CPU thread (2 cores, 1 other task running); --threads N sets it``."""
        if self.load is None:
            load = "load unknown"
        elif self.source == "running":
            count = round(self.load)
            load = f"{count} other task{'' if count == 1 else 's'} running"
        else:
            load = f"load {self.load:.1f}"
        plural = "" if self.threads == 1 else "s"
        return f"{self.threads} CPU thread{plural} ({self.cores} cores, {load}); {option} sets it"


def choose_threads(cores: int | None = None, load: float | None = None) -> ThreadChoice:
    """The threads for a model evaluated on this machine: the cores less the others' demand (rounded down), at
    least 1 and at most ``cores``.

    Args:
        cores: Cores available (default: those this process may run on, ``os.sched_getaffinity``, else
            ``os.cpu_count()``).
        load: The demand of other programs, in cores (default: the tasks running besides this one, sampled now,
            else the one-minute ``os.getloadavg()``; where the system has neither, no load is assumed).

    Example:
        >>> choose_threads(cores=2, load=2.4).threads
        1
        >>> choose_threads(cores=8, load=1.5).threads
        6
    """
    if cores is None:
        cores = _available_cores()
    source: Literal["running", "load average"] | None = None
    if load is None:
        load, source = _others_running(), "running"
        if load is None:
            load, source = _load_average(), "load average"
    free = cores - (load or 0.0)
    return ThreadChoice(max(1, min(cores, math.floor(free))), cores, load, source if load is not None else None)


def _available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _others_running() -> float | None:
    """The median count of runnable tasks besides this one over a tenth of a second, or None without
    ``/proc/loadavg``."""
    counts = []
    try:
        for sample in range(_SAMPLES):
            if sample:
                time.sleep(_SAMPLE_SECONDS)
            running = _LOADAVG.read_text().split()[3].split("/")[0]
            counts.append(int(running) - 1)  # this process, running as it reads
    except (OSError, IndexError, ValueError):
        return None
    return float(max(0, statistics.median(counts)))


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has none
        return None
