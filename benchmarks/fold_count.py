"""How many folds the 13 paper feature sets need at scale: fewer, larger folds against the default's five, and
against a change of seed, in one run.

At a million items nearly all of an audit's time is the refits of each fold's chosen classifier on all its
training items (the selection itself runs on a sample: ``--selection-max-items``): five folds refit on 4 x the
items, two folds on 1 x. With hundreds of thousands of items per fold, a model trained on half the items is hardly
weaker than one trained on four fifths. This script measures what the fold count does to the result: it audits
``audit_scaling``'s synthetic shared-label benchmark (``--items``, default 100,000) with ``--all-feature-sets`` and
one repeat, in arms ``five`` (``--n-splits 5``, the default), ``seed`` (five folds, the next seed: the yardstick),
``three`` and ``two`` (``--n-splits 3``, ``--n-splits 2``), and prints per arm the CPU seconds, the ratio against
``five``, the verdict (label, feature set, kappa and interval) and, against ``five``, the median, 90th percentile and
largest |delta kappa| over the 13 probes. A fold count keeps the result when its kappas move no more than a change
of seed moves them (median and 90th percentile).

Run: .venv/bin/python benchmarks/fold_count.py [--items 100000] [--arms five,seed,three,two] [--no-record]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audit_scaling import make_items  # noqa: E402
from results_file import add_record_option, record_results  # noqa: E402

import pfungst  # noqa: E402
from pfungst.audit import AuditConfig  # noqa: E402

ARMS = {"five": (5, 0), "seed": (5, 1), "three": (3, 0), "two": (2, 0)}
"""Arm -> (folds, seed)."""


def spread(deltas: list[float]) -> tuple[float, float, float]:
    """Median, 90th percentile and largest of |delta kappa|."""
    return statistics.median(deltas), statistics.quantiles(deltas, n=10)[-1], max(deltas)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--arms", default=",".join(ARMS), help=f"Arms, 'five' first ({', '.join(ARMS)}).")
    add_record_option(parser)
    args = parser.parse_args()
    arms = args.arms.split(",")
    if arms[0] != "five" or any(arm not in ARMS for arm in arms):
        parser.error(f"--arms: 'five' first, then any of {', '.join(ARMS)}")
    benchmark = make_items(args.items)
    results, seconds = {}, {}
    for arm in arms:
        folds, seed = ARMS[arm]
        config = AuditConfig(all_feature_sets=True, n_repeats=1, n_splits=folds, seed=seed)
        started = time.process_time()
        results[arm] = pfungst.audit.audit(benchmark, config)
        seconds[arm] = time.process_time() - started
        print(f"  {arm}: {seconds[arm]:.0f} s CPU", file=sys.stderr, flush=True)
    lines = [
        f"{args.items:,} synthetic items, the 13 paper feature sets, one repeat; |delta kappa| against five folds:",
        "",
        "| arm | folds | seed | CPU s | five / arm | verdict | kappa [interval] | median | 90th percentile | largest |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    base = results["five"]
    moved = {  # |delta kappa| of each probe against five folds
        arm: [abs(a.kappa.value - b.kappa.value) for a, b in zip(base.probes, results[arm].probes, strict=True)]
        for arm in arms
    }
    for arm in arms:
        folds, seed = ARMS[arm]
        verdict = results[arm].verdict
        ci = verdict.estimate.ci
        interval = f" [{ci.low:.4f}, {ci.high:.4f}]" if ci is not None else ""
        median, ninetieth, largest = spread(moved[arm])
        lines.append(
            f"| {arm} | {folds} | {seed} | {seconds[arm]:.0f} | {seconds['five'] / seconds[arm]:.2f}x "
            f"| {verdict.label} ({verdict.feature_set}) | {verdict.estimate.value:.4f}{interval} "
            f"| {median:.4f} | {ninetieth:.4f} | {largest:.4f} |"
        )
    if "seed" in results:
        yardstick = spread(moved["seed"])
        for arm in (arm for arm in arms[1:] if arm != "seed"):
            median, ninetieth, _ = spread(moved[arm])
            within = median <= yardstick[0] and ninetieth <= yardstick[1]
            lines.append(
                f"- {arm}: {'within' if within else 'NOT within'} a change of seed (median {median:.4f} against "
                f"{yardstick[0]:.4f}, 90th percentile {ninetieth:.4f} against {yardstick[1]:.4f}); verdict "
                f"{'the same' if results[arm].verdict.label == base.verdict.label else 'DIFFERENT'} label"
            )
    table = "\n".join(lines)
    print(table)
    if not args.no_record:
        record_results("fold_count", "The 13 paper feature sets at scale: how many folds", table)


if __name__ == "__main__":
    main()
