"""How the default audit's time and memory grow with the number of items: synthetic shared-label benchmarks.

Items are realistic in length and vocabulary: 20 to 60 words drawn from a 30,000-word Zipfian vocabulary, 3 labels,
and one planted cue (the word ``zqxcue`` in 60% of label 0's items and 5% of the others'). Each size runs in its own
child process (``/usr/bin/time -v`` when present, else ``resource``), so the peak resident memory is that audit's
alone. The script prints, per size: wall and CPU seconds, peak memory, the verdict, whether the cue was found (the
best probe's top features or the cue table name it), and the feature sets that ran, with the repeats and the reason
the audit recorded; then the exponent ``b`` of ``seconds ~ a * items^b`` fitted by least squares on the logs (1 is
linear) over all sizes (the default audit, whatever sets it ran) and over each group of sizes that ran the same sets,
and the 1M-item figures against the targets (10 minutes, 4 GiB, exponent at most 1) as ratios. The exponent is
fitted on the audit's CPU seconds by default: on a shared machine wall time measures the neighbours (``--fit-on
seconds`` fits wall time; with ``--n-jobs`` above 1 only wall time counts the workers).

Run: .venv/bin/python benchmarks/audit_scaling.py [--sizes 10000,100000,1000000] [--concurrent 3]
     [--feature-set 1-grams_presence ...] [--all-feature-sets] [--n-splits 5] [--n-repeats 2] [--n-jobs 1]
     [--parallel processes|threads] [--deadline-minutes 60] [--no-cues] [--no-record]
Without ``--feature-set`` each size runs its default (``pfungst.audit.size_defaults``); ``--concurrent N`` runs N
sizes at once (CPU seconds and peak memory stay each audit's own; wall seconds then include the others);
``--deadline-minutes M`` stops the sizes still running M minutes after the start and reports them as unfinished.
Runs with ``--all-feature-sets`` are recorded in a section of their own (``audit_scaling_all_sets``; with ``--n-jobs``
above 1, ``audit_scaling_all_sets_workers``), against the 13 sets' targets: 30 minutes of wall time in one process, 20
on two workers. With workers, each row also gives the CPU seconds of all processes (``/usr/bin/time``) and the
largest resident memory of all of them together, sampled every 2 s (psutil).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_file import add_record_option, record_results  # noqa: E402

CUE = "zqxcue"
LABELS = ("entailment", "neutral", "contradiction")


def make_items(n_items: int, seed: int = 0) -> object:
    """The synthetic benchmark of ``n_items`` items (see the module docstring)."""
    from pfungst.data.benchmark import Benchmark, Item

    rng = np.random.default_rng(seed)
    vocabulary = [f"w{k}" for k in range(30_000)]
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)
    weights /= weights.sum()
    labels = rng.integers(0, 3, size=n_items)
    lengths = rng.integers(20, 61, size=n_items)
    cued = rng.random(n_items) < np.where(labels == 0, 0.60, 0.05)
    items = []
    # Word ids in chunks of items, so that generating a million items holds no 40-million-word array: the peak
    # memory measured is the audit's, not the generator's.
    for chunk in range(0, n_items, 50_000):
        stop = min(n_items, chunk + 50_000)
        ids = rng.choice(len(vocabulary), size=int(lengths[chunk:stop].sum()), p=weights).tolist()
        start = 0
        for index in range(chunk, stop):
            text = [vocabulary[i] for i in ids[start : start + lengths[index]]]
            start += lengths[index]
            if cued[index]:
                text[int(rng.integers(0, len(text)))] = CUE
            items.append(Item(f"s{index}", " ".join(text), LABELS, int(labels[index])))
    return Benchmark(f"scaling-{n_items}", tuple(items), "shared_labels", LABELS)


TARGET_SECONDS, TARGET_MIB, TARGET_EXPONENT = 600.0, 4096.0, 1.0
"""The default audit's targets at 1M items on 2 cores: 10 minutes, 4 GiB, and time growing at most linearly."""
ALL_SETS_SECONDS = {1: 1800.0, 2: 1200.0}
"""The 13 paper sets' targets at 1M items, by worker count: 30 minutes in one process, 20 minutes on two workers
(wall time; no memory target)."""


