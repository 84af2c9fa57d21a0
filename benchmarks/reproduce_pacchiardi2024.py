"""Reproduce Pacchiardi et al. 2024's "kappa" table cell by cell, and their second experiment, from the shipped data.

Their protocol (``--protocol pacchiardi2024``; :mod:`pfungst.audit.paper_protocol`): the rows in the string order of
the evals sample ids, duplicated prompts dropped, their seed-42 ``DataFrame.sample`` shuffle and 60/20/20 split,
min_df=2, SelectKBest(f_classif, k<=20000), raw-count "TF" and "presence", three logistic regressions (scikit-learn
defaults, max_iter=100) chosen by validation accuracy, and the test-set (acc - 1/K) / (1 - 1/K).

Their liblinear (L1) fits were unseeded, so a cell whose chosen model is L1 could have come out differently: for
every such cell the whole cell is recomputed under liblinear seeds 0..19 and the range is printed; a published value
inside it is what their code could have produced. Cells chosen by L2 (lbfgs) are deterministic.

Then their second experiment (:func:`pfungst.reliance.paper.paper_kappa_tests`, labelled as theirs) on the four
datasets with model logs, beside pfungst's own reliance analysis of the same data.

Run: .venv/bin/python benchmarks/reproduce_pacchiardi2024.py [--seeds 20] [--no-reliance] [--others]
     [--paper-code DIR --paper-python PATH]
Prints every cell (ours, theirs, difference, the L1 range, the classifier chosen), the count within 0.03, the seconds
per dataset against the paper's code (timed in the same run with ``--paper-code``: see ``paper_reference.py``;
without it, issue 10's figures), and the second experiment.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
from paper_reference import PACCHIARDI, PaperCode, add_paper_options
from results_file import add_record_option, recording

import pfungst
from pfungst.audit import AuditConfig
from pfungst.audit.feature_sets import PAPER_FEATURE_SETS, get_feature_set
from pfungst.audit.gpt2 import gpt2_encoding
from pfungst.audit.inputs import ItemInputs
from pfungst.audit.paper_protocol import paper_rows, paper_split
from pfungst.audit.probe import ProbeConfig, run_probe
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.data.benchmark import Benchmark
from pfungst.reliance import read_outcomes, reliance
from pfungst.reliance.paper import paper_kappa_tests

TITLE = "Pacchiardi et al. 2024 reproduced cell by cell"
"""This script's section title in benchmarks/RESULTS.md."""

ROOT = Path(__file__).resolve().parents[1] / ".." / "shared"
DATA = ROOT / "data"
SOURCES = {
    "causal_judgment": "pacchiardi/causal_judgment/gpt-4-0613.jsonl",
    "commonsense_qa_2": "pacchiardi/commonsense_qa_2/gpt-4-0613.jsonl",
    "moral_permissibility": "pacchiardi/moral_permissibility/gpt-4-0613.jsonl",
    "neubaroco": "pacchiardi/neubaroco/gpt-4-0613.jsonl",
    "fantasy_reasoning": "kindsofreasoning/fantasy_reasoning.jsonl",
    "metaphor_boolean": "kindsofreasoning/metaphor_boolean.jsonl",
}
TOLERANCE = 0.03
CONFIG = ProbeConfig(protocol="pacchiardi2024", n_bootstrap=1, n_permutations=1)
"""The cell needs no interval: one bootstrap resample and one permutation keep the scoring cost negligible."""


def load_rows(dataset: str) -> Benchmark:
    """The paper's rows of ``dataset``: one model's log (or the samples file) in the paper's order, de-duplicated."""
    return paper_rows(pfungst.load(DATA / SOURCES[dataset]))


