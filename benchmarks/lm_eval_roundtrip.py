"""The lm-evaluation-harness round trip for real, timed: the test suite's own round trip, run and recorded.

``tests/stress/test_lm_eval_server.py`` exports a plan with ``pfungst export lm-eval``, runs real ``lm_eval`` against
a real ``python -m llama_cpp.server`` on the embedded SmolLM2, reads lm-eval's logs back with ``pfungst stress
--from-logs`` and checks that the outcomes equal, choice for choice, what pfungst's own engine gives through the same
server. This script runs each of its cases in a pytest process of its own (``pytest -s``, so the test's one-line JSON
summary comes through), times it, and prints per case: passed or failed, the outcomes compared, the largest
log-likelihood difference, the accuracies, and the wall seconds (server start, lm-eval, pfungst's own run).

Run: .venv/bin/python benchmarks/lm_eval_roundtrip.py [--cases cloze-10-items,cloze-cyclic-3-items] [--no-record]
Needs ``pip install -e '.[dev]'`` (lm-eval, llama-cpp-python's server). Exits 1, recording nothing, if a case fails
or skips.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from results_file import add_record_option, recording

TITLE = "lm-evaluation-harness round trip against llama-cpp-python's server"
"""This script's section title in benchmarks/RESULTS.md."""
REPOSITORY = Path(__file__).resolve().parents[1]
TEST_FILE = "tests/stress/test_lm_eval_server.py"
CASES = ("cloze-10-items", "cloze-cyclic-3-items")
"""The test's parametrised cases (its ids): ten questions as given, three in every cyclic rotation."""
OPTIONS = 3
"""Options per question in the test's items: lm-eval sends one request per option."""


def run_case(case: str) -> dict[str, object]:
    """One case of the test in its own pytest process: its outcome, its JSON summary and its wall seconds."""
    command = [sys.executable, "-m", "pytest", "-s", "-q", "-p", "no:cacheprovider", "-rs", TEST_FILE, "-k", case]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    summaries = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"rule"')]
    passed = done.returncode == 0 and len(summaries) == 1
    if not passed:
        print(done.stdout[-3000:] + done.stderr[-3000:], file=sys.stderr)
    return {"case": case, "passed": passed, "seconds": seconds, "summary": summaries[0] if summaries else None}


def case_line(row: dict[str, object]) -> str:
    """One printed line per case."""
    summary = row["summary"]
    if not isinstance(summary, dict):
        return f"- {row['case']}: FAILED or skipped after {row['seconds']:.0f} s (pytest's output on stderr)"
    accuracies = sorted({round(float(value), 2) for _, _, value in summary["accuracy"]})
    shown = "/".join(f"{value:.2f}" for value in accuracies)
    return (
        f"- {row['case']}: {'passed' if row['passed'] else 'FAILED'} in {row['seconds']:.0f} s wall; "
        f"{summary['outcomes']} outcomes from lm-eval's logs ({int(summary['outcomes']) * OPTIONS} lm-eval requests), "
        f"each the choice pfungst's own engine makes; "
        f"largest log-likelihood difference {summary['max_score_gap']:.1e}; "
        f"accuracy {shown} ({len(summary['accuracy'])} perturbation variant(s))"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help="The test's case ids, comma-separated.")
    add_record_option(parser)
    args = parser.parse_args()
    cases = [case for case in args.cases.split(",") if case]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s) {unknown}; the test's cases are {list(CASES)}")
    with recording("lm_eval_roundtrip", TITLE, enabled=not args.no_record):
        rows = [run_case(case) for case in cases]
        for row in rows:
            print(case_line(row))
        print(f"{os.cpu_count()} cores; load average at the end {os.getloadavg()[0]:.1f}")
        if not all(row["passed"] for row in rows):
            sys.exit(1)  # inside the block: a failed round trip records nothing


if __name__ == "__main__":
    main()