def run_one(n_items: int, args: argparse.Namespace) -> dict[str, object]:
    """Audit one size in this process; the figures as a dict."""
    import pfungst
    from pfungst.audit import AuditConfig

    benchmark = make_items(n_items)
    config = AuditConfig(
        feature_sets=tuple(args.feature_set),
        all_feature_sets=args.all_feature_sets,
        n_splits=args.n_splits,
        n_repeats=args.n_repeats,
        n_jobs=args.n_jobs,
        cues=args.cues,
        parallel=args.parallel,
    )
    started, cpu = time.perf_counter(), time.process_time()
    result = pfungst.audit.audit(benchmark, config)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    best = result.best
    named = [weight.feature for weight in best.top_features]
    if result.cues is not None:
        named += [str(row.get("cue", "")) for row in result.cues.to_frame().head(10).to_dict("records")]
    ci = result.verdict.estimate.ci
    return {
        "items": n_items,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "verdict": result.verdict.label,
        "best": best.feature_set,
        "kappa": result.verdict.estimate.value,
        "ci": [ci.low, ci.high] if ci is not None else None,
        "cue_found": any(CUE in name for name in named),
        "peak_mib_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "feature_sets": result.provenance.settings["feature_sets"],
        "n_repeats": result.provenance.settings["n_repeats"],
        "n_splits": result.provenance.settings["n_splits"],
        "reason": result.provenance.settings.get("feature_sets_reason", ""),
        "n_jobs": args.n_jobs,
    }


def child_command(n_items: int, args: argparse.Namespace) -> list[str]:
    """The command that audits one size in a child process (under ``/usr/bin/time -v`` when present)."""
    command = [sys.executable, __file__, "--child", str(n_items), "--n-jobs", str(args.n_jobs)]
    command += ["--parallel", args.parallel]
    command += [part for name in args.feature_set for part in ("--feature-set", name)]
    command += ["--all-feature-sets"] if args.all_feature_sets else []
    command += ["--n-splits", str(args.n_splits), "--n-repeats", str(args.n_repeats)]
    command += [] if args.cues else ["--no-cues"]
    timer = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    return [timer, "-v", *command] if timer else command


def measure(sizes: list[int], args: argparse.Namespace) -> list[dict[str, object]]:
    """Run each size in a child process, ``args.concurrent`` at a time, each printed as it finishes; a size still
    running ``args.deadline_minutes`` after the start is stopped and reported as unfinished."""
    deadline = time.monotonic() + 60 * args.deadline_minutes if args.deadline_minutes else math.inf
    rows: dict[int, dict[str, object]] = {}
    peaks: dict[int, float] = {}
    pending, running = list(sizes), []
    with tempfile.TemporaryDirectory() as folder:
        while pending or running:
            while pending and len(running) < args.concurrent:
                running.append(_start(pending.pop(0), args, folder))
            time.sleep(2)
            for entry in running:
                peaks[entry[0]] = max(peaks.get(entry[0], 0.0), tree_mib(entry[1].pid))
            for entry in [entry for entry in running if entry[1].poll() is not None or time.monotonic() > deadline]:
                running.remove(entry)
                rows[entry[0]] = _finish(*entry, peak_tree_mib=peaks.get(entry[0], 0.0))
                print(row_line(rows[entry[0]]), flush=True)
    return [rows[n_items] for n_items in sizes]


def _start(n_items: int, args: argparse.Namespace, folder: str) -> tuple[int, subprocess.Popen[bytes], str, float]:
    """Start one size's child, its output into files (a pipe could fill while another child is awaited)."""
    base = os.path.join(folder, str(n_items))
    with open(base + ".out", "w") as out, open(base + ".err", "w") as err:
        child = subprocess.Popen(child_command(n_items, args), stdout=out, stderr=err, start_new_session=True)
    return n_items, child, base, time.monotonic()


