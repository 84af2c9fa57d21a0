"""Reliance end to end on Pacchiardi et al. 2024's shipped logs: 14 OpenAI models on 4 datasets.

For each dataset in ../shared/data/pacchiardi: build the benchmark from one model's evals log (item ids are the
evals sample ids, shared by every model's log), audit it (``pfungst.audit.audit(benchmark, seed=0)``, AuditConfig
defaults: crossfit, 5 folds x 2 repeats, the paper's 13 feature sets), save the audit JSON with per-item
predictions, read all 56 logs with ``read_outcomes``, and run ``reliance``: per (model, dataset) accuracy on the
items the best probe solves versus the rest, per family a one-sided paired t-test with Benjamini-Hochberg, and the
power of each family's test. The analysis is run twice: on all four datasets, and on those whose probe is shown
better than chance (kappa permutation p <= alpha and not a constant prediction).

Run: .venv/bin/python benchmarks/reliance_pacchiardi.py [--out benchmarks/out/reliance-pacchiardi] [--reuse] [--jobs 1]
Writes <out>/audit_<dataset>.json, <out>/reliance_all.json, <out>/reliance_predictable.json; prints the tables.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd
from results_file import add_record_option, recording

import pfungst
from pfungst.audit import AuditConfig
from pfungst.reliance import RelianceResult, detectable_difference, read_outcomes, reliance, shortcut_items

TITLE = "Reliance on Pacchiardi et al. 2024's shipped logs"
"""This script's section title in benchmarks/RESULTS.md."""

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "pacchiardi"
DATASETS = ("causal_judgment", "commonsense_qa_2", "moral_permissibility", "neubaroco")
PAPER_DATASETS = 19


def _audits(out: Path, prompts_from: str, reuse: bool, config: AuditConfig) -> list[Path]:
    paths = []
    for dataset in DATASETS:
        path = out / f"audit_{dataset}.json"
        if not (reuse and path.is_file()):
            benchmark = pfungst.load(DATA / dataset / f"{prompts_from}.jsonl")
            started = time.perf_counter()
            result = pfungst.audit.audit(benchmark, config)
            result.save_json(path, items=True)
            print(
                f"audited {dataset} (n={len(benchmark)}) in {time.perf_counter() - started:.0f} s: "
                f"{result.verdict.explanation}",
                flush=True,
            )
        paths.append(path)
    return paths


def _print(title: str, result: RelianceResult) -> None:
    print(f"\n=== {title} ===")
    for split in result.shortcuts:
        print(
            f"{split.dataset}: probe {split.feature_set}, kappa {split.kappa:.3f} (p {split.kappa_pvalue:.3g}), "
            f"{split.n_solvable} of {len(split.solvable)} items solvable, chance {split.chance:.3f}"
        )
    frame = result.models_frame()
    columns = [
        "model",
        "dataset",
        "n_solvable",
        "n_rest",
        "accuracy_solvable",
        "accuracy_rest",
        "difference",
        "difference_low",
        "difference_high",
        "pvalue",
        "difference_within_label",
        "pvalue_within_label",
        "chance_corrected_solvable",
        "chance_corrected_rest",
    ]
    with pd.option_context("display.width", 250, "display.max_rows", 200):
        print(frame[columns].round(3).to_string(index=False))
        families = result.families_frame().drop(columns=["note"])
        print(families.round(4).to_string(index=False))
    for family in result.families:
        paper = detectable_difference(len(family.models) * PAPER_DATASETS, family.sd_difference, family.alpha)
        print(
            f"{family.family}: {family.power_statement}; with {PAPER_DATASETS} datasets per model "
            f"({len(family.models) * PAPER_DATASETS} pairs, same SD): {paper:.3f}"
        )
    for line in result.warnings + result.unjoined:
        print(f"note: {line}")
    print(f"unmatched item ids: {result.n_unmatched_outcomes} in outcomes, {result.n_unmatched_audit} in audits")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/out/reliance-pacchiardi"))
    parser.add_argument("--prompts-from", default="gpt-4-0613", help="whose evals log provides the items")
    parser.add_argument("--reuse", action="store_true", help="reuse audit JSONs already in --out")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--feature-set", action="append", help="audit only these feature sets (repeatable)")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("reliance_pacchiardi", TITLE, enabled=not args.no_record):
        config = AuditConfig(seed=0, n_jobs=args.jobs, feature_sets=tuple(args.feature_set or ()))
        audits = _audits(args.out, args.prompts_from, args.reuse, config)
        started = time.perf_counter()
        outcomes = read_outcomes(DATA)
        print(
            f"read {len(outcomes)} outcome sets in {time.perf_counter() - started:.1f} s "
            f"({sum(o.n_unparsed for o in outcomes)} unparsed answers counted as wrong)"
        )
        everything = reliance(audits, outcomes, seed=0)
        _print("all 4 datasets", everything)
        everything.save_json(args.out / "reliance_all.json")
        predictable = [
            path
            for path, split in zip(audits, everything.shortcuts, strict=True)
            if split.kappa_pvalue <= 0.05 and split.kappa > 0 and not split.constant
        ]
        chosen = {shortcut_items(path).dataset for path in predictable}
        subset = reliance(predictable, [o for o in outcomes if o.dataset in chosen], seed=0)
        _print(f"datasets whose probe beats chance: {', '.join(sorted(chosen))}", subset)
        subset.save_json(args.out / "reliance_predictable.json")


if __name__ == "__main__":
    main()
