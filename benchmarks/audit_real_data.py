"""Audit real benchmarks end to end and record its figures in RESULTS.md.

Run: .venv/bin/python benchmarks/audit_real_data.py [--jobs 2]
Needs ../shared/data. Prints, per benchmark: verdict, best feature set, its statistic with interval, seconds.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from results_file import add_record_option, recording

import pfungst
from pfungst.audit import AuditConfig, shuffled_copy

TITLE = "Audits of real benchmarks"
"""This script's section title in benchmarks/RESULTS.md."""

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"

CASES = [
    ("MNLI dev-matched, hypothesis only", "mnli/dev_matched.tsv", ("hypothesis",)),
    ("MNLI dev-matched, premise only", "mnli/dev_matched.tsv", ("premise",)),
    ("ARCT train (warrants as options)", "arct/train.tsv", ()),
    ("causal_judgment (evals prompts)", "pacchiardi/causal_judgment/gpt-4-0613.jsonl", ()),
    ("commonsense_qa_2 (evals prompts)", "pacchiardi/commonsense_qa_2/gpt-4-0613.jsonl", ()),
    ("TruthfulQA mc1", "truthfulqa/mc_task.json", ()),
    ("ARC-Challenge test", "arc/ARC-Challenge-Test.jsonl", ()),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args()
    with recording("audit_real_data", TITLE, enabled=not args.no_record):
        config = AuditConfig(seed=args.seed, n_jobs=args.jobs, cues=False, heuristics=False)
        for title, path, fields in CASES:
            benchmark = pfungst.load(DATA / path)
            for label, data in ((title, benchmark), (f"{title}, gold shuffled", shuffled_copy(benchmark, args.seed))):
                started = time.perf_counter()
                result = pfungst.audit.audit(data, config, fields=fields)
                best = result.best
                print(
                    f"{label}: n={len(data)}; {result.verdict.explanation}; accuracy {best.accuracy.value:.3f} "
                    f"(majority {best.majority_baseline.value:.3f}); {time.perf_counter() - started:.0f} s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
