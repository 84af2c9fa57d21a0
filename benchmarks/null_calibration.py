"""How often each verdict state and flag fires where there is nothing to find, and how often a planted cue is found.

Run: python benchmarks/null_calibration.py [--nulls 20] [--power-copies 4] [--max-items 200] [--tasks 10]
     [--jobs 2] [--seed 0] [--no-record]
Needs ../shared/data. Two tables:

1. **Null calibration.** Each task (:data:`TASKS`: ten real tasks, six with shared labels and four with per-item
   choices; tasks above ``--max-items`` items are subsampled once, stratified by gold, with the seed) is copied
   ``--nulls`` times with its gold answers made independent of the items (:func:`pfungst.audit.controls.shuffled_copy`:
   shared labels permuted across items; each per-item gold redrawn uniformly among its options), and every copy is
   audited on the default protocol: the default feature sets (the 13 paper sets for shared labels, the per-item
   default otherwise), 2 x 5-fold cross-fitting, 1,000 resamples, the refits behind the soft flag, heuristics and
   cues. Per verdict state ("predictable", "inconclusive", "no evidence", read from the verdict's label) and flag, the
   table gives how many audits raised it, the rate with its exact (Clopper-Pearson) 95% interval, and the nominal
   rate; then how often the verdict's interval (and the fixed-prediction bootstrap interval it widens) covers the
   true null value 0. The intervals are simultaneous at 95% (Bonferroni over the feature sets), so the verdict's
   interval should cover 0 in at least 95% of null audits and exclude it from above in at most 2.5%.
2. **Power.** In each of :data:`POWER_TASKS` (real tasks without a finding), a nonsense word is planted in 10, 15,
   25 and 40% of the items (seeded, ``--power-copies`` draws each): shared labels get the word in the text of items
   of their most common label (it appears with that label only); per-item choices get it in the gold option. The
   table gives how often the audit says "predictable" and "inconclusive", with exact intervals.

The section written to benchmarks/RESULTS.md (unless ``--no-record``) names the commit, date, machine and command.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from results_file import add_record_option, commit, record_results
from scipy import stats as scipy_stats

import pfungst
from pfungst.audit import AuditConfig
from pfungst.audit.controls import shuffled_copy
from pfungst.audit.label_set import audited_layout
from pfungst.data.benchmark import Benchmark

TITLE = "Null calibration of the verdict and its flags, and the power to find a planted cue"
"""This script's section title in benchmarks/RESULTS.md."""

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"

TASKS = [
    ("BIG-bench fantasy_reasoning", "bigbench/fantasy_reasoning/task.json"),
    ("BIG-bench causal_judgment", "bigbench/causal_judgment/task.json"),
    ("BIG-bench moral_permissibility", "bigbench/moral_permissibility/task.json"),
    ("LegalBench abercrombie", "legalbench/abercrombie.test.tsv"),
    ("LegalBench proa", "legalbench/proa.test.tsv"),
    ("NeuBAROCO NLI", "neubaroco/NeuBAROCO_NALOMA.tsv"),
    ("BIG-bench logical_deduction (3 objects)", "bigbench/logical_deduction/three_objects/task.json"),
    ("BIG-bench snarks", "bigbench/snarks/task.json"),
    ("NeuBAROCO multiple choice", "neubaroco/NeuBAROCO_MC.tsv"),
    ("ARC-Challenge dev", "arc/ARC-Challenge-Dev.jsonl"),
]
"""Real tasks of 80 to 375 items: shared labels (2, 3 or 5 labels) and per-item choices (2 to 5 options)."""

POWER_TASKS = ("BIG-bench causal_judgment", "BIG-bench moral_permissibility", "BIG-bench logical_deduction (3 objects)")
"""Tasks the cue is planted in (their own audit finds nothing: the 0% row shows it)."""

SHARES = (0.0, 0.10, 0.15, 0.25, 0.40)
"""Shares of the items that carry the planted cue (0: the task as it is)."""

CUE = "zorblax"
"""The planted nonsense word."""


@dataclass(frozen=True)
class Job:
    """One audit to run: a task (loaded and subsampled), what to do to it, and the seed."""

    task: str
    benchmark: Benchmark
    seed: int
    share: float = -1.0
    """Planted share for the power table; -1: a null copy instead."""


@dataclass(frozen=True)
class Outcome:
    """What one audit said."""

    task: str
    share: float
    label: str
    signal_below_threshold: bool
    low: float
    high: float
    bootstrap_low: float
    bootstrap_high: float
    refits: int
    seconds: float


