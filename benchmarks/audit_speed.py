"""Time the default audit on the four Pacchiardi et al. 2024 datasets against the reference code's 160 s, and the
warm-started C path against fitting every grid entry from scratch, in one run.

The reference (the paper's code: one 60/20/20 split, no intervals, no permutation tests; 13 feature sets and its
classifiers) took 14 + 25 + 39 + 82 = 160 s on 2 cores (issue 10). pfungst's default protocol does far more: 13
feature sets under 2 x 5-fold cross-fitting with an inner C grid, bootstrap intervals, 1,000 label permutations,
the zero-training heuristics and the cue table. This script runs exactly that (``pfungst audit DATA`` with every
default) on each dataset in one process, after the one-time loads (GPT-2's tokenizer, textstat), in two arms,
interleaved dataset by dataset so that both see the same machine load:

- ``scratch``: every grid entry fitted from scratch (``warm_start=False``, the default);
- ``path``: ``warm_start=True`` (each penalty's C grid as one warm-started path, the refit started at the inner
  optimum);
- ``patience``: ``path`` with ``grid_patience`` (``--patience N``; left out when 0);
- ``scratch-patience``: ``scratch`` with ``grid_patience`` (``--patience N``; left out when 0).

``--arms`` picks which run (``scratch`` always does).

It prints per dataset and arm the wall and CPU seconds, the CPU ratio scratch / path, the ratio reference / path,
and whether each arm gives the same verdicts, chosen classifiers and kappas (``|delta kappa| <= 0.005``) as
``scratch``; ``--extra PATH[:FIELD,...]`` adds other benchmarks to that comparison (timed, no reference). CPU
seconds are this process's: on a shared machine they measure the audit, wall seconds measure the neighbours too.

Run: .venv/bin/python benchmarks/audit_speed.py [--repeat 1] [--patience 1] [--extra ../shared/data/...]
     [--n-jobs 2] [--parallel processes|threads] [--arms scratch,scratch-patience] [--profile] [--no-record]
``--repeat`` keeps the fastest of several runs per arm. ``--profile`` prints a cProfile (CPU time) of one path run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pfungst
from pfungst.audit import AuditConfig
from pfungst.audit.gpt2 import gpt2_encoding
from pfungst.data.benchmark import Benchmark

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import add_record_option, record_results  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "pacchiardi"
REFERENCE_SECONDS = {"neubaroco": 14, "moral_permissibility": 25, "causal_judgment": 39, "commonsense_qa_2": 82}
"""The reference implementation's seconds per dataset on 2 cores (issue 10); 160 s in all."""
TARGET_RATIO = 10.0
"""Issue 28's target: the default protocol at least 10x faster than the reference's 160 s, in one process."""
TOLERANCE = 0.005
"""Largest |delta kappa| between arms counted as the same result."""


@dataclass
class Run:
    """One audit of one benchmark in one arm: seconds and the result."""

    wall: float
    cpu: float
    result: object


def load_all(names: list[str], extra: list[str]) -> dict[str, tuple[Benchmark, tuple[str, ...]]]:
    """The named Pacchiardi datasets as ``pfungst audit`` reads them (the gpt-4-0613 prompt logs), then ``extra``."""
    found = {name: (pfungst.load(DATA / name / "gpt-4-0613.jsonl"), ()) for name in names}
    for entry in extra:
        path, _, fields = entry.partition(":")
        found[Path(path).stem] = (pfungst.load(path), tuple(field for field in fields.split(",") if field))
    return found


def arms(base: AuditConfig, patience: int, chosen: str = "scratch,path,patience") -> dict[str, AuditConfig]:
    """The configurations compared (those named in ``chosen``; ``scratch`` always): from scratch, the warm path,
    and (``patience`` > 0) the path stopped early and the scratch grid stopped early."""
    found = {"scratch": replace(base, warm_start=False), "path": replace(base, warm_start=True)}
    if patience:
        found["patience"] = replace(base, warm_start=True, grid_patience=patience)
        found["scratch-patience"] = replace(base, warm_start=False, grid_patience=patience)
    names = {"scratch", *chosen.split(",")}
    return {name: config for name, config in found.items() if name in names}


def time_audit(benchmark: Benchmark, config: AuditConfig) -> Run:
    """Wall and CPU seconds (this process only) of one audit."""
    started, cpu = time.perf_counter(), time.process_time()
    result = pfungst.audit.audit(benchmark, config)
    return Run(time.perf_counter() - started, time.process_time() - cpu, result)


def run_all(benchmarks: dict, configs: dict[str, AuditConfig], repeat: int) -> dict[tuple[str, str], Run]:
    """Every (benchmark, arm), arms interleaved per benchmark; the fastest (CPU) of ``repeat`` runs is kept."""
    best: dict[tuple[str, str], Run] = {}
    for _ in range(repeat):
        for name, (benchmark, fields) in benchmarks.items():
            for arm, config in configs.items():
                run = time_audit(benchmark, replace(config, fields=fields))
                if (name, arm) not in best or run.cpu < best[(name, arm)].cpu:
                    best[(name, arm)] = run
                print(f"  {name} {arm}: {run.wall:.1f} s wall, {run.cpu:.1f} s CPU", file=sys.stderr, flush=True)
            print("\n".join(rows({name: (benchmark, fields)}, best, configs)), file=sys.stderr, flush=True)
    return best


