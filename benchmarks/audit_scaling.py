"""How the audit's time and memory grow with the number of items: synthetic shared-label benchmarks, one planted cue.

Items are realistic in length and vocabulary: 20 to 60 words drawn from a 30,000-word Zipfian vocabulary, 3 labels,
and one planted cue (the word ``zqxcue`` in 60% of label 0's items and 5% of the others'). Each size runs in its own
child process (``/usr/bin/time -v`` when present, else ``resource``), so the peak resident memory is that audit's
alone. The script prints, per size: wall seconds, peak memory, the verdict and whether the cue was found (the best
probe's top features or the cue table name it); then the exponent ``b`` of ``seconds ~ a * items^b`` fitted by least
squares on the logs (1 is linear), on the audit's CPU seconds by default: on a shared machine wall time measures the
neighbours (``--fit-on seconds`` fits wall time; with ``--n-jobs`` above 1 only wall time counts the workers).

Run: .venv/bin/python benchmarks/audit_scaling.py [--sizes 10000,100000] [--feature-set 1-grams_presence ...]
     [--n-jobs 1] [--parallel processes|threads] [--no-cues] [--no-record]
Without ``--feature-set`` the default feature sets for each size run: the 13 paper sets up to 50,000 items, word
1-gram presence alone past that (``pfungst.audit.run.LARGE_ITEMS``); each row names the sets that ran and why.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
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


def run_one(n_items: int, feature_sets: list[str], n_jobs: int, cues: bool, parallel: str) -> dict[str, object]:
    """Audit one size in this process; the figures as a dict."""
    import pfungst
    from pfungst.audit import AuditConfig

    benchmark = make_items(n_items)
    config = AuditConfig(feature_sets=tuple(feature_sets), n_jobs=n_jobs, cues=cues, parallel=parallel)  # type: ignore[arg-type]
    started, cpu = time.perf_counter(), time.process_time()
    result = pfungst.audit.audit(benchmark, config)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    best = result.best
    named = [weight.feature for weight in best.top_features]
    if result.cues is not None:
        named += [str(row.get("cue", "")) for row in result.cues.to_frame().head(10).to_dict("records")]
    return {
        "items": n_items,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "verdict": result.verdict.label,
        "best": best.feature_set,
        "kappa": best.kappa.value,
        "cue_found": any(CUE in name for name in named),
        "peak_mib_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "feature_sets": result.settings["feature_sets"],
        "reason": result.settings.get("feature_sets_reason", ""),
    }


def measure(n_items: int, args: argparse.Namespace) -> dict[str, object]:
    """Run one size in a child process and read its peak memory (``/usr/bin/time -v`` when present)."""
    command = [sys.executable, __file__, "--child", str(n_items), "--n-jobs", str(args.n_jobs)]
    command += ["--parallel", args.parallel]
    command += [part for name in args.feature_set for part in ("--feature-set", name)]
    command += [] if args.cues else ["--no-cues"]
    timer = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    if timer:
        command = [timer, "-v", *command]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    for line in done.stderr.splitlines():
        if "Maximum resident set size" in line:
            figures["peak_mib"] = int(line.rsplit(":", 1)[1]) / 1024
    figures.setdefault("peak_mib", figures["peak_mib_self"])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--feature-set", action="append", default=[])
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
        print(json.dumps(run_one(args.child, args.feature_set, args.n_jobs, args.cues, args.parallel)))
        return
    rows, lines = [], []
    for n_items in (int(size) for size in args.sizes.split(",")):
        row = measure(n_items, args)
        rows.append(row)
        lines.append(
            f"- {n_items} items: {row['seconds']:.1f} s wall, {row['cpu_seconds']:.1f} s CPU, "
            f"peak {row['peak_mib']:.0f} MiB, {row['verdict']} "
            f"({row['best']}, kappa {row['kappa']:.3f}), cue found: {row['cue_found']}; "
            f"{len(row['feature_sets'])} feature set(s) ({row['reason']}): {', '.join(row['feature_sets'])}; "
            f"load {os.getloadavg()[0]:.1f}"
        )
        print(lines[-1], flush=True)
    for sets in dict.fromkeys(tuple(row["feature_sets"]) for row in rows):  # type: ignore[arg-type]
        group = [row for row in rows if tuple(row["feature_sets"]) == sets]  # type: ignore[arg-type]
        if len(group) < 2:
            continue
        x = np.log([float(row["items"]) for row in group])  # type: ignore[arg-type]
        y = np.log([float(row[args.fit_on]) for row in group])  # type: ignore[arg-type]
        exponent, intercept = np.polyfit(x, y, 1)
        million = math.exp(intercept) * 1e6**exponent
        lines.append(
            f"- {len(sets)} feature set(s), {len(group)} sizes: {args.fit_on} ~ items^{exponent:.2f} (1 is linear); "
            f"extrapolated to 1M: {million / 60:.1f} min"
        )
        print(lines[-1])
    if not args.no_record:
        record_results("audit_scaling", "Audit time and memory against benchmark size (synthetic)", "\n".join(lines))


if __name__ == "__main__":
    main()