def planted(benchmark: Benchmark, share: float, seed: int) -> Benchmark:
    """``benchmark`` (as the audit lays it out) with :data:`CUE` in ``share`` of its items, always with the gold.

    Shared labels: the word goes into the text of items of the most common label (drawn at random among them; where
    that label has too few items, other items are drawn and given it), so that it appears with that label only. Per-item
    choices: the word goes into the gold option of items drawn at random.
    """
    layout = audited_layout(benchmark, True).benchmark
    rng = np.random.default_rng([seed, 31337])
    size = round(share * len(layout))
    if layout.option_kind.has_positions:
        chosen = set(rng.choice(len(layout), size=size, replace=False).tolist())
        return _with_cue(layout, share, chosen, gold=None)
    golds = np.array([item.gold for item in layout])
    label = int(np.bincount(golds).argmax())
    own = rng.permutation(np.flatnonzero(golds == label))
    others = rng.permutation(np.flatnonzero(golds != label))
    chosen = set(np.concatenate([own, others])[:size].tolist())
    return _with_cue(layout, share, chosen, gold=label)


def _with_cue(layout: Benchmark, share: float, chosen: set[int], gold: int | None) -> Benchmark:
    """``layout`` with the cue in the items at ``chosen``: in the text with ``gold`` as gold, or in the gold option."""
    items = []
    for index, item in enumerate(layout):
        if index not in chosen:
            items.append(item)
        elif gold is not None:
            items.append(replace(item, text=f"{item.text} {CUE}", gold=gold))
        else:
            options = tuple(f"{text} {CUE}" if i == item.gold else text for i, text in enumerate(item.options))
            items.append(replace(item, options=options))
    return replace(layout, name=f"{layout.name} (cue in {share:.0%})", items=tuple(items))


def run_job(job: Job) -> Outcome:
    """Audit the job's copy on the default protocol (one process, one thread) and read its verdict."""
    started = time.perf_counter()
    if job.share < 0:
        copy = shuffled_copy(job.benchmark, seed=job.seed)
    else:
        copy = planted(job.benchmark, job.share, job.seed) if job.share else job.benchmark
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # label-set detection, rare classes, convergence notes of small copies
        verdict = pfungst.audit.audit(copy, AuditConfig(seed=job.seed, n_jobs=1)).verdict
    ci, widening = verdict.estimate.ci, verdict.widening
    return Outcome(
        task=job.task,
        share=job.share,
        label=verdict.label,
        signal_below_threshold=verdict.signal_below_threshold,
        low=ci.low if ci is not None else np.nan,
        high=ci.high if ci is not None else np.nan,
        bootstrap_low=widening.bootstrap_low if widening is not None else np.nan,
        bootstrap_high=widening.bootstrap_high if widening is not None else np.nan,
        refits=verdict.refit.n if verdict.refit is not None else 0,
        seconds=time.perf_counter() - started,
    )


