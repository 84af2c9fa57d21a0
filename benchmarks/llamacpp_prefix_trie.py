"""What decoding a context's continuations together costs and saves in the llama.cpp backend, per weight type.

``LlamaCppModel(prefix_trie=...)``: with ``False`` each continuation is decoded in a call of its own right after its
context's cells (the exact log-likelihood of the whole text, the default for the stored weights); with ``True`` an
item's options go through one call as a prefix trie (each shared token once, the default for float weights). This
script builds the cloze requests of the first ``--items`` ARC-Easy items (as ``compare_lm_eval.py`` does), scores
them with both settings for the stored Q4_1 weights and the ``f16`` copy, ``--runs`` rounds interleaved in one run,
and prints per setting the median seconds, tokens fed, decode calls and tokens a second, then per weight type the
speed-up of the trie and how far its log-likelihoods move from the exact ones (largest absolute difference, how many
scores moved, how many items' choices changed). Usage::

    python benchmarks/llamacpp_prefix_trie.py [--items 100] [--runs 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import time

from compare_lm_eval import build_requests, choices
from results_file import add_record_option, recording

from pfungst.models.embedded import embedded_model_path
from pfungst.models.llamacpp import LlamaCppModel
from pfungst.models.requests import LoglikelihoodRequest

TITLE = "llama.cpp: an item's options in one call (prefix trie) or each alone"
"""This script's section title in benchmarks/RESULTS.md."""

WEIGHTS = ("stored", "f16")


def _time(model: LlamaCppModel, requests: list[LoglikelihoodRequest]) -> tuple[float, list[float], int, int]:
    """Seconds, log-likelihoods, tokens fed and decode calls of one scoring pass (the cache moved away first)."""
    model.loglikelihood([LoglikelihoodRequest("A text that shares no prefix with the items.", " x")])
    tokens, calls = model.stats.tokens_evaluated, model.stats.calls
    start = time.perf_counter()
    results = model.loglikelihood(requests)
    seconds = time.perf_counter() - start
    return seconds, [r.logprob for r in results], model.stats.tokens_evaluated - tokens, model.stats.calls - calls


def main() -> None:
    """Parse arguments, load the four models, run the interleaved rounds and print the two tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    add_record_option(parser)
    args = parser.parse_args()
    with recording("llamacpp_prefix_trie", TITLE, enabled=not args.no_record):
        requests, sizes = build_requests(args.items)
        path = embedded_model_path()
        models = {
            (weights, trie): LlamaCppModel(path, n_threads=args.threads, weights=weights, prefix_trie=trie)
            for weights in WEIGHTS
            for trie in (False, True)
        }
        seconds: dict[tuple[str, bool], list[float]] = {key: [] for key in models}
        last: dict[tuple[str, bool], tuple[float, list[float], int, int]] = {}
        for round_number in range(1, args.runs + 1):
            for key, model in models.items():
                last[key] = _time(model, requests)
                seconds[key].append(last[key][0])
                print(f"  round {round_number}: {key[0]:6} prefix_trie={key[1]!s:5} {last[key][0]:6.2f} s")
        print(f"\n{args.items} ARC-Easy items, {len(requests)} cloze requests, {args.threads} threads")
        header = ("weights", "prefix_trie", "median s", "runs (s)", "tokens", "calls", "tok/s")
        print("{:8} {:>11} {:>9} {:>18} {:>7} {:>6} {:>6}".format(*header))
        for (weights, trie), runs in seconds.items():
            median, (_, _, tokens, calls) = statistics.median(runs), last[(weights, trie)]
            listed = "/".join(f"{run:.1f}" for run in runs)
            print(f"{weights:8} {trie!s:>11} {median:9.2f} {listed:>18} {tokens:7} {calls:6} {tokens / median:6.0f}")
        print(f"\n{'weights':8} {'trie speed-up':>13} {'max |dLL|':>10} {'scores moved':>13} {'choices changed':>16}")
        for weights in WEIGHTS:
            exact, trie = last[(weights, False)][1], last[(weights, True)][1]
            moved = [abs(a - b) for a, b in zip(exact, trie, strict=True)]
            changed = sum(a != b for a, b in zip(choices(exact, sizes), choices(trie, sizes), strict=True))
            ratio = statistics.median(seconds[(weights, False)]) / statistics.median(seconds[(weights, True)])
            print(
                f"{weights:8} {ratio:12.2f}x {max(moved):10.2e} {sum(m > 0 for m in moved):>6}/{len(moved):<6} "
                f"{changed:>8}/{len(sizes)}"
            )


if __name__ == "__main__":
    main()
