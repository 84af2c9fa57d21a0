"""Reproduce Pacchiardi et al. 2024's "kappa" table for the six datasets whose data ships in ../shared/data.

Their protocol (``--protocol pacchiardi2024``): the user message of each prompt, the lower-cased expected answer,
duplicated prompts dropped, a seed-42 unstratified 60/20/20 split, min_df=2, SelectKBest(f_classif, k<=20000),
raw-count "TF" and "presence", three logistic regressions chosen by validation accuracy, and test-set
(acc - 1/K) / (1 - 1/K). The order of the items before the split is not recorded in the paper; ``--order`` tries
the plausible ones.

Run: .venv/bin/python benchmarks/reproduce_pacchiardi2024.py [--order file|sample-index] [--split ...]
Prints one row per (dataset, feature set): ours, theirs, the difference, the classifier chosen, and whether the
cell is within 0.03; then the count of matching cells.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from pathlib import Path

import pandas as pd

import pfungst
from pfungst.audit.feature_sets import PAPER_FEATURE_SETS, get_feature_set
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.data.benchmark import Benchmark

ROOT = Path(__file__).resolve().parents[1] / ".." / "shared"
SOURCES = {
    "causal_judgment": "data/pacchiardi/causal_judgment/{model}.jsonl",
    "commonsense_qa_2": "data/pacchiardi/commonsense_qa_2/{model}.jsonl",
    "moral_permissibility": "data/pacchiardi/moral_permissibility/{model}.jsonl",
    "neubaroco": "data/pacchiardi/neubaroco/{model}.jsonl",
    "fantasy_reasoning": "data/kindsofreasoning/fantasy_reasoning.jsonl",
    "metaphor_boolean": "data/kindsofreasoning/metaphor_boolean.jsonl",
}


def _ordered(benchmark: Benchmark, order: str) -> Benchmark:
    if order == "file" or not benchmark.items[0].id.rsplit(".", 1)[-1].isdigit():
        return benchmark
    items = tuple(sorted(benchmark.items, key=lambda item: int(item.id.rsplit(".", 1)[1])))
    return replace(benchmark, items=items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--order", choices=["file", "sample-index"], default="sample-index")
    parser.add_argument("--split", choices=["train_test_split", "permutation"], default="train_test_split")
    parser.add_argument("--model", default="gpt-4-0613", help="whose evals log provides the prompts")
    args = parser.parse_args()
    reference = pd.read_csv(ROOT / "reference" / "pacchiardi2024_kappa_subset.csv")
    config = ProbeConfig(protocol="pacchiardi2024", paper_split=args.split, n_bootstrap=200, n_permutations=0)
    rows = []
    for dataset, template in SOURCES.items():
        benchmark = _ordered(pfungst.load(ROOT / template.format(model=args.model)), args.order).deduplicate()
        inputs = ItemInputs.from_benchmark(benchmark)
        for name in PAPER_FEATURE_SETS:
            feature_set = get_feature_set(name)
            outcome = run_probe(feature_set, inputs, config)
            theirs = reference[(reference.dataset == dataset) & (reference.feature_set == feature_set.paper_name)]
            value = float(theirs.kappa_test_2dp.iloc[0]) if len(theirs) else math.nan
            ours = outcome.chance_corrected_accuracy.value
            rows.append(
                {
                    "dataset": dataset,
                    "n": len(benchmark),
                    "n_test": int(outcome.predicted.sum()),
                    "feature_set": feature_set.paper_name,
                    "ours": round(ours, 3),
                    "theirs": value,
                    "diff": round(ours - value, 3),
                    "classifier": outcome.final_classifier,
                    "match": abs(round(ours, 2) - value) <= 0.03 + 1e-9,
                }
            )
            print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    print(frame.to_string(index=False))
    print(
        f"cells within 0.03: {int(frame['match'].sum())} of {len(frame)} (order={args.order}, split={args.split}, "
        f"prompts from {args.model})"
    )
    print(frame.groupby("dataset")["match"].sum().to_string())


if __name__ == "__main__":
    main()