def run_all(jobs: Sequence[Job], processes: int) -> list[Outcome]:
    """Every job, over ``processes`` worker processes, in job order; progress on stderr."""
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(max_workers=processes) as pool:
        for outcome in pool.map(run_job, jobs):
            outcomes.append(outcome)
            print(
                f"[{len(outcomes)}/{len(jobs)}] {outcome.task} {outcome.share:.2f}: {outcome.label} "
                f"[{outcome.low:.3f}, {outcome.high:.3f}] {outcome.seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    return outcomes


def exact(count: int, n: int) -> str:
    """``count of n``, the rate and its exact (Clopper-Pearson) 95% interval, as table cells."""
    if not n:
        return "0 of 0 | - | -"
    ci = scipy_stats.binomtest(count, n).proportion_ci(confidence_level=0.95, method="exact")
    return f"{count} of {n} | {count / n:.1%} | [{ci.low:.1%}, {ci.high:.1%}]"


NULL_ROWS = [
    ('verdict "predictable"', lambda o: o.label == "predictable", "at most 2.5%"),
    ('verdict "inconclusive"', lambda o: o.label == "inconclusive", "(depends on the items)"),
    ('verdict "no evidence"', lambda o: o.label == "no evidence", "(the rest)"),
    ('"signal below threshold" (the soft flag)', lambda o: o.signal_below_threshold, "at most 2.5%"),
    ("verdict interval excludes 0 (lower bound above 0)", lambda o: o.low > 0, "at most 2.5%"),
    ("fixed-prediction bootstrap interval excludes 0 (before widening)", lambda o: o.bootstrap_low > 0, "at most 2.5%"),
    ("verdict interval covers 0 (the true null value)", lambda o: o.low <= 0 <= o.high, "at least 95%"),
    (
        "fixed-prediction bootstrap interval covers 0",
        lambda o: o.bootstrap_low <= 0 <= o.bootstrap_high,
        "at least 95%",
    ),
]
"""Null table rows: what fired, the test on an :class:`Outcome`, the nominal rate."""


def meets(count: int, n: int, nominal: str) -> str:
    """Whether the measured rate meets a nominal ``at most X%`` / ``at least X%`` (``-`` where there is none)."""
    if not n or not nominal.startswith("at "):
        return "-"
    bound = float(nominal.split()[-1].rstrip("%")) / 100
    ok = count / n <= bound if nominal.startswith("at most") else count / n >= bound
    return "yes" if ok else "**no**"


def null_table(outcomes: Sequence[Outcome], rows: Sequence[int] | None = None) -> str:
    """The Markdown table of the null audits: per state and flag, count, rate, exact interval, nominal rate, and
    whether the rate meets it (``rows``: the indices of :data:`NULL_ROWS` to show; all by default)."""
    lines = [
        "| on null copies | audits | rate | exact 95% interval | nominal | rate meets it |",
        "|---|---:|---:|---|---|---|",
    ]
    for index, (title, test, nominal) in enumerate(NULL_ROWS):
        if rows is not None and index not in rows:
            continue
        count = sum(bool(test(o)) for o in outcomes)
        lines.append(
            f"| {title} | {exact(count, len(outcomes))} | {nominal} | {meets(count, len(outcomes), nominal)} |"
        )
    return "\n".join(lines)


def verdict_line(outcomes: Sequence[Outcome]) -> str:
    """One sentence: do the rates with a nominal bound meet it, and which do not."""
    failing = [
        title
        for title, test, nominal in NULL_ROWS[:5] + NULL_ROWS[6:7]
        if meets(sum(bool(test(o)) for o in outcomes), len(outcomes), nominal) == "**no**"
    ]
    if not failing:
        return "Every verdict and flag with a nominal rate meets it on these null copies."
    return f"Not at the nominal rate on these null copies: {'; '.join(failing)}."


README = Path(__file__).resolve().parents[1] / "README.md"
"""The README, whose section between ``<!-- begin: null_calibration -->`` and ``<!-- end: null_calibration -->``
quotes this script's latest recorded run."""

README_ROWS = (0, 1, 3, 4, 6, 7)
"""The rows of :data:`NULL_ROWS` the README quotes."""


def readme_section(outcomes: Sequence[Outcome], n_tasks: int, revision: str) -> str:
    """The README's quote of a run: what was audited, the commit, and the main rows of the null table."""
    return (
        f"`python benchmarks/null_calibration.py` audits label-randomised copies of {n_tasks} real tasks (BIG-bench,\n"
        f"LegalBench, NeuBAROCO, ARC; 80 to 200 items; gold made independent of the items) on the default protocol,\n"
        f"{len(outcomes)} audits in all, and counts how often each verdict and flag fires where there is nothing to "
        f"find\n(commit `{revision}`, written by the script into [benchmarks/RESULTS.md](benchmarks/RESULTS.md), which "
        f"also holds the\npower to find a planted cue). {verdict_line(outcomes)}\n\n"
        f"{null_table(outcomes, README_ROWS)}\n"
    )


def record_readme(section: str, path: Path = README) -> None:
    """Replace the README's null-calibration section with ``section`` (the markers stay)."""
    text = path.read_text()
    pattern = re.compile(r"(<!-- begin: null_calibration -->\n).*?(<!-- end: null_calibration -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no <!-- begin: null_calibration --> ... <!-- end: null_calibration --> section")
    path.write_text(pattern.sub(lambda match: match.group(1) + section + match.group(2), text, count=1))


def null_summary(outcomes: Sequence[Outcome], sizes: dict[str, str]) -> str:
    """Per task: its size, audits, states, the interval excluding 0, and seconds an audit."""
    lines = []
    for task in dict.fromkeys(o.task for o in outcomes):
        mine = [o for o in outcomes if o.task == task]
        states = ", ".join(
            f"{sum(o.label == s for o in mine)} {s}" for s in ("predictable", "inconclusive", "no evidence")
        )
        lines.append(
            f"- {task} ({sizes[task]}): {len(mine)} audits, {states}; interval above 0 in "
            f"{sum(o.low > 0 for o in mine)} (bootstrap alone {sum(o.bootstrap_low > 0 for o in mine)}), soft flag in "
            f"{sum(o.signal_below_threshold for o in mine)}; {np.median([o.seconds for o in mine]):.1f} s an audit "
            f"(median), refits in {sum(o.refits > 0 for o in mine)}"
        )
    return "\n".join(lines)


def power_table(outcomes: Sequence[Outcome]) -> str:
    """The Markdown power table: per task and planted share, how often "predictable" and "inconclusive"."""
    lines = [
        "| task | cue in | audits | predictable | exact 95% interval | inconclusive | exact 95% interval |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    for task in dict.fromkeys(o.task for o in outcomes):
        for share in SHARES:
            mine = [o for o in outcomes if o.task == task and o.share == share]
            found = exact(sum(o.label == "predictable" for o in mine), len(mine)).split(" | ")
            open_ = exact(sum(o.label == "inconclusive" for o in mine), len(mine)).split(" | ")
            lines.append(
                f"| {task} | {share:.0%} | {len(mine)} | {found[1]} ({found[0]}) | {found[2]} | "
                f"{open_[1]} ({open_[0]}) | {open_[2]} |"
            )
    return "\n".join(lines)


def load_tasks(max_items: int, seed: int, n_tasks: int = len(TASKS)) -> tuple[dict[str, Benchmark], dict[str, str]]:
    """The first ``n_tasks`` tasks (every one by default), subsampled to ``max_items`` (stratified by gold, seeded),
    and their sizes in words."""
    tasks, sizes = {}, {}
    for name, path in TASKS[:n_tasks]:
        full = pfungst.load(DATA / path)
        tasks[name] = full.sample(max_items, seed) if max_items else full
        kept = len(tasks[name])
        sizes[name] = f"{kept} items" + (f" of {len(full)}" if kept < len(full) else "")
    return tasks, sizes


def jobs_for(tasks: dict[str, Benchmark], nulls: int, power_copies: int, seed: int) -> tuple[list[Job], list[Job]]:
    """The null jobs (``nulls`` per task) and the power jobs (``power_copies`` per power task and share; one unplanted
    audit per power task among ``tasks``), each with its own seed."""
    null_jobs = [
        Job(name, benchmark, seed * 1_000_000 + index * 1_000 + replicate)
        for index, (name, benchmark) in enumerate(tasks.items())
        for replicate in range(nulls)
    ]
    power_jobs = [
        Job(name, tasks[name], seed * 1_000_000 + 500_000 + index * 1_000 + int(share * 100) * 10 + copy, share)
        for index, name in enumerate(POWER_TASKS)
        if name in tasks
        for share in SHARES
        for copy in range(power_copies if share else 1)
    ]
    return null_jobs, power_jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nulls", type=int, default=20, help="Null copies of each task (default 20: 200 audits).")
    parser.add_argument("--power-copies", type=int, default=4, help="Planted copies per task and share (default 4).")
    parser.add_argument("--max-items", type=int, default=200, help="Subsample larger tasks to this many (0: all).")
    parser.add_argument("--jobs", type=int, default=2, help="Worker processes (default 2).")
    parser.add_argument("--tasks", type=int, default=len(TASKS), help="Only the first N tasks (a quick look).")
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"skipped: {DATA} is absent", file=sys.stderr)
        sys.exit(2)
    started = time.perf_counter()
    tasks, sizes = load_tasks(args.max_items, args.seed, args.tasks)
    null_jobs, power_jobs = jobs_for(tasks, args.nulls, args.power_copies, args.seed)
    nulls = run_all(null_jobs, args.jobs)
    power = run_all(power_jobs, args.jobs) if args.power_copies else []
    seconds = time.perf_counter() - started
    conditions = (
        f"Conditions: {args.nulls} null copies of each of {len(tasks)} real tasks ({len(nulls)} audits; tasks "
        f"above {args.max_items} items subsampled, stratified by gold), each audited on the default protocol (default "
        f"feature sets: 13 for shared labels, the per-item default otherwise; 2 x 5-fold cross-fitting; heuristics, "
        f"cues and the soft flag's refits on); simultaneous 95% intervals; seed {args.seed}; "
        f"{args.jobs} worker processes, {seconds:.0f} s wall in all (nulls and power)."
    )
    power_note = (
        f'Power: the nonsense word "{CUE}" planted in a share of the items of each task ({args.power_copies} seeded '
        "draws per share; shared labels: in the text of items of the most common label, which it then always "
        "comes with; per-item choices: in the gold option); 0% is the task as it is."
    )
    body = f"{conditions}\n\n{null_table(nulls)}\n\n{verdict_line(nulls)}\n\n{null_summary(nulls, sizes)}\n"
    if power:
        body += f"\n{power_note}\n\n{power_table(power)}\n"
    print(body)
    if not args.no_record:
        revision = commit()  # before RESULTS.md changes
        record_results("null_calibration", TITLE, body)
        record_readme(readme_section(nulls, len(tasks), revision))


if __name__ == "__main__":
    main()