def _finish(
    n_items: int, child: subprocess.Popen[bytes], base: str, started: float, peak_tree_mib: float
) -> dict[str, object]:
    """One size's figures, or an unfinished row when the deadline stopped it; ``peak_tree_mib`` is the largest
    memory of the child's process tree sampled while it ran (:func:`tree_mib`)."""
    if child.poll() is None:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait()
        return {"items": n_items, "unfinished": True, "seconds": time.monotonic() - started}
    with open(base + ".out") as out, open(base + ".err") as err:
        stdout, stderr = out.read(), err.read()
    if child.returncode:
        raise SystemExit(f"the {n_items}-item audit failed:\n{stderr[-3000:]}")
    figures: dict[str, object] = json.loads(stdout.strip().splitlines()[-1])
    for line in stderr.splitlines():
        if "Maximum resident set size" in line:
            figures["peak_mib"] = int(line.rsplit(":", 1)[1]) / 1024
        if line.strip().startswith(("User time (seconds)", "System time (seconds)")):
            figures["tree_cpu_seconds"] = figures.get("tree_cpu_seconds", 0.0) + float(line.rsplit(":", 1)[1])
    figures.setdefault("peak_mib", figures["peak_mib_self"])
    figures["peak_tree_mib"] = peak_tree_mib
    figures["load"] = os.getloadavg()[0]
    return figures


def tree_mib(pid: int) -> float:
    """The resident memory of process ``pid`` and all its descendants, summed (shared pages count in each), in MiB;
    0 where psutil is missing or the process is gone."""
    try:
        import psutil
    except ImportError:
        return 0.0
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0
    for process in processes:
        with contextlib.suppress(psutil.Error):  # a worker may exit between the listing and the reading
            total += process.memory_info().rss
    return total / 2**20


def row_line(row: dict[str, object]) -> str:
    """One size's figures in one line."""
    if row.get("unfinished"):
        return f"- {row['items']:,} items: not finished, stopped at the deadline after {row['seconds']:.0f} s wall"
    ci = row["ci"] or [math.nan, math.nan]  # type: ignore[index]
    workers = ""
    if int(row.get("n_jobs", 1)) > 1:  # type: ignore[call-overload]
        workers = (
            f" ({row['n_jobs']} worker processes: {row.get('tree_cpu_seconds', math.nan):.1f} s CPU and "
            f"{row['peak_tree_mib']:.0f} MiB resident at most, all processes together)"
        )
    return (
        f"- {row['items']:,} items: {row['seconds']:.1f} s wall, {row['cpu_seconds']:.1f} s CPU, "
        f"peak {row['peak_mib']:.0f} MiB{workers}, load {row['load']:.1f}; {row['verdict']} ({row['best']}, kappa "
        f"{row['kappa']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]), cue found: {row['cue_found']}; "  # type: ignore[index]
        f"{len(row['feature_sets'])} feature set(s) x {row['n_repeats']} repeat(s) of {row['n_splits']} folds: "  # type: ignore[arg-type]
        f"{', '.join(row['feature_sets'])} ({row['reason']})"  # type: ignore[arg-type]
    )


def exponent_lines(rows: list[dict[str, object]], fit_on: str) -> list[str]:
    """The fitted exponent over all sizes (each its default), then over each group of sizes that ran the same sets."""
    groups = {"all sizes (each its default)": rows} if len(rows) > 1 else {}
    for sets in dict.fromkeys(tuple(row["feature_sets"]) for row in rows):  # type: ignore[arg-type]
        group = [row for row in rows if tuple(row["feature_sets"]) == sets]  # type: ignore[arg-type]
        if 1 < len(group) < len(rows):
            groups[f"{len(sets)} feature set(s)"] = group
    lines = []
    for label, group in groups.items():
        x = np.log([float(row["items"]) for row in group])  # type: ignore[arg-type]
        y = np.log([float(row[fit_on]) for row in group])  # type: ignore[arg-type]
        exponent, _ = np.polyfit(x, y, 1)
        verdict = "met" if exponent <= TARGET_EXPONENT else "missed"
        lines.append(
            f"- exponent, {label}, {len(group)} sizes: {fit_on} ~ items^{exponent:.2f} "
            f"(target at most {TARGET_EXPONENT:g}: {verdict}, ratio {exponent / TARGET_EXPONENT:.2f})"
        )
    return lines


