"""Time the stress part of ``pfungst demo`` (the embedded SmolLM2 on the first 24 ``gold-position`` items) against
its target of 60 seconds on 2 CPU cores, and count the model requests it sends.

Each run is ``pfungst.stress`` as the demo calls it, with a fresh cache, the model loaded inside the timing (as in
``pfungst demo``). Rows:

- **demo**: the demo's settings (``pfungst.demo.DEMO_STRESS``) and the threads chosen from the free cores;
- with ``--compare``, the demo's earlier settings (``identity, cyclic, answer-moved, pride, rules`` with ``letter``
  and ``cloze-raw``) under the same thread choice, and under llama.cpp's own choice (one thread for single tokens,
  every core for prompts), which spins on a loaded machine; the last on ``--old-items`` items only (it ran 13 min
  for 24 items on a loaded machine), with its seconds per request.

The machine's one-minute load is printed beside every figure: on a shared machine it moves the seconds more than
anything here. The CPU seconds the run used (``time.process_time``) are what it would take on an idle core, and
hardly depend on the load when one thread runs (they do when a thread spins waiting for another). Usage::

    .venv/bin/python benchmarks/demo_time.py [--compare] [--old-items 4] [--full] [--no-record]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from results_file import add_record_option, record_results

from pfungst.data.synthetic import make_synthetic
from pfungst.demo import DEMO_STRESS, DEMO_STRESSED
from pfungst.models import llamacpp
from pfungst.models.threads import ThreadChoice, choose_threads
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.suite import stress

TARGET_S = 60.0
ITEMS = 24
EARLIER = replace(
    DEMO_STRESS, perturbations=("identity", "cyclic", "answer-moved", "pride", "rules"), rules=("letter", "cloze-raw")
)
"""The demo's stress settings before they were cut to what its conclusion reads."""


@dataclass(frozen=True)
class Timing:
    """One timed stress run."""

    name: str
    items: int
    questions: int
    requests: int
    seconds: float
    cpu_seconds: float
    load_before: float
    load_after: float

    def row(self) -> str:
        per_request = self.seconds / max(1, self.requests)
        ratio = f"{self.seconds / TARGET_S:.2f}" if self.items == ITEMS else "-"
        return (
            f"| {self.name} | {self.items} | {self.questions} | {self.requests} | {self.seconds:.1f} | {ratio} | "
            f"{per_request:.3f} | {self.cpu_seconds:.1f} | {self.load_before:.1f} -> {self.load_after:.1f} |"
        )


@contextmanager
def llama_cpp_default_threads() -> Iterator[None]:
    """Build llama.cpp models with llama.cpp's own thread choice (``n_threads=None``), as pfungst once did."""
    chosen = llamacpp.choose_threads
    llamacpp.choose_threads = lambda: ThreadChoice(None, os.cpu_count() or 1, None)  # type: ignore[assignment,arg-type]
    try:
        yield
    finally:
        llamacpp.choose_threads = chosen


def time_stress(name: str, config: StressConfig, items: int) -> Timing:
    """One demo-like stress run on the first ``items`` gold-position items, fresh cache, model load included."""
    benchmark = make_synthetic(DEMO_STRESSED, n_items=400, seed=0)
    with tempfile.TemporaryDirectory() as folder:
        run = replace(config.run, limit=items, seed=0, cache=Path(folder) / "cache.sqlite")
        settings = replace(config, run=run)
        load_before, start, cpu = os.getloadavg()[0], time.perf_counter(), time.process_time()
        result = stress(benchmark, "smollm2", settings)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    counts = result.counts
    load_after = os.getloadavg()[0]
    timing = Timing(name, items, counts.requests, counts.misses, seconds, cpu_seconds, load_before, load_after)
    print(timing.row(), flush=True)
    return timing


def time_full_demo() -> str:
    """The whole built-in job (``run_demo``: four benchmarks written, summarised and audited, the stress run, the
    report), fresh folder and cache: one sentence."""
    from pfungst.demo import run_demo

    with tempfile.TemporaryDirectory() as folder:
        load_before, start = os.getloadavg()[0], time.perf_counter()
        result = run_demo(folder)
        seconds = time.perf_counter() - start
    line = (
        f"The whole `pfungst demo` (4 audits of 400 items, the stress run, the report): {seconds:.1f} s, of which "
        f"the stress run's model time {result.stress.counts.seconds:.1f} s; load {load_before:.1f} -> "
        f"{os.getloadavg()[0]:.1f}."
    )
    print(line, flush=True)
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", action="store_true", help="Also time the demo's earlier settings.")
    parser.add_argument("--old-items", type=int, default=4, help="Items for llama.cpp's own thread choice.")
    parser.add_argument("--full", action="store_true", help="Also time the whole `pfungst demo` (audits included).")
    add_record_option(parser)
    args = parser.parse_args()
    choice = choose_threads()
    print(f"threads chosen: {choice.describe()}")
    header = (
        "| run | items | questions | requests to the model | seconds | seconds / 60 s target | s per request "
        "| CPU s | load (1 min) |\n|---|---|---|---|---|---|---|---|---|"
    )
    print(header)
    timings = [time_stress("demo (identity, answer-moved, pride; threads from free cores)", DEMO_STRESS, ITEMS)]
    if args.compare:
        timings.append(time_stress("earlier demo settings, threads from free cores", EARLIER, ITEMS))
        with llama_cpp_default_threads():
            timings.append(time_stress("earlier demo settings, llama.cpp's own threads", EARLIER, args.old_items))
    demo = timings[0]
    full = time_full_demo() if args.full else ""
    verdict = "met" if demo.seconds < TARGET_S else "not met"
    summary = (
        f"Target: the demo's stress under {TARGET_S:.0f} s on 2 cores: {demo.seconds:.1f} s, "
        f"{demo.seconds / TARGET_S:.2f} of the target ({verdict}); {demo.requests} model requests for "
        f"{demo.questions} questions, {demo.cpu_seconds:.1f} CPU s ({demo.cpu_seconds / TARGET_S:.2f} of the target on "
        f"an idle machine). Threads: {choice.describe()}."
    )
    print(summary)
    if not args.no_record:
        body = "\n".join([header, *(timing.row() for timing in timings), "", summary, "", full])
        record_results("demo_time", "The demo's stress run against its 60 s target", body)


if __name__ == "__main__":
    main()
