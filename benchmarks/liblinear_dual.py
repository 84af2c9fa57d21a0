"""Whether liblinear's L2 dual solver gives the primal's results on a large benchmark, and how much faster it is.

From :data:`~pfungst.audit.classifiers.DUAL_MIN_ROWS` training rows on, the default audit fits L2 by liblinear's dual
coordinate descent instead of its primal trust-region Newton method (the same objective and optimum, to the
tolerance). Benchmarks of a few thousand items never reach that size, so their results are unchanged (the golden demo,
the four Pacchiardi datasets); this script shows the change where it applies. It audits ``audit_scaling``'s synthetic
shared-label benchmark (``--items``, default 10,000; ``--all-feature-sets``: the 13 paper sets) in one process, in
three arms:

- ``primal``: every L2 fit by the primal (``DUAL_MIN_ROWS`` set past the benchmark's size), the reference;
- ``dual``: every L2 fit on a sparse matrix by the dual (``DUAL_MIN_ROWS`` = 0), what large benchmarks now get;
- ``seed``: ``primal`` with the next seed (other folds, inner splits and resamples): the yardstick.

It prints per arm the CPU seconds and the ratio primal / arm, the verdict (label, feature set, kappa) and, against
``primal``, the median and largest |delta kappa| over the probes and how many fold choices are the same. The dual
gives the same result when its kappas move no more than a change of seed moves them.

Run: .venv/bin/python benchmarks/liblinear_dual.py [--items 10000] [--all-feature-sets] [--no-record]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audit_scaling import make_items  # noqa: E402
from results_file import add_record_option, record_results  # noqa: E402

ARMS = {"primal": (10**12, 0), "dual": (0, 0), "seed": (10**12, 1)}
"""Per arm: ``DUAL_MIN_ROWS`` and the seed."""


def run_arm(benchmark: Any, dual_min_rows: int, seed: int, all_sets: bool) -> tuple[float, Any]:
    """CPU seconds and result of one default audit with ``DUAL_MIN_ROWS`` = ``dual_min_rows``."""
    import pfungst
    from pfungst.audit import AuditConfig, classifiers

    classifiers.DUAL_MIN_ROWS = dual_min_rows
    started = time.process_time()
    result = pfungst.audit.audit(benchmark, AuditConfig(all_feature_sets=all_sets, seed=seed))
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
    parser.add_argument("--items", type=int, default=10_000, help="Synthetic items (default 10,000).")
    parser.add_argument("--all-feature-sets", action="store_true", help="Probe the 13 paper sets.")
    add_record_option(parser)
    args = parser.parse_args()
    benchmark = make_items(args.items)
    rows = [
        "| arm | CPU s | primal / arm | verdict | feature set | kappa | median \\|d kappa\\| | largest | same choices |"
    ]
    rows.append("|---|---:|---:|---|---|---:|---:|---:|---|")
    reference: Any = None
    base = 0.0
    for arm, (dual_min_rows, seed) in ARMS.items():
        seconds, result = run_arm(benchmark, dual_min_rows, seed, args.all_feature_sets)
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
        record_results("liblinear_dual", "liblinear's L2 dual against its primal on a large benchmark", found)


if __name__ == "__main__":
    main()
