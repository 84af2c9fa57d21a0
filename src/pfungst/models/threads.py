"""How many CPU threads an in-process model uses when none is given: the cores this process may run on, less the
machine's load.

llama.cpp's threads wait for each other at every layer by spinning; when another program holds a core, a thread
that lost it stalls the others, and an evaluation over two threads on two busy cores ran 30 times slower than over
one (6 against 175 tokens per second on the embedded SmolLM2). Too few threads costs at most their share of the
cores; too many can cost everything. So the choice rounds the free cores down and never goes below one.
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

__all__ = ["ThreadChoice", "choose_threads"]


class ThreadChoice(NamedTuple):
    """The threads chosen and what they were chosen from."""

    threads: int
    """CPU threads to use (at least 1)."""
    cores: int
    """Cores this process may run on."""
    load: float | None
    """The one-minute load average when chosen; None where the system does not report one."""

    def describe(self, option: str = "--threads N") -> str:
        """One line for stderr: ``1 CPU thread (2 cores, load 2.4); --threads N sets it``."""
        load = "load unknown" if self.load is None else f"load {self.load:.1f}"
        plural = "" if self.threads == 1 else "s"
        return f"{self.threads} CPU thread{plural} ({self.cores} cores, {load}); {option} sets it"


def choose_threads(cores: int | None = None, load: float | None = None) -> ThreadChoice:
    """The threads for a model evaluated on this machine: the free cores (``cores - load``, rounded down), at
    least 1 and at most ``cores``.

    Args:
        cores: Cores available (default: those this process may run on, ``os.sched_getaffinity``, else
            ``os.cpu_count()``).
        load: The run-queue length to leave to other programs (default: the one-minute ``os.getloadavg()``; where
            the system has none, no load is assumed).

    Example:
        >>> choose_threads(cores=2, load=2.4).threads
        1
        >>> choose_threads(cores=8, load=1.5).threads
        6
    """
    if cores is None:
        cores = _available_cores()
    if load is None:
        load = _load_average()
    free = cores - (load or 0.0)
    return ThreadChoice(max(1, min(cores, math.floor(free))), cores, load)


def _available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has none
        return None
