"""Audit the whole BIG-bench JSON task set as one suite and record its figures in RESULTS.md.

Run: .venv/bin/python benchmarks/bigbench_suite.py [--cache DIR] [--out DIR] [--quick] [--limit N] [--max-items N]

The task files come from the PyPI ``bigbench`` 1.0.0 source distribution (``bigbench-1.0.0.tar.gz``, about 358 MB,
1,041 ``task.json`` files under ``bigbench/benchmark_tasks/``). The first run downloads it once with
``pip download --no-deps bigbench==1.0.0`` into the cache folder (default ``~/.cache/pfungst/bigbench-1.0.0``,
outside the repository) and unpacks only the ``task.json`` files; later runs reuse them. The suite's own cache
(``--out``) makes an interrupted run resume where it stopped.

Prints: tasks found, audited and skipped (generative tasks have no ``target_scores``), items, wall time, peak
memory (this process's maximum resident set size), the gold-position artifacts, and the top 15 tasks by risk.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from results_file import add_record_option, recording

from pfungst.audit import AuditConfig
from pfungst.audit.suite import SuiteConfig, SuiteResult, audit_suite

TITLE = "The whole BIG-bench JSON task set as one suite"
"""This script's section title in benchmarks/RESULTS.md."""

VERSION = "1.0.0"
TASKS_PREFIX = "bigbench/benchmark_tasks/"


def fetch_tasks(cache: Path, archive_path: Path | None = None) -> Path:
    """The folder of unpacked ``task.json`` files, downloading and unpacking the sdist on first use.

    ``archive_path``: an already downloaded ``bigbench-1.0.0.tar.gz``. pip 26 refuses to download it (its metadata
    declares a direct-URL dependency, ``bleurt @ file://...``, which PyPI distributions may not); pip 22.3.1 in a
    throw-away virtual environment downloads it: ``python -m venv /tmp/oldpip && /tmp/oldpip/bin/pip install
    pip==22.3.1 && /tmp/oldpip/bin/pip download --no-deps bigbench==1.0.0 -d CACHE``.
    """
    tasks = cache / "benchmark_tasks"
    if tasks.is_dir() and any(tasks.rglob("task.json")):
        return tasks
    cache.mkdir(parents=True, exist_ok=True)
    archives = [archive_path] if archive_path else sorted(cache.glob(f"bigbench-{VERSION}.tar.gz"))
    if not archives:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", f"bigbench=={VERSION}", "-d", str(cache)]
        print("downloading:", " ".join(command), file=sys.stderr, flush=True)
        if subprocess.run(command, check=False).returncode != 0:
            raise SystemExit(
                f"pip download refused bigbench=={VERSION} (newer pip rejects its direct-URL dependency on bleurt). "
                f"Download bigbench-{VERSION}.tar.gz from https://pypi.org/project/bigbench/{VERSION}/#files (or with "
                "pip 22.3.1 in a throw-away virtual environment) and pass --archive PATH"
            )
        archives = sorted(cache.glob(f"bigbench-{VERSION}.tar.gz"))
    with tarfile.open(archives[0]) as archive:
        members = [
            m
            for m in archive.getmembers()
            if m.isfile() and m.name.endswith("/task.json") and TASKS_PREFIX in m.name and ".." not in m.name
        ]
        for member in members:
            member.name = member.name.split(TASKS_PREFIX, 1)[1]
        archive.extractall(tasks, members=members, filter="data")
    print(f"unpacked {len(members)} task.json files into {tasks}", file=sys.stderr, flush=True)
    return tasks


