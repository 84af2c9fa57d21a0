"""Measure what each stress analysis costs on the embedded SmolLM2 model, relative to ONE plain pass over the same
items.

Issue 5's cost check. Every perturbation P runs alone, ``pfungst.stress.stress(benchmark, "smollm2", perturbations=(P,),
cache=False)``, on the same first N ARC-Challenge test items (each scoring rule of ``rules`` separately). A run always
includes the plain (identity) pass, so each row gives two views:

- **run / plain**: the whole run (P and the plain pass it includes) over the plain pass alone;
- **P alone / plain**: P's own questions and distinct requests (``result.costs``), and P's own seconds, isolated as
  ``run seconds - plain seconds x (requests the run asked outside P) / (plain requests)``. For a perturbation whose
  questions contain the plain pass (cyclic, permutations, answer-moved, PriDe, formats, the letter rule) nothing is
  subtracted; for one disjoint from it (ids shuffled, top two, the cloze rules, format search) this is
  ``run - plain``.

Beside each measured ratio is the expected one (``n`` options per item, ``k`` orders, ``K`` PriDe's share): circular
= n, permutations = k, answer-moved = n, PriDe = 1 + K(n - 1), formats = 8, instructions = 6, format search = budget /
N; a cloze rule asks n requests per question, PMI 2n. The plain pass is timed twice (first and last) and its mean is
the denominator. Seconds are wall-clock model time (loading excluded) and depend on the machine's load.
Usage::

    .venv/bin/python benchmarks/stress_costs.py [--items 40] [--threads N] [--json costs.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from results_file import add_record_option, recording

import pfungst
from pfungst.stress.suite import stress

TITLE = "What each stress perturbation costs"
"""This script's section title in benchmarks/RESULTS.md."""

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "arc" / "ARC-Challenge-Test.jsonl"
PERMUTATIONS, PRIDE_FRACTION, N_FORMATS, SPREAD_BUDGET = 6, 0.05, 8, 200
RULES = ("letter", "cloze-raw", "cloze-token", "cloze-byte", "pmi")


@dataclass(frozen=True)
class Case:
    """One measured run: a perturbation with its parameters and the run's settings, and the ratios theory expects of
    it alone."""

    name: str
    perturbation: str
    settings: dict[str, Any] = field(default_factory=dict)
    params: str = ""
    """The perturbation's parameters as ``key=value,key=value`` (``-p NAME:PARAMS``)."""

    @property
    def spec(self) -> str:
        """The perturbation as ``pfungst stress -p`` takes it."""
        return f"{self.perturbation}:{self.params}" if self.params else self.perturbation


CASES = (
    Case("cyclic", "cyclic"),
    Case(f"permutations (k={PERMUTATIONS})", "permutations", params=f"n={PERMUTATIONS}"),
    Case("answer-moved", "answer-moved"),
    Case("ids-shuffled", "ids-shuffled"),
    Case("top2", "top2"),
    Case(f"pride (K={PRIDE_FRACTION:.0%})", "pride", params=f"fraction={PRIDE_FRACTION}"),
    *(Case(f"rules: {rule}", "rules", {"rules": (rule,)}) for rule in RULES),
    Case(f"formats ({N_FORMATS})", "formats", params=f"n={N_FORMATS}"),
    Case("instructions (6)", "instructions"),
    Case(f"spread-search ({SPREAD_BUDGET})", "spread-search", params=f"budget={SPREAD_BUDGET}"),
)


def expected(case: Case, options: list[int]) -> tuple[str, float, float]:
    """P's own passes and distinct requests per plain pass, as theory has them: (formula, passes, requests)."""
    n, items = sum(options) / len(options), len(options)
    p, settings = case.perturbation, case.settings
    if p in ("cyclic", "answer-moved"):
        return "n", n, n
    if p == "permutations":
        k = sum(min(PERMUTATIONS, math.factorial(size)) for size in options) / items
        return "k", k, k
    if p == "ids-shuffled":
        return "1", 1.0, 1.0
    if p == "top2":
        return "2", 2.0, 2.0
    if p == "pride":
        chosen = max(1, round(PRIDE_FRACTION * items))  # the prior needs at least one item
        fraction = chosen / items
        return f"1+K(n-1), K={fraction:.3f}", 1 + fraction * (n - 1), 1 + fraction * (n - 1)
    if p == "rules":
        rule = settings["rules"][0]
        per_question = {"letter": 1.0, "pmi": 2 * n}.get(rule, n)
        return {"letter": "1", "pmi": "1 (2n requests)"}.get(rule, "1 (n requests)"), 1.0, per_question
    if p == "formats":
        return str(N_FORMATS), float(N_FORMATS), float(N_FORMATS)
    if p == "instructions":
        return "6", 6.0, 6.0
    if p == "spread-search":
        budget = min(SPREAD_BUDGET, items * 24)
        return "budget/N", budget / items, budget / items
    return "1", 1.0, 1.0


def run(
    benchmark: pfungst.Benchmark, perturbation: str, settings: dict[str, Any], items: int, threads: int | None
) -> pfungst.StressResult:
    options = {"n_threads": threads} if threads else {}
    return stress(
        benchmark,
        "smollm2",
        perturbations=(perturbation,),
        cache=False,
        limit=items,
        model_options=options,
        n_bootstrap=200,
        **settings,
    )