def agreement(old: object, new: object) -> tuple[bool, float, int, int]:
    """Same verdict?, the largest |delta kappa| over feature sets, folds with the same chosen classifier, folds."""
    same_verdict = old.verdict.label == new.verdict.label and old.verdict.feature_set == new.verdict.feature_set
    delta, same, folds = 0.0, 0, 0
    for before, after in zip(old.probes, new.probes, strict=True):
        delta = max(delta, abs(before.kappa.value - after.kappa.value))
        same += sum(a.classifier == b.classifier for a, b in zip(before.folds, after.folds, strict=True))
        folds += len(before.folds)
    return same_verdict, delta, same, folds


def rows(benchmarks: dict, best: dict[tuple[str, str], Run], configs: dict[str, AuditConfig]) -> list[str]:
    """One Markdown table row per (benchmark, arm): seconds, the CPU ratio and the agreement with ``scratch``."""
    lines = []
    for name, (benchmark, _) in benchmarks.items():
        old = best[(name, "scratch")]
        for arm in configs:
            run = best[(name, arm)]
            verdict, delta, same, folds = agreement(old.result, run.result)
            lines.append(
                f"| {name} | {len(benchmark)} | {arm} | {run.wall:.1f} | {run.cpu:.1f} | {old.cpu / run.cpu:.2f}x "
                f"| {'yes' if verdict else 'NO'} | {delta:.4f}{'' if delta <= TOLERANCE else ' (over)'} "
                f"| {same}/{folds} |"
            )
    return lines


def report(benchmarks: dict, best: dict[tuple[str, str], Run], configs: dict[str, AuditConfig]) -> str:
    """The Markdown table of seconds, ratios and agreement with ``scratch``, and the totals line per arm."""
    lines = [
        "| dataset | items | arm | wall s | CPU s | CPU scratch/arm | same verdict | max delta kappa | same choice |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows(benchmarks, best, configs),
        "",
    ]
    timed = [name for name in REFERENCE_SECONDS if name in benchmarks]
    reference = sum(REFERENCE_SECONDS[name] for name in timed)
    for arm in configs:
        wall = sum(best[(name, arm)].wall for name in timed)
        cpu = sum(best[(name, arm)].cpu for name in timed)
        met = "met" if reference / cpu >= TARGET_RATIO else "NOT met"
        lines.append(
            f"- {arm}: {len(timed)} Pacchiardi dataset(s) ({', '.join(timed)}) in {wall:.1f} s wall, {cpu:.1f} s "
            f"CPU: reference {reference} s / CPU = {reference / cpu:.1f}x ({met}; target {TARGET_RATIO:g}x), "
            f"reference / wall = {reference / wall:.1f}x"
        )
    lines.append(f"- load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return "\n".join(lines)


def profile(benchmarks: dict, config: AuditConfig) -> None:
    """Print a cProfile (CPU time) of one default audit of every dataset."""
    import cProfile
    import pstats

    profiler = cProfile.Profile(time.process_time)
    with profiler:
        for benchmark, fields in benchmarks.values():
            pfungst.audit.audit(benchmark, replace(config, fields=fields))
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--parallel", choices=("processes", "threads"), default="processes")
    parser.add_argument("--repeat", type=int, default=1, help="Runs per arm; the fastest (CPU) is kept.")
    parser.add_argument("--patience", type=int, default=0, help="Add an arm with this grid_patience (0: none).")
    parser.add_argument(
        "--arms",
        default="scratch,path,patience",
        help="Arms to run, of scratch, path, patience, scratch-patience (the last two need --patience).",
    )
    parser.add_argument("--extra", action="append", default=[], help="Another benchmark PATH[:FIELD,...].")
    parser.add_argument(
        "--datasets", default=",".join(REFERENCE_SECONDS), help="Pacchiardi datasets to time (default: all four)."
    )
    parser.add_argument("--profile", action="store_true", help="Print a CPU-time profile of one run.")
    add_record_option(parser)
    args = parser.parse_args()
    gpt2_encoding()  # one-time load, as in any process that audits more than once
    benchmarks = load_all([name for name in args.datasets.split(",") if name], args.extra)
    config = AuditConfig(n_jobs=args.n_jobs, parallel=args.parallel)
    time_audit(next(iter(benchmarks.values()))[0], config)  # warm up imports and caches of code, not data
    if args.profile:
        profile(benchmarks, config)
        return
    configs = arms(config, args.patience, args.arms)
    table = report(benchmarks, run_all(benchmarks, configs, args.repeat), configs)
    print(table)
    if not args.no_record:
        record_results("audit_speed", "Default audit of the four Pacchiardi datasets: C paths against scratch", table)


if __name__ == "__main__":
    main()
