"""How often each verdict and flag fires on benchmarks with no signal: label-randomised copies of real tasks.

Run: .venv/bin/python benchmarks/null_calibration.py [--replicates 30] [--jobs 1] [--no-record]
Needs ../shared/data. Each replicate of each task is a copy with the gold answers made independent of the items
(shared labels: permuted across items; per-item choices: each item's options shuffled and its gold redrawn
uniformly among them), audited with the default verdict logic (folds, resamples, refits, the best feature set
with Bonferroni over the sets; four sets each, ``SHARED_SETS`` for shared labels; heuristics and cues off, which
the verdict does not read). The table gives, per verdict and flag, how many audits raised it, the rate with its
exact (Clopper-Pearson) 95% interval, and the nominal bound: 0 for "predictable" (its threshold is far above any
null statistic), 2.5% for "signal below threshold" (the one-sided tail of a 95% simultaneous interval).
"Bootstrap interval excludes 0" is the bootstrap-only version of the flag (cross-fitted predictions held fixed),
shown for comparison.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from results_file import add_record_option, record_results
from scipy import stats as scipy_stats

import pfungst
from pfungst.audit import AuditConfig
from pfungst.audit.feature_sets import builtin_defaults
from pfungst.data.benchmark import Benchmark

TITLE = "Null calibration of the verdict and the soft flag"
"""This script's section title in benchmarks/RESULTS.md."""

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"

SHARED_SETS = ("1-grams_tf", "1-grams_presence", "2-grams_presence", "readability")
"""Four of the 13 shared-label sets (a third of the time); the per-item tasks probe their four default sets."""

TASKS = [
    ("BIG-bench fantasy_reasoning", "bigbench/fantasy_reasoning/task.json"),
    ("LegalBench abercrombie", "legalbench/abercrombie.test.tsv"),
    ("BIG-bench logical_deduction (3 objects)", "bigbench/logical_deduction/three_objects/task.json"),
    ("NeuBAROCO multiple choice", "neubaroco/NeuBAROCO_MC.tsv"),
]
"""Small real tasks (80 to 300 items): two with shared labels (2 and 5), two with per-item choices (3 and 5)."""


@dataclass(frozen=True)
class NullAudit:
    """What one audit of a null copy said."""

    task: str
    predictable: bool
    bootstrap_excludes_zero: bool
    """The bootstrap interval (fixed predictions) excludes 0 while the verdict is not "predictable"."""
    signal_below_threshold: bool
    refits: int
    """Refits the audit ran for the flag (0 where the bootstrap interval already included 0)."""
    seconds: float


def null_benchmark(benchmark: Benchmark, rng: np.random.Generator) -> Benchmark:
    """A copy whose gold answers carry no signal: labels permuted, or options shuffled and gold redrawn per item."""
    if benchmark.option_kind == "shared_labels":
        golds = rng.permutation([item.gold for item in benchmark])
        items = tuple(replace(item, gold=int(gold)) for item, gold in zip(benchmark, golds, strict=True))
    else:
        items = tuple(
            replace(item, options=tuple(item.options[i] for i in rng.permutation(item.n_options)), gold=int(gold))
            for item, gold in ((item, rng.integers(0, item.n_options)) for item in benchmark)
        )
    return replace(benchmark, name=f"{benchmark.name} (null)", items=items)


def audit_null(task: str, benchmark: Benchmark, config: AuditConfig) -> NullAudit:
    """Audit one null copy and read its verdict and flags."""
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence and rare-class notes of a few hundred null items
        verdict = pfungst.audit.audit(benchmark, config).verdict
    ci = verdict.estimate.ci
    return NullAudit(
        task=task,
        predictable=verdict.label == "predictable",
        bootstrap_excludes_zero=verdict.label != "predictable" and ci is not None and ci.low > 0,
        signal_below_threshold=verdict.signal_below_threshold,
        refits=verdict.refit.n if verdict.refit is not None else 0,
        seconds=time.perf_counter() - started,
    )


def calibrate(
    tasks: Sequence[tuple[str, Benchmark]], replicates: int, config: AuditConfig, seed: int = 0
) -> list[NullAudit]:
    """``replicates`` null audits of each task, each copy and audit seeded by (``seed``, task, replicate)."""
    audits = []
    for index, (name, benchmark) in enumerate(tasks):
        for replicate in range(replicates):
            copy = null_benchmark(benchmark, np.random.default_rng([seed, index, replicate]))
            sets = SHARED_SETS if benchmark.option_kind == "shared_labels" else ()
            settings = replace(config, seed=seed * 10_000 + replicate, feature_sets=config.feature_sets or sets)
            audits.append(audit_null(name, copy, settings))
            print(f"{name} {replicate + 1}/{replicates}: {audits[-1]}", flush=True, file=sys.stderr)
    return audits


ROWS = [
    ("verdict 'predictable'", "predictable", 0.0),
    ("signal below threshold (the flag)", "signal_below_threshold", 0.025),
    ("bootstrap interval excludes 0 (fixed predictions, for comparison)", "bootstrap_excludes_zero", 0.025),
]
"""Table rows: what fired, the NullAudit field, the nominal bound on its rate."""


def table(audits: Sequence[NullAudit]) -> str:
    """The Markdown table: per verdict and flag, count, rate, exact 95% interval, nominal bound."""
    n = len(audits)
    lines = ["| fired | audits | rate | exact 95% interval | nominal |", "|---|---:|---:|---|---:|"]
    for title, field, nominal in ROWS:
        count = sum(bool(getattr(audit, field)) for audit in audits)
        ci = scipy_stats.binomtest(count, n).proportion_ci(confidence_level=0.95, method="exact")
        lines.append(f"| {title} | {count} of {n} | {count / n:.1%} | [{ci.low:.1%}, {ci.high:.1%}] | {nominal:.1%} |")
    return "\n".join(lines)


def summary(audits: Sequence[NullAudit]) -> str:
    """Per task: audits, flags, and the seconds of an audit with and without the refits."""
    lines = []
    for task in dict.fromkeys(audit.task for audit in audits):
        mine = [audit for audit in audits if audit.task == task]
        checked = [audit.seconds for audit in mine if audit.refits]
        plain = [audit.seconds for audit in mine if not audit.refits]
        lines.append(
            f"- {task}: {len(mine)} audits, {sum(a.bootstrap_excludes_zero for a in mine)} with the bootstrap "
            f"interval above 0, {sum(a.signal_below_threshold for a in mine)} flagged; "
            f"{np.mean(plain) if plain else float('nan'):.1f} s an audit"
            + (f", {np.mean(checked):.1f} s with the refits ({len(checked)})" if checked else "")
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicates", type=int, default=30, help="Null copies of each task (default 30).")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args()
    tasks = [(name, pfungst.load(DATA / path)) for name, path in TASKS]
    config = AuditConfig(n_jobs=args.jobs, cues=False, heuristics=False)
    audits = calibrate(tasks, args.replicates, config, seed=args.seed)
    conditions = (
        f"Conditions: {args.replicates} null copies of each task; feature sets {', '.join(SHARED_SETS)} for shared "
        f"labels and the per-item default ({', '.join(builtin_defaults('per_item'))}) for per-item choices, "
        f"not the 13 sets of a default shared-label audit; heuristics and cues off; {config.n_refits} refits; "
        f"seed {args.seed}."
    )
    body = f"{conditions}\n\n{table(audits)}\n\n{summary(audits)}\n"
    print(body)
    if not args.no_record:
        record_results("null_calibration", TITLE, body)


if __name__ == "__main__":
    main()