def table_cells(
    dataset: str, reference: pd.DataFrame, seeds: int
) -> tuple[list[dict[str, object]], tuple[float, float], list[ProbeOutcome]]:
    """Every reference cell of ``dataset`` (ours under seed 0, and the range over ``seeds`` liblinear seeds when L1
    is chosen), the (wall, CPU) seconds of loading the rows and the 13 feature sets under seed 0, and the outcomes."""
    started, cpu = time.perf_counter(), time.process_time()
    inputs = ItemInputs.from_benchmark(load_rows(dataset))
    outcomes = {name: run_probe(get_feature_set(name), inputs, CONFIG) for name in PAPER_FEATURE_SETS}
    seconds = (time.perf_counter() - started, time.process_time() - cpu)
    rows = []
    for name, outcome in outcomes.items():
        paper_name = get_feature_set(name).paper_name
        theirs = reference[(reference.dataset == dataset) & (reference.feature_set == paper_name)]
        if theirs.empty:
            continue
        value, published = outcome.chance_corrected_accuracy.value, float(theirs.kappa_test_2dp.iloc[0])
        low = high = float("nan")
        if outcome.final_classifier.startswith("l1") and seeds:
            values = [
                run_probe(get_feature_set(name), inputs, replace(CONFIG, seed=seed)).chance_corrected_accuracy.value
                for seed in range(seeds)
            ]
            low, high = min(values), max(values)
        within = abs(round(value, 2) - published) <= TOLERANCE + 1e-9
        in_range = round(low, 2) - 1e-9 <= published <= round(high, 2) + 1e-9
        rows.append(
            {
                "dataset": dataset,
                "feature_set": paper_name,
                "ours": round(value, 3),
                "theirs": published,
                "diff": round(value - published, 3),
                "l1_range": "" if low != low else f"{low:.3f}..{high:.3f}",
                "classifier": outcome.final_classifier,
                "n_test": int(outcome.predicted.sum()),
                "status": "within 0.03" if within else "inside L1 range" if in_range else "MISS",
            }
        )
    return rows, seconds, list(outcomes.values())


def print_table(seeds: int, paper: PaperCode) -> dict[str, list[ProbeOutcome]]:
    """Print every cell, the counts and the timing against the paper's code (all its feature sets and classifiers,
    its XGBoost column included); return each dataset's seed-0 probe outcomes."""
    reference = pd.read_csv(ROOT / "reference" / "pacchiardi2024_kappa_subset.csv")
    started = time.process_time()
    gpt2_encoding(), get_feature_set("readability").make()  # one-time loads, as imports are
    timing = [f"one-time loads (GPT-2 tokenizer, readability module): {time.process_time() - started:.2f} s CPU"]
    rows, probes = [], {}
    last = None
    for dataset in SOURCES:
        cells, (wall, cpu), probes[dataset] = table_cells(dataset, reference, seeds)
        rows += cells
        theirs = paper.time(dataset) if dataset in PACCHIARDI else None
        last = theirs or last
        ratio = (
            f"{theirs.cpu / cpu:.1f}x less CPU than the paper's code's {theirs.cpu:.1f} s ({theirs.wall:.1f} s wall)"
            if theirs
            else "no reference time"
        )
        timing.append(f"{dataset:22s} {cpu:6.2f} s CPU ({ratio}); {wall:6.2f} s wall")
        print(f"{dataset}: {sum(c['status'] != 'MISS' for c in cells)} of {len(cells)} cells reproduced", flush=True)
    frame = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_rows", 200):
        print(frame.to_string(index=False))
    within = int((frame.status == "within 0.03").sum())
    inside = int((frame.status == "inside L1 range").sum())
    print(f"\ncells within {TOLERANCE}: {within} of {len(frame)}; L1 cells whose published value lies inside the ")
    print(f"{seeds}-seed range: {inside}; reproduced: {within + inside} of {len(frame)}")
    print(frame.assign(ok=frame.status != "MISS").groupby("dataset")["ok"].agg(["sum", "count"]).to_string())
    print("\nseconds per dataset (rows loaded and ordered, 13 feature sets, seed 0; one process, one thread):")
    print(f"baseline: {paper.describe(last)}")
    print("\n".join(timing))
    return probes


