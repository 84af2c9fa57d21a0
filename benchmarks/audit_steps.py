"""Where a default ``pfungst audit`` spends its CPU seconds, step by step, on the four Pacchiardi et al. 2024 datasets.

Runs ``pfungst audit DATA --quiet`` (every default) on each dataset in one process, as a user would,
after the one-time loads, and charges each CPU second (this process's) to the innermost step running at the time:

- ``one-time loads``: importing the CLI and the audit, GPT-2's tokenizer, textstat (once per process);
- ``load``: reading the benchmark file (``DataOptions.load``);
- ``label set``: deciding whether per-item options are one shared label set (``audited_layout``);
- ``encoders``: fitting and applying every feature set's encoder (``ItemTask.encode``, ``OptionTask.encode``: the
  n-gram counts, readability, option features, scaling);
- ``grid fits``: the classifier grid on the inner split (``choose_classifier``);
- ``refit``: the chosen entry refitted on the whole training fold (``refit_chosen``);
- ``fits``: every other ``task.fit``/``task.predict`` (the held-out predictions, the final model);
- ``bootstrap/permutations``: a probe's scores, intervals and permutation p-values (``score_predictions``) and the
  verdict's interval (``bootstrap_draws_kappa``);
- ``heuristics``, ``cues``, ``controls``: ``run_heuristics``, ``find_cues``, ``audit_controls``;
- ``refit check``: label permutations refitted behind "signal below threshold" (``refit_check``);
- ``result``: printing the result (and writing its JSON with ``--json-dir``: ``_report``);
- ``rest``: everything else (planning the folds, assembling outcomes, the verdict, settings, environment).

CPU seconds are this process's: on a shared machine they measure the audit; wall seconds measure the neighbours too.

Run: .venv/bin/python benchmarks/audit_steps.py [--datasets neubaroco,...] [--repeat 1] [--no-record]
     [--synthetic 10000,30000 [--all-feature-sets]]
``--synthetic N,...`` audits ``benchmarks/audit_scaling.py``'s synthetic shared-label benchmark of each size instead
(``pfungst.audit.audit`` in this process, the default settings, or the 13 paper sets with ``--all-feature-sets``).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import add_record_option, record_results  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "pacchiardi"
DATASETS = ("neubaroco", "moral_permissibility", "causal_judgment", "commonsense_qa_2")
STEPS = (
    "one-time loads",
    "load",
    "label set",
    "encoders",
    "grid fits",
    "refit",
    "fits",
    "bootstrap/permutations",
    "heuristics",
    "cues",
    "controls",
    "refit check",
    "result",
    "rest",
)


class StepClock:
    """Charges process CPU time to the innermost open step (a stack: entering a step pauses the one around it)."""

    def __init__(self) -> None:
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.stack: list[str] = ["rest"]
        self.mark = time.process_time()

    def _switch(self) -> None:
        now = time.process_time()
        self.seconds[self.stack[-1]] += now - self.mark
        self.mark = now

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        self._switch()
        self.stack.append(name)
        try:
            yield
        finally:
            self._switch()
            self.stack.pop()

    def wrap(self, name: str, function: Callable[..., Any], inside: tuple[str, ...] = ()) -> Callable[..., Any]:
        """``function`` charged to step ``name``, except when called inside one of the steps ``inside`` (those
        keep the time)."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            if self.stack[-1] in inside:
                return function(*args, **kwargs)
            with self.step(name):
                return function(*args, **kwargs)

        return timed


def instrument(clock: StepClock) -> None:
    """Wrap the functions of each step where their callers look them up."""
    from pfungst.audit import fold_fits, probe_assembly, probe_outcome, probe_tasks, run, verdict_rule
    from pfungst.cli import audit_commands, option_groups

    patches = {
        "load": [(option_groups.DataOptions, "load")],
        "label set": [(run, "audited_layout")],
        "grid fits": [(fold_fits, "choose_classifier")],
        "refit": [(fold_fits, "refit_chosen")],
        "bootstrap/permutations": [
            (probe_assembly, "score_predictions"),
            (verdict_rule, "probe_intervals"),
        ],
        "heuristics": [(run, "run_heuristics")],
        "cues": [(run, "find_cues")],
        "controls": [(run, "audit_controls")],
        "refit check": [(run, "refit_check")],
        "result": [(audit_commands, "_report")],
    }
    for name, targets in patches.items():
        for module, attribute in targets:
            setattr(module, attribute, clock.wrap(name, getattr(module, attribute)))
    del probe_outcome  # score_predictions is looked up in probe_assembly
    for task in (probe_tasks.ItemTask, probe_tasks.OptionTask):
        task.encode = clock.wrap("encoders", task.encode)
        task.fit = clock.wrap("fits", task.fit, inside=("grid fits", "refit"))
        task.predict = clock.wrap("fits", task.predict, inside=("grid fits", "refit"))


def one_time_loads() -> Callable[[list[str]], Any]:
    """Import the CLI and the audit, load GPT-2's tokenizer and textstat; return the CLI app."""
    from pfungst.audit.gpt2 import gpt2_encoding
    from pfungst.cli import _app

    app = _app()
    from pfungst.audit import run  # noqa: F401
    from pfungst.audit.features import readability  # noqa: F401 (textstat)

    gpt2_encoding()
    return app