def measure(case: Case, result: pfungst.StressResult, plain: dict[str, Any], options: list[int]) -> dict[str, Any]:
    """One row: the run's counts, P's own cost from ``result.costs``, and every ratio to the plain pass."""
    counts = result.counts
    own = next(cost for cost in result.costs if cost.perturbation == case.perturbation)
    outside = counts.unique_requests - own.requests  # requests the run asked that P alone does not need
    own_seconds = counts.seconds - plain["seconds"] * outside / plain["requests"]
    formula, passes, requests = expected(case, options)
    return {
        "case": case.name,
        "perturbation": case.perturbation,
        "run": {
            "unique_requests": counts.unique_requests,
            "misses": counts.misses,
            "seconds": counts.seconds,
            "requests_ratio": counts.unique_requests / plain["requests"],
            "seconds_ratio": counts.seconds / plain["seconds"],
        },
        "alone": {
            "questions": own.questions,
            "requests": own.requests,
            "passes_ratio": own.passes_ratio,
            "requests_ratio": own.requests_ratio,
            "seconds": round(own_seconds, 3),
            "seconds_ratio": own_seconds / plain["seconds"],
            "isolated_by": "nothing subtracted"
            if outside == 0
            else f"minus {outside}/{plain['requests']:.0f} of the plain pass",
        },
        "expected": {"formula": formula, "passes_ratio": passes, "requests_ratio": requests},
    }


def print_table(plain: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    print(
        f"\nplain pass: {plain['requests']:.0f} requests, {plain['seconds']:.1f} s (mean of "
        f"{', '.join(f'{s:.1f}' for s in plain['runs'])} s); ratios below are to it"
    )
    print(
        "run = P plus the plain pass it always includes; alone = P's own cost (result.costs; seconds isolated as "
        "run - plain x the share of plain requests P does not ask)"
    )
    header = (
        f"{'perturbation':<22} {'run req':>7} {'misses':>6} {'run s':>7} {'run/pl req':>10} {'run/pl s':>8} | "
        f"{'alone q':>7} {'passes':>7} {'req':>6} {'s':>6} | {'expected passes (req)':<32}"
    )
    print(header + "\n" + "-" * len(header))
    for row in rows:
        r, a, e = row["run"], row["alone"], row["expected"]
        print(
            f"{row['case']:<22} {r['unique_requests']:>7} {r['misses']:>6} {r['seconds']:>7.1f} "
            f"{r['requests_ratio']:>9.2f}x {r['seconds_ratio']:>7.2f}x | {a['questions']:>7} "
            f"{a['passes_ratio']:>6.2f}x {a['requests_ratio']:>5.2f}x {a['seconds_ratio']:>5.2f}x | "
            f"{e['formula']} = {e['passes_ratio']:.2f} ({e['requests_ratio']:.2f})"
        )
    pride = next(row for row in rows if row["perturbation"] == "pride")
    verdict = "meets" if max(pride["alone"]["passes_ratio"], pride["alone"]["seconds_ratio"]) <= 1.2 else "misses"
    print(
        f"\nPriDe at K = {PRIDE_FRACTION:.0%}: x{pride['alone']['passes_ratio']:.3f} in passes, "
        f"x{pride['alone']['seconds_ratio']:.3f} in seconds (expected {pride['expected']['passes_ratio']:.3f}); "
        f"{verdict} the target of <= 1.2x (paper: about 1.15x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=40, help="first N ARC-Challenge test items")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: its choice)")
    parser.add_argument("--json", type=Path, default=None, help="write the table as JSON here")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("stress_costs", TITLE, enabled=not args.no_record):
        if not DATA.exists():
            print(f"skipped: {DATA} is absent (ARC-Challenge test split in pfungst JSONL or ARC JSONL)")
            return
        benchmark = pfungst.load(DATA)[: args.items]
        options = [item.n_options for item in benchmark]
        started = time.perf_counter()
        first = run(benchmark, "identity", {}, args.items, args.threads)
        rows_results = []
        for case in CASES:
            print(f"running {case.name} ...", file=sys.stderr, flush=True)  # progress: not part of the record
            rows_results.append((case, run(benchmark, case.spec, case.settings, args.items, args.threads)))
        last = run(benchmark, "identity", {}, args.items, args.threads)
        runs = [first.counts.seconds, last.counts.seconds]
        plain = {"requests": float(first.counts.unique_requests), "seconds": sum(runs) / len(runs), "runs": runs}
        rows = [measure(case, result, plain, options) for case, result in rows_results]
        print_table(plain, rows)
        model = Path(first.model.split(":")[1]).name if first.model.startswith("llamacpp:") else first.model
        print(f"\n{len(benchmark)} items, model {model}, {time.perf_counter() - started:.0f} s in all")
        if args.json:
            args.json.write_text(
                json.dumps(
                    {
                        "items": len(benchmark),
                        "data": str(DATA),
                        "model": first.model,
                        "threads": args.threads,
                        "plain": plain,
                        "rows": rows,
                    },
                    indent=2,
                )
                + "\n"
            )
            print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
