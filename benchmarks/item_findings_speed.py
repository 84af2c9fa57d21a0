"""How long ``check_items`` (duplicates and broken items) takes at 100,000 and 1,000,000 synthetic items and on
MMLU's test set, and how the vectorised MinHash LSH of ``pfungst.data.near_duplicates`` compares with datasketch's
``MinHashLSH`` (speed, and recall of planted near-duplicate pairs).

Run: .venv/bin/python benchmarks/item_findings_speed.py [--sizes 100000 1000000] [--datasketch 20000]
The synthetic items are random 20-word questions over a 5,000-word vocabulary with four 2-word options; 1% of them
are planted exact copies (case and spacing changed, options shuffled) and 1% planted near-duplicates (one word of the
question replaced: word-and-pair Jaccard about 0.86, above the 0.8 threshold). Each size is timed once (the machine
is shared: its load is in the section's header); the planted pairs found are checked against the ones planted.
``--datasketch N`` compares both near-duplicate searches on N items (needs ``pip install datasketch``; skipped
without it).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from results_file import add_record_option, recording

from pfungst.data import Benchmark, Item
from pfungst.data.duplicates import near_duplicate_ids
from pfungst.data.item_checks import check_items
from pfungst.data.near_duplicates import word_sets

TITLE = "Item findings: duplicates and broken items at scale"
"""This script's section title in benchmarks/RESULTS.md."""
MMLU_TEST = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "mmlu" / "test"


def synthetic(n: int, seed: int = 0) -> tuple[Benchmark, list[tuple[int, int]], list[tuple[int, int]]]:
    """``n`` items with 1% planted exact copies and 1% planted near-duplicates; the planted (original, copy) pairs."""
    rng = random.Random(seed)
    vocabulary = [f"w{k}" for k in range(5000)]
    items, exact, near = [], [], []
    for index in range(n):
        roll = rng.random()
        if index > 10 and roll < 0.02:
            source = items[rng.randrange(index)]
            options = list(source.options)
            if roll < 0.01:
                rng.shuffle(options)
                text, planted = "  " + source.text.upper() + "?", exact
            else:
                words = source.text.split()
                words[rng.randrange(len(words))] = rng.choice(vocabulary)
                text, planted = " ".join(words), near
            planted.append((int(source.id), index))
            gold = options.index(source.answer)
        else:
            text = " ".join(rng.choices(vocabulary, k=20))
            options = [" ".join(rng.choices(vocabulary, k=2)) for _ in range(4)]
            gold = rng.randrange(4)
        items.append(Item(str(index), text, tuple(options), gold))
    return Benchmark(f"synthetic-{n}", items), exact, near


def _recall(labels: list[int], pairs: list[tuple[int, int]]) -> float:
    return sum(labels[a] == labels[b] for a, b in pairs) / max(len(pairs), 1)


def time_findings(benchmark: Benchmark, exact: list[tuple[int, int]], near: list[tuple[int, int]]) -> str:
    start = time.perf_counter()
    findings = check_items(benchmark)
    seconds = time.perf_counter() - start
    groups = {item_id: k for k, g in enumerate(findings["exact-duplicate"].groups) for item_id in g}
    exact_found = sum(groups.get(str(a), -1) == groups.get(str(b), -2) for a, b in exact)
    near_groups = {item_id: k for k, g in enumerate(findings["near-duplicate"].groups) for item_id in g}
    near_found = sum(near_groups.get(str(a), -1) == near_groups.get(str(b), -2) for a, b in near)
    return (
        f"{benchmark.name:<22} {len(benchmark):>9,} {seconds:>8.1f} s   exact {findings['exact-duplicate'].count:>7,} "
        f"items (planted pairs found {exact_found}/{len(exact)}), near {findings['near-duplicate'].count:>7,} "
        f"(planted pairs found {near_found}/{len(near)})"
    )


def compare_datasketch(n: int) -> list[str]:
    """Both near-duplicate searches on the same word-and-pair sets: seconds and recall of the planted pairs."""
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError:
        return ["datasketch not installed: comparison skipped (pip install datasketch==2.0.0)"]
    benchmark, _, near = synthetic(n, seed=1)
    start = time.perf_counter()
    ours = near_duplicate_ids(benchmark).tolist()
    ours_seconds = time.perf_counter() - start
    start = time.perf_counter()
    sets = word_sets([" ".join((item.text, *sorted(item.options))) for item in benchmark])
    lsh = MinHashLSH(threshold=0.8, num_perm=32)
    hashes = []
    for row in range(sets.shape[0]):
        minhash = MinHash(num_perm=32, seed=0)
        columns = sets.indices[sets.indptr[row] : sets.indptr[row + 1]]
        minhash.update_batch([int(column).to_bytes(4, "little") for column in columns])
        lsh.insert(row, minhash)
        hashes.append(minhash)
    parent = list(range(n))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for row, minhash in enumerate(hashes):
        for other in lsh.query(minhash):
            parent[root(other)] = root(row)
    labels = [root(k) for k in range(n)]
    theirs_seconds = time.perf_counter() - start
    return [
        f"near-duplicate search on {n:,} items ({len(near)} planted pairs, Jaccard about 0.86):",
        f"  pfungst.data.near_duplicates (numpy, 8 bands x 4)   {ours_seconds:>7.1f} s, recall "
        f"{_recall(ours, near):.3f}",
        f"  datasketch 2.0.0 MinHashLSH (32 perms, t=0.8)       {theirs_seconds:>7.1f} s, recall "
        f"{_recall(labels, near):.3f} (candidates not yet checked exactly)",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000], help="synthetic sizes")
    parser.add_argument("--datasketch", type=int, default=20_000, help="items for the datasketch comparison (0: none)")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("item_findings_speed", TITLE, enabled=not args.no_record):
        print(f"{'benchmark':<22} {'items':>9} {'time':>10}   findings")
        if MMLU_TEST.is_dir():
            import pfungst

            print(time_findings(pfungst.load(MMLU_TEST), [], []))
        for size in args.sizes:
            print(time_findings(*synthetic(size)))
            sys.stdout.flush()
        if args.datasketch:
            print("\n".join(compare_datasketch(args.datasketch)))


if __name__ == "__main__":
    main()
