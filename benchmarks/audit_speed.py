"""Time the default audit on the four Pacchiardi et al. 2024 datasets against the reference code's 160 s.

The reference (the paper's code: one 60/20/20 split, no intervals, no permutation tests; 13 feature sets and its
classifiers) took 14 + 25 + 39 + 82 = 160 s on 2 cores (issue 10). pfungst's default protocol does far more: 13
feature sets under 2 x 5-fold cross-fitting with an inner C grid, bootstrap intervals, 1,000 label permutations,
the zero-training heuristics and the cue table. This script runs exactly that (``pfungst audit DATA`` with every
default) on each dataset in one process, after the one-time loads (GPT-2's tokenizer, textstat), and prints the
seconds per dataset, the total and the ratio reference / pfungst, all measured in this run.

Run: .venv/bin/python benchmarks/audit_speed.py [--n-jobs 2] [--parallel processes|threads] [--repeat 3] [--profile]
Needs ../shared/data (the gpt-4-0613 prompt logs). ``--repeat`` keeps the fastest of several runs (the machine is
shared: the minimum is the least disturbed). ``--profile`` prints a pyinstrument profile of one run instead.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from results_file import add_record_option, recording

import pfungst
from pfungst.audit import AuditConfig
from pfungst.audit.gpt2 import gpt2_encoding
from pfungst.data.benchmark import Benchmark

TITLE = "Default audit on the four Pacchiardi datasets, against the reference code"
"""This script's section title in benchmarks/RESULTS.md."""

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "pacchiardi"
REFERENCE_SECONDS = {"neubaroco": 14, "moral_permissibility": 25, "causal_judgment": 39, "commonsense_qa_2": 82}
"""The reference implementation's seconds per dataset on 2 cores (issue 10); 160 s in all."""
TARGET_RATIO = 20.0
"""Issue 12's target: the default protocol at least 20x faster than the reference's 160 s."""


def load_all() -> dict[str, Benchmark]:
    """The four datasets as ``pfungst audit`` reads them (the gpt-4-0613 prompt logs)."""
    return {name: pfungst.load(DATA / name / "gpt-4-0613.jsonl") for name in REFERENCE_SECONDS}


def time_audits(benchmarks: dict[str, Benchmark], config: AuditConfig) -> dict[str, tuple[float, float]]:
    """Wall and CPU seconds (this process only) of one default audit of each benchmark."""
    seconds = {}
    for name, benchmark in benchmarks.items():
        started, cpu = time.perf_counter(), time.process_time()
        pfungst.audit(benchmark, config)
        seconds[name] = (time.perf_counter() - started, time.process_time() - cpu)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--parallel", choices=("processes", "threads"), default="processes")
    parser.add_argument("--repeat", type=int, default=1, help="Runs; the fastest per dataset is kept.")
    parser.add_argument("--profile", action="store_true", help="Print a pyinstrument profile of one run.")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("audit_speed", TITLE, enabled=not args.no_record):
        gpt2_encoding()  # one-time load, as in any process that audits more than once
        benchmarks = load_all()
        config = AuditConfig(n_jobs=args.n_jobs, parallel=args.parallel)
        time_audits({"neubaroco": benchmarks["neubaroco"]}, config)  # warm up imports and caches of code, not data
        if args.profile:
            from pyinstrument import Profiler

            with Profiler() as profiler:
                time_audits(benchmarks, config)
            print(profiler.output_text(unicode=True, color=False, show_all=False))
            return
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.repeat):
            for name, seconds in time_audits(benchmarks, config).items():
                best[name] = min(seconds, best.get(name, (float("inf"), float("inf"))))
        for name, (wall, cpu) in best.items():
            print(
                f"{name}: {len(benchmarks[name])} items, {wall:.2f} s wall, {cpu:.2f} s CPU of this process "
                f"(reference {REFERENCE_SECONDS[name]} s)"
            )
        total, cpu_total = sum(w for w, _ in best.values()), sum(c for _, c in best.values())
        reference = sum(REFERENCE_SECONDS.values())
        ratio = reference / total
        met = "met" if ratio >= TARGET_RATIO else "NOT met"
        print(
            f"total: {total:.2f} s wall ({cpu_total:.2f} s CPU) against the reference's {reference} s: {ratio:.1f}x "
            f"({met}; target {TARGET_RATIO:g}x)"
        )
        print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