def print_figures(result: SuiteResult, found: int, wall: float, peak_mib: float) -> None:
    """The recorded figures: counts, time, memory, position artifacts and the top 15 by risk."""
    print(
        f"task.json files: {found}; audited: {len(result.entries)} (sub)tasks, {result.n_items:,} items; "
        f"skipped: {len(result.skipped)}; reused from the cache: {result.n_reused}"
    )
    print(f"wall time: {wall:.0f} s; peak memory (max RSS): {peak_mib:.0f} MiB")
    flagged = [e.name for e in result.entries if e.position_flagged]
    print(f"gold-position artifacts: {len(flagged)} ({', '.join(flagged[:20])}{', ...' if len(flagged) > 20 else ''})")
    print(
        f"content predictable: {sum(e.content.label == 'predictable' for e in result.entries)}; BH rejected "
        f"(FDR {result.provenance.settings.get('alpha')}): {result.content_tests.n_rejected}"
    )
    print("\n| rank | task | items | statistic | content [CI] | q (BH) | best content probe | gold position |")
    print("|---:|---|---:|---|---|---:|---|---|")
    for rank, (entry, q) in enumerate(zip(result.entries[:15], result.content_tests.qvalues, strict=False), start=1):
        ci = entry.content.estimate.ci
        interval = f"{entry.content.estimate.value:.3f} [{ci.low:.3f}, {ci.high:.3f}]" if ci else "n/a"
        position = "-"
        if entry.position is not None:
            position = f"{entry.position.most_common} {entry.position.most_common_share:.0%}"
            position = f"**artifact** ({position})" if entry.position_flagged else position
        print(
            f"| {rank} | {entry.name} | {entry.n_items} | {entry.content.statistic} | {interval} | {q:.2g} | "
            f"{entry.content.feature_set} | {position} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "pfungst" / f"bigbench-{VERSION}")
    parser.add_argument("--out", type=Path, default=Path.home() / ".cache" / "pfungst" / "bigbench-suite")
    parser.add_argument("--archive", type=Path, default=None, help="a downloaded bigbench-1.0.0.tar.gz")
    parser.add_argument("--quick", action="store_true", help="1 x 3 folds, 200 resamples, per-item defaults only")
    parser.add_argument("--limit", type=int, default=0, help="audit only the first N task files (0: all)")
    parser.add_argument("--max-items", type=int, default=0, help="audit a seeded sample of at most N items per task")
    parser.add_argument(
        "--on-error",
        choices=("raise", "skip"),
        default="skip",
        help="skip (default): drop malformed examples, counted in each audit's provenance; raise: skip the whole task",
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args()
    with recording("bigbench_suite", TITLE, enabled=not args.no_record):
        tasks = fetch_tasks(args.cache, args.archive)
        files = sorted(tasks.rglob("task.json"))
        paths = [file.parent for file in files[: args.limit]] if args.limit else [tasks]
        audit = AuditConfig(seed=args.seed, n_jobs=args.jobs, max_items=args.max_items)
        if args.quick:
            audit = AuditConfig(
                seed=args.seed,
                n_jobs=args.jobs,
                max_items=args.max_items,
                n_repeats=1,
                n_splits=3,
                n_bootstrap=200,
                n_permutations=200,
                feature_sets=("1-grams_presence", "options", "options_no_position", "options_1-grams_presence"),
            )
        started = time.perf_counter()
        result = audit_suite(
            paths,
            args.out,
            SuiteConfig(audit=audit, on_error=args.on_error),
            progress=lambda name, done, total: print(f"[{done}/{total}] {name}", file=sys.stderr, flush=True),
        )
        wall = time.perf_counter() - started
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print_figures(result, len(files), wall, peak_mib)
        held = sum(multiple_choice_examples(file) for file in files)
        print(f"multiple-choice items in the task files: {held:,}; audited: {result.n_items:,}", end="")
        print(f" (tasks over {args.max_items:,} items on a seeded stratified sample)" if args.max_items else "")


def multiple_choice_examples(path: Path) -> int:
    """How many examples of a task file have ``target_scores`` (0 for a file that is not JSON)."""
    try:
        examples = json.loads(path.read_text(encoding="utf-8")).get("examples", [])
    except (ValueError, UnicodeDecodeError, AttributeError):
        return 0
    return sum(1 for example in examples if isinstance(example, dict) and "target_scores" in example)


if __name__ == "__main__":
    main()
