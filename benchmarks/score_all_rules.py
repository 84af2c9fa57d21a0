"""Score 200 ARC-Easy items with the embedded SmolLM2 model and every scoring rule, then kill and resume a CLI run.

Issue 4's first "Done when" check. Prints one table row per scoring rule (accuracy with its 95% Wilson interval,
chance, seconds, distinct requests, model calls), then runs ``pfungst score --rule cloze-raw`` as a subprocess,
kills it with SIGKILL once about half of its requests are in the cache, reruns it to completion, and checks that the
per-item results equal an uninterrupted run's and that the rerun asked the model only for the missing requests.

Each rule gets a fresh cache so that its seconds are its own. Usage::

    .venv/bin/python benchmarks/score_all_rules.py [--items 200] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import add_record_option, recording

import pfungst

TITLE = "Every scoring rule on 200 ARC-Easy items, and kill-and-resume"
"""This script's section title in benchmarks/RESULTS.md."""

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "llm_foundry" / "arc_easy.jsonl"
RULES = ["letter", "cloze-raw", "cloze-token", "cloze-byte", "pmi", "generate"]


def _rows(path: Path) -> int:
    try:
        with sqlite3.connect(path, timeout=1) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.Error:
        return 0


def score_every_rule(n_items: int, threads: int | None, folder: Path) -> dict[str, pfungst.ScoreResult]:
    benchmark = pfungst.load(DATA)
    options = {"n_threads": threads} if threads else {}
    results = {}
    print(
        f"{'rule':<12} {'accuracy [95% Wilson]':<26} {'chance':>6} {'seconds':>8} {'requests':>9} {'calls':>6} "
        f"{'chosen A/B/C/D/none':>22}"
    )
    for rule in RULES:
        result = pfungst.score(
            benchmark, "smollm2", rule=rule, limit=n_items, cache=folder / f"{rule}.sqlite", model_options=options
        )
        accuracy, counts = result.accuracy, result.counts
        ci = accuracy.ci
        assert ci is not None
        chosen = [sum(r.chosen == p for r in result.items) for p in (0, 1, 2, 3, -1)]
        print(
            f"{rule:<12} {accuracy.value:.3f} [{ci.low:.3f}, {ci.high:.3f}]{'':<8} {accuracy.baseline:>6.3f} "
            f"{counts.seconds:>8.1f} {counts.unique_requests:>9} {counts.model_calls:>6} "
            f"{'/'.join(map(str, chosen)):>22}"
            + (f"  refused {result.n_refused}, unparseable {result.n_unparseable}" if rule == "generate" else "")
        )
        results[rule] = result
    return results


def kill_and_resume(n_items: int, threads: int | None, folder: Path, reference: pfungst.ScoreResult) -> None:
    cache = folder / "killed.sqlite"
    total = reference.counts.unique_requests
    command = [
        sys.executable,
        "-m",
        "pfungst.cli",
        "score",
        str(DATA),
        "--limit",
        str(n_items),
        "--rule",
        "cloze-raw",
        "--cache",
        str(cache),
        "--quiet",
        "--chunk-size",
        "4",
    ]
    command += ["--threads", str(threads)] if threads else []
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while _rows(cache) < total // 2 and process.poll() is None:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    stored = _rows(cache)
    print(
        f"\nkilled `pfungst score --rule cloze-raw` with SIGKILL after {time.perf_counter() - started:.1f} s "
        f"(exit {process.returncode}); {stored} of {total} requests in the cache"
    )
    out, summary = folder / "resumed.jsonl", folder / "resumed.json"
    subprocess.run(
        [*command, "--out", str(out), "--json", str(summary)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    counts = json.loads(summary.read_text())["counts"]
    reference.save_items(folder / "whole.jsonl")
    identical = out.read_text() == (folder / "whole.jsonl").read_text()
    print(
        f"resumed run: {counts['hits']} from the cache, {counts['misses']} asked of the model "
        f"(missing: {total - stored}), {counts['model_calls']} model calls, {counts['seconds']:.1f} s"
    )
    print(
        f"per-item results identical to the uninterrupted run: {identical}; repeated model calls: "
        f"{counts['misses'] - (total - stored)}"
    )
    if not identical or counts["misses"] != total - stored:
        raise SystemExit("kill-and-resume check FAILED")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: its choice)")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("score_all_rules", TITLE, enabled=not args.no_record), tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        results = score_every_rule(args.items, args.threads, folder)
        kill_and_resume(args.items, args.threads, folder, results["cloze-raw"])


if __name__ == "__main__":
    main()