def run_cli(app: Callable[..., Any], path: Path, out: Path | None) -> None:
    """``pfungst audit PATH --quiet`` (with ``--json OUT`` when given, else beside PATH), its stdout discarded."""
    with redirect_stdout(io.StringIO()):
        try:
            app(["audit", str(path), "--quiet", *(["--json", str(out)] if out else [])], standalone_mode=False)
        except SystemExit as exc:
            if exc.code:
                raise


def table(per_dataset: dict[str, dict[str, float]], walls: dict[str, float], loads: float) -> str:
    """Markdown: one row per step, one column per dataset and the total (with the one-time loads, ``loads``
    seconds); the CPU and wall totals."""
    names = list(per_dataset)
    lines = [
        "| step | " + " | ".join(names) + " | all |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    lines.append("| one-time loads | " + " | ".join("" for _ in names) + f" | {loads:.2f} |")
    for step in STEPS[1:]:
        values = [per_dataset[name].get(step, 0.0) for name in names]
        lines.append(f"| {step} | " + " | ".join(f"{v:.2f}" for v in values) + f" | {sum(values):.2f} |")
    totals = [sum(per_dataset[name].values()) for name in names]
    lines.append("| **CPU s** | " + " | ".join(f"{v:.2f}" for v in totals) + f" | {sum(totals) + loads:.2f} |")
    lines.append("| wall s | " + " | ".join(f"{walls[n]:.2f}" for n in names) + f" | {sum(walls.values()):.2f} |")
    lines.append(f"\nload average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return "\n".join(lines)


def synthetic_table(clock: StepClock, sizes: list[int], all_sets: bool, loads: float) -> str:
    """:func:`table` of audits of ``audit_scaling``'s synthetic benchmark, one column per size."""
    from audit_scaling import make_items

    import pfungst
    from pfungst.audit import AuditConfig

    per_size: dict[str, dict[str, float]] = {}
    walls: dict[str, float] = {}
    for size in sizes:
        benchmark = make_items(size)
        clock.seconds.clear()
        started = time.perf_counter()
        clock.mark = time.process_time()
        result = pfungst.audit.audit(benchmark, AuditConfig(all_feature_sets=all_sets))
        clock._switch()
        name = f"{size:,} items"
        per_size[name], walls[name] = dict(clock.seconds), time.perf_counter() - started
        print(
            f"  {name}: {sum(per_size[name].values()):.1f} s CPU, {walls[name]:.1f} s wall, verdict "
            f"{result.verdict.label}, kappa {result.verdict.estimate.value:.4f}",
            file=sys.stderr,
            flush=True,
        )
    return table(per_size, walls, loads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=",".join(DATASETS), help="Pacchiardi datasets (default: all four).")
    parser.add_argument("--repeat", type=int, default=1, help="Runs per dataset; the fastest (CPU) is kept.")
    parser.add_argument(
        "--json-dir", type=Path, help="Also write each result's JSON (--json) and keep it here as DATASET.json."
    )
    parser.add_argument("--synthetic", help="Audit synthetic benchmarks of these sizes (comma-separated) instead.")
    parser.add_argument("--all-feature-sets", action="store_true", help="With --synthetic: the 13 paper sets.")
    add_record_option(parser)
    args = parser.parse_args()
    clock = StepClock()
    with clock.step("one-time loads"):
        app = one_time_loads()
    loads = clock.seconds["one-time loads"]
    instrument(clock)
    if args.synthetic:
        found = synthetic_table(clock, [int(size) for size in args.synthetic.split(",")], args.all_feature_sets, loads)
        print(found)
        if not args.no_record:
            sets = "the 13 paper sets" if args.all_feature_sets else "the default sets"
            record_results("audit_steps", f"Where a synthetic audit's CPU seconds go ({sets})", found)
        return
    best: dict[str, dict[str, float]] = {}
    walls: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.repeat):
            for name in (name for name in args.datasets.split(",") if name):
                clock.seconds.clear()
                started = time.perf_counter()
                clock.mark = time.process_time()
                # Always a file of our own: without --json the audit saves its JSON beside the data file.
                out = Path(folder) / f"{name}-{time.time_ns()}.json"
                run_cli(app, DATA / name / "gpt-4-0613.jsonl", out)
                clock._switch()
                seconds = dict(clock.seconds)
                if args.json_dir and out:
                    args.json_dir.mkdir(parents=True, exist_ok=True)
                    (args.json_dir / f"{name}.json").write_bytes(out.read_bytes())
                wall = time.perf_counter() - started
                if name not in best or sum(seconds.values()) < sum(best[name].values()):
                    best[name], walls[name] = seconds, wall
                print(f"  {name}: {sum(seconds.values()):.1f} s CPU, {wall:.1f} s wall", file=sys.stderr, flush=True)
    found = table(best, walls, loads)
    print(found)
    if not args.no_record:
        record_results("audit_steps", "Where the default audit's CPU seconds go, step by step", found)


if __name__ == "__main__":
    main()
