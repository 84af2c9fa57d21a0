"""What each of the large-benchmark fitting levers saves, and that none moves the result more than a change of seed.

Four levers of the default audit; the first three act only where a benchmark is large (ten thousand items and up),
each exact up to the solvers' tolerance, the fourth wherever it is cheaper:

- ``dual``: L2 by liblinear's dual coordinate descent from :data:`~pfungst.audit.classifiers.DUAL_MIN_ROWS` training
  rows (the same objective as the primal);
- ``prune``: the fold's classifier grid drops the n-gram columns no inner-fit row has (their weight is 0);
- ``screen``: L1 fits leave out the columns whose values sum to at most ``1 / C``, whose L1 weight is 0 at the
  optimum (:func:`~pfungst.audit.classifiers.l1_screened_columns`);
- ``table``: bootstrap and permutation draws on the contingency table where it has fewer possible cells than there
  are items (:func:`~pfungst.audit.resampled_kappa.resamples_table`; the same distribution).

It audits ``audit_scaling``'s synthetic shared-label benchmark (``--items``, default 30,000; ``--all-feature-sets``:
the 13 paper sets) in one process, in arms: ``before`` (every lever off), ``no <lever>`` (every lever but that one),
``default`` (every lever on: what the audit does) and ``seed`` (``default`` with the next seed: other folds, inner
splits and resamples: the yardstick). Per arm: CPU seconds and the ratio ``before`` / arm, the verdict (label, feature
set, kappa) and, against ``before``, the median and largest |delta kappa| over the probes and how many fold choices are
the same. A lever keeps the result when the kappas move less than a change of seed moves them.

Run: .venv/bin/python benchmarks/fit_levers.py [--items 30000] [--all-feature-sets] [--arms before,default,seed]
     [--no-record]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audit_scaling import make_items  # noqa: E402
from results_file import add_record_option, record_results  # noqa: E402

LEVERS = ("dual", "prune", "screen", "table")
ARMS = ("before", *(f"no {lever}" for lever in LEVERS), "default", "seed")


@contextmanager
def lever_off(name: str) -> Iterator[None]:
    """The audit with lever ``name`` turned off (module attributes patched, restored after)."""
    from pfungst.audit import classifiers, probe_tasks, resampled_kappa

    patches = {
        "dual": (classifiers, "DUAL_MIN_ROWS", 10**12),
        "prune": (probe_tasks.Block, "occupied_columns", lambda self: None),
        "screen": (classifiers, "l1_screened_columns", lambda X, C: None),
        "table": (resampled_kappa, "resamples_table", lambda n, k, n_repeats: False),
    }
    owner, attribute, value = patches[name]
    before = getattr(owner, attribute)
    setattr(owner, attribute, value)
    try:
        yield
    finally:
        setattr(owner, attribute, before)


def run_arm(benchmark: Any, arm: str, all_sets: bool) -> tuple[float, Any]:
    """CPU seconds and result of one audit in ``arm``."""
    import pfungst
    from pfungst.audit import AuditConfig

    off = LEVERS if arm == "before" else (arm[3:],) if arm.startswith("no ") else ()
    with ExitStack() as stack:
        for lever in off:
            stack.enter_context(lever_off(lever))
        started = time.process_time()
        result = pfungst.audit.audit(benchmark, AuditConfig(all_feature_sets=all_sets, seed=int(arm == "seed")))
        return time.process_time() - started, result


def compare(reference: Any, result: Any) -> tuple[float, float, str]:
    """Median and largest |delta kappa| over the probes, and the fold choices that are the same."""
    before = {probe.feature_set: probe for probe in reference.probes}
    deltas, same, total = [], 0, 0
    for probe in result.probes:
        old = before[probe.feature_set]
        deltas.append(abs(probe.kappa.value - old.kappa.value))
        pairs = list(zip(old.folds, probe.folds, strict=True))
        same += sum(a.classifier == b.classifier for a, b in pairs)
        total += len(pairs)
    return statistics.median(deltas), max(deltas), f"{same}/{total}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=30_000, help="Synthetic items (default 30,000).")
    parser.add_argument("--all-feature-sets", action="store_true", help="Probe the 13 paper sets.")
    parser.add_argument("--arms", default=",".join(ARMS), help=f"Arms, comma-separated, 'before' first ({ARMS}).")
    add_record_option(parser)
    args = parser.parse_args()
    arms = [arm for arm in args.arms.split(",") if arm]
    if arms[0] != "before" or any(arm not in ARMS for arm in arms):
        parser.error(f"--arms: 'before' first, then any of {', '.join(ARMS[1:])}")
    benchmark = make_items(args.items)
    rows = [
        "| arm | CPU s | before / arm | verdict | feature set | kappa | median \\|d kappa\\| | largest "
        "| same choices |",
        "|---|---:|---:|---|---|---:|---:|---:|---|",
    ]
    reference: Any = None
    base = 0.0
    for arm in arms:
        seconds, result = run_arm(benchmark, arm, args.all_feature_sets)
        reference, base = (result, seconds) if reference is None else (reference, base)
        median, largest, same = compare(reference, result)
        verdict = result.verdict
        rows.append(
            f"| {arm} | {seconds:.1f} | {base / seconds:.2f}x | {verdict.label} | {verdict.feature_set} | "
            f"{verdict.estimate.value:.4f} | {median:.4f} | {largest:.4f} | {same} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    sets = "the 13 paper sets" if args.all_feature_sets else "the default sets"
    found = f"{args.items:,} synthetic items, {sets}, one process\n\n" + "\n".join(rows)
    print(found)
    if not args.no_record:
        record_results("fit_levers", "The large-benchmark fitting levers, each against a change of seed", found)


if __name__ == "__main__":
    main()