def print_reliance(probes: dict[str, list[ProbeOutcome]], audits: Path) -> None:
    """Their second experiment beside pfungst's own reliance analysis, on the four datasets with model logs.

    pfungst's side audits the same rows (crossfit, seed 0, no heuristics or cues), reusing ``audits``/audit_<dataset>
    .json where present (``benchmarks/reliance_pacchiardi.py`` writes them there too) and saving it otherwise.
    """
    outcomes = read_outcomes(DATA / "pacchiardi")
    theirs = paper_kappa_tests({name: probes[name] for name in PACCHIARDI}, outcomes)
    print("\n=== their second experiment (Pacchiardi et al. 2024's computation, pfungst.reliance.paper) ===")
    for split in theirs.datasets:
        print(
            f"{split.dataset}: best {split.feature_set} / {split.classifier} (validation accuracy "
            f"{split.validation_accuracy:.3f}), their kappa {split.kappa:.3f}, {split.n_right} test items right, "
            f"{split.n_wrong} wrong; {'kept' if split.kept else f'left out (kappa <= {theirs.threshold})'}"
        )
    with pd.option_context("display.width", 200, "display.max_rows", 200):
        print(theirs.to_frame().round(3).to_string(index=False))
        print(theirs.families.to_string(index=False) if not theirs.families.empty else "no dataset kept: no t-test")
    paths = []
    for dataset in PACCHIARDI:
        path = audits / f"audit_{dataset}.json"
        if not path.is_file():
            pfungst.audit.audit(load_rows(dataset), AuditConfig(seed=0, heuristics=False, cues=False)).save_json(
                path, items=True
            )
        paths.append(path)
    ours = reliance(paths, outcomes, seed=0)
    print("\n=== pfungst's reliance on the same logs (crossfit audits, per-item shares, within-label differences) ===")
    for shortcut in ours.shortcuts:
        print(
            f"{shortcut.dataset}: probe {shortcut.feature_set}, kappa {shortcut.kappa:.3f} "
            f"(p {shortcut.kappa_pvalue:.3g})"
        )
    with pd.option_context("display.width", 200):
        print(ours.families_frame().drop(columns=["note"]).round(4).to_string(index=False))


def print_other_datasets() -> None:
    """The protocol on the KindsOfReasoning files whose published values are not shipped: nothing is specific to six."""
    print("\n=== the same protocol on the other KindsOfReasoning files (no published values shipped) ===")
    for path in sorted((DATA / "kindsofreasoning").glob("*.jsonl")):
        if path.stem in SOURCES:
            continue
        started = time.process_time()
        rows = paper_rows(pfungst.load(path))
        inputs = ItemInputs.from_benchmark(rows)
        cells = {name: run_probe(get_feature_set(name), inputs, CONFIG) for name in PAPER_FEATURE_SETS}
        values = {name: outcome.chance_corrected_accuracy.value for name, outcome in cells.items()}
        best = max(values, key=lambda name: values[name])
        sizes = "/".join(str(part.size) for part in paper_split(len(rows)))
        print(
            f"{path.stem:14s} {len(rows):5d} rows ({sizes}), {len(rows.labels)} labels: kappa "
            f"{min(values.values()):.2f}..{max(values.values()):.2f}, best {best} "
            f"({cells[best].final_classifier}); {time.process_time() - started:.1f} s CPU",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="liblinear seeds per L1 cell (0: no ranges)")
    parser.add_argument("--no-reliance", action="store_true", help="skip the second experiment")
    parser.add_argument("--others", action="store_true", help="also the other KindsOfReasoning files")
    parser.add_argument(
        "--audits", type=Path, default=Path("benchmarks/out/reliance-pacchiardi"), help="crossfit audit JSONs"
    )
    add_paper_options(parser)
    add_record_option(parser)
    args = parser.parse_args()
    paper = PaperCode(args.paper_code, args.paper_python)
    with recording("reproduce_pacchiardi2024", TITLE, enabled=not args.no_record):
        probes = print_table(args.seeds, paper)
        if args.others:
            print_other_datasets()
        if not args.no_reliance:
            args.audits.mkdir(parents=True, exist_ok=True)
            print_reliance(probes, args.audits)


if __name__ == "__main__":
    main()
