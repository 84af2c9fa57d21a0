"""Measure the speed-up of a Dask cluster from 1 to 2 local worker processes on one default audit.

A ``dask.distributed.LocalCluster`` of N single-threaded worker processes is started here and handed to pfungst by
its scheduler address (``pfungst.audit.audit(benchmark, cluster="tcp://...")``, as ``pfungst audit --cluster ADDRESS``
does), for N = 1 and then 2. (With one worker, joblib's Dask backend sees one core and runs the jobs in this
process, as a serial run does: that is the 1-worker figure.) Both runs audit the same benchmark with every default
(13 feature sets x 2 x 5 folds for shared labels); the script checks that both results are identical, figure for
figure, and prints the wall seconds of each and the ratio, all measured in this run. Starting the cluster is not
timed (a suite keeps one cluster for all its benchmarks).

Run: .venv/bin/python benchmarks/cluster_speedup.py [DATA] [--workers 1,2]
Default DATA: ../shared/data/pacchiardi/commonsense_qa_2/gpt-4-0613.jsonl (2,537 items). Needs ``pfungst[dask]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from results_file import add_record_option, recording

import pfungst
from pfungst.audit import AuditResult
from pfungst.audit.gpt2 import gpt2_encoding

TITLE = "Dask cluster: 1 against 2 local workers"
"""This script's section title in benchmarks/RESULTS.md."""

REPOSITORY = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPOSITORY.parent / "shared" / "data" / "pacchiardi" / "commonsense_qa_2" / "gpt-4-0613.jsonl"


def figures(result: AuditResult) -> str:
    """The result's probes and verdict as canonical JSON (timings and versions left out) to compare runs."""
    data = result.to_dict()
    probes = [{key: value for key, value in probe.items() if key != "seconds"} for probe in data["probes"]]
    return json.dumps({"probes": probes, "verdict": data["verdict"]}, sort_keys=True, default=str)


def timed_audit(benchmark: pfungst.Benchmark, n_workers: int) -> tuple[float, AuditResult]:
    """Wall seconds of one default audit on a fresh LocalCluster of ``n_workers`` processes (start not timed)."""
    import distributed

    with distributed.LocalCluster(
        n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        started = time.perf_counter()
        result = pfungst.audit.audit(benchmark, cluster=cluster.scheduler_address)
        return time.perf_counter() - started, result


def _shown(path: Path) -> str:
    """``path`` as printed in the record: relative to the repository's parent (``../shared/...``) where it lies there,
    so that the record names no machine's folders."""
    try:
        return str(Path("..") / path.resolve().relative_to(REPOSITORY.parent))
    except ValueError:
        return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="?", default=str(DEFAULT_DATA))
    parser.add_argument("--workers", default="1,2", help="Comma-separated worker counts, the first is the base.")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("cluster_speedup", TITLE, enabled=not args.no_record):
        gpt2_encoding()
        benchmark = pfungst.load(args.data)
        counts = [int(part) for part in args.workers.split(",")]
        seconds, reference = {}, ""
        for n_workers in counts:
            seconds[n_workers], result = timed_audit(benchmark, n_workers)
            same = "" if not reference else ("; identical to the first run" if figures(result) == reference else "")
            if reference and not same:
                raise SystemExit(f"{n_workers} workers: the result differs from the {counts[0]}-worker run")
            reference = reference or figures(result)
            where = " (joblib runs the jobs in this process: one core)" if n_workers == 1 else ""
            print(f"{n_workers} worker(s): {seconds[n_workers]:.1f} s wall{where}{same}", flush=True)
        base = seconds[counts[0]]
        for n_workers in counts[1:]:
            print(f"speed-up {counts[0]} -> {n_workers} workers: {base / seconds[n_workers]:.2f}x")
        load = os.getloadavg()[0]
        print(f"{len(benchmark)} items of {_shown(Path(args.data))}; {os.cpu_count()} cores; load average {load:.1f}")


if __name__ == "__main__":
    main()