def target_lines(rows: list[dict[str, object]], args: argparse.Namespace) -> list[str]:
    """The largest size's figures against the 1M-item targets, as ratios (at most 1 meets the target): the
    default's (:data:`TARGET_SECONDS`, :data:`TARGET_MIB`), or with ``--all-feature-sets`` the 13 sets' wall time
    for the worker count (:data:`ALL_SETS_SECONDS`; CPU time too in one process)."""
    row = max(rows, key=lambda r: int(r["items"]))  # type: ignore[call-overload]
    wall, cpu = float(row["seconds"]), float(row["cpu_seconds"])  # type: ignore[arg-type]
    if args.all_feature_sets:
        target = ALL_SETS_SECONDS.get(args.n_jobs)
        if target is None:
            return [f"- {row['items']:,} items: no target for the 13 sets on {args.n_jobs} workers"]
        checks = [("wall", wall, target, "s")] + ([("CPU", cpu, target, "s")] if args.n_jobs == 1 else [])
    else:
        checks = [("wall", wall, TARGET_SECONDS, "s"), ("CPU", cpu, TARGET_SECONDS, "s")]
        checks.append(("peak memory", float(row["peak_mib"]), TARGET_MIB, "MiB"))  # type: ignore[arg-type]
    lines = []
    for name, value, target, unit in checks:
        verdict = "met" if value <= target else "missed"
        lines.append(
            f"- {row['items']:,} items, {name}: {value:.0f} {unit} against {target:.0f} {unit}: "
            f"ratio {value / target:.2f} ({verdict})"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--feature-set", action="append", default=[])
    parser.add_argument("--all-feature-sets", action="store_true", help="The 13 sets at every size.")
    parser.add_argument("--concurrent", type=int, default=1, help="Sizes audited at once (child processes).")
    parser.add_argument(
        "--deadline-minutes", type=float, default=0, help="Stop sizes still running this long after the start."
    )
    parser.add_argument("--n-splits", type=int, default=5, help="Folds of the cross-fitting (the CLI's --n-splits).")
    parser.add_argument(
        "--n-repeats", type=int, default=2, help="Cross-fitting repeats where they apply (the CLI's --n-repeats)."
    )
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--parallel", choices=("processes", "threads"), default="processes")
    parser.add_argument("--no-cues", dest="cues", action="store_false")
    parser.add_argument(
        "--fit-on",
        choices=("cpu_seconds", "seconds"),
        default="cpu_seconds",
        help="Fit the exponent on CPU seconds of the audit (default: robust on a shared machine; n_jobs 1) or wall.",
    )
    parser.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child, args)))
        return
    rows = measure([int(size) for size in args.sizes.split(",")], args)
    done = [row for row in rows if not row.get("unfinished")]
    lines = [row_line(row) for row in rows] + exponent_lines(done, args.fit_on)
    lines += target_lines(done, args) if done else []
    for line in lines[len(rows) :]:
        print(line)
    if not args.no_record:
        if args.all_feature_sets and args.n_jobs > 1:  # sections of their own, beside the default's
            title = f"The 13 paper feature sets on {args.n_jobs} worker processes against benchmark size (synthetic)"
            record_results("audit_scaling_all_sets_workers", title, "\n".join(lines))
        elif args.all_feature_sets:
            title = "The 13 paper feature sets' time and memory against benchmark size (synthetic)"
            record_results("audit_scaling_all_sets", title, "\n".join(lines))
        else:
            title = "Default audit time and memory against benchmark size (synthetic)"
            record_results("audit_scaling", title, "\n".join(lines))


if __name__ == "__main__":
    main()
