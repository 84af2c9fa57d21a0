"""``run_demo``: the built-in job. Generate the planted-artifact benchmarks, save them, summarise and audit each, then
stress the embedded model on the first items of ``gold-position``.

Every synthetic benchmark has a known answer: the audit must flag the three with planted artifacts and find no
evidence in the control. The stress run tells the model's side of the Clever Hans story: ``gold-position`` puts the
gold answer in slot A for 66% of its items, so a model drawn to the letter A scores well above chance without reading
the options; moving the answer to each slot and debiasing with PriDe show the score for what it is. It ends by
writing one HTML report of all of it (``report.html``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pfungst.audit.result import AuditResult
from pfungst.audit.run import AuditConfig, audit
from pfungst.blocks import format_estimate
from pfungst.data.benchmark import Benchmark
from pfungst.data.loading import load
from pfungst.data.summary import BenchmarkSummary, summarize
from pfungst.data.synthetic import SYNTHETIC, make_synthetic
from pfungst.errors import ConfigError
from pfungst.models.protocol import LanguageModel
from pfungst.report.html import write_html
from pfungst.stress.metrics import MovedAnswerAccuracy
from pfungst.stress.perturbations.pride.perturbation import PridePerturbation
from pfungst.stress.perturbations.pride.result import PrideResult
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.stress_result import StressResult
from pfungst.stress.suite import stress

__all__ = ["DEMO_FIELDS", "DEMO_STRESS", "MAX_DEMO_ITEMS", "DemoResult", "run_demo"]

DEMO_FIELDS: dict[str, tuple[str, ...]] = {"cue-word": ("hypothesis",)}
"""Partial-input settings per demo benchmark: the cue-word artifact sits in the hypothesis."""

MAX_DEMO_ITEMS = 100_000
"""The most items per synthetic benchmark of the demo (each is audited; 100,000 take minutes)."""
DEMO_STRESSED = "gold-position"
"""The demo benchmark the model is stressed on."""

DEMO_STRESS = StressConfig(
    perturbations=("identity", "answer-moved", PridePerturbation(fraction=0.25)), rules=("letter",)
)
"""The demo's stress settings (its seed, item count and cache are set per run): only what its conclusion reads, the
plain pass, the answer moved to each slot and PriDe, about 110 model requests for 24 items (under a minute on 2
CPU cores); PriDe estimates its prior from every rotation of a quarter of the items, so that it has several
estimation items. ``pfungst stress`` runs the other perturbations."""


@dataclass(frozen=True, eq=False)
class DemoResult:
    """Per demo benchmark: where it was written, its summary and its audit; and the model stressed on one of them."""

    paths: dict[str, Path]
    """Benchmark name -> the JSONL file written."""
    summaries: dict[str, BenchmarkSummary]
    """Benchmark name -> its summary."""
    audits: dict[str, AuditResult]
    """Benchmark name -> its audit (also written beside the benchmark as ``<name>.audit.json``)."""
    stress: StressResult
    """The model stressed on the first items of ``gold-position``."""
    stress_path: Path
    """Where the stress result was written (``gold-position.stress.json``, every outcome included)."""
    report_path: Path
    """The HTML report of everything above (``report.html``): summaries, audits, the stress run, provenance."""
    conclusion: tuple[str, str]
    """Two sentences on the stress run: the score as given, and what moving the answer and debiasing leave of it."""
    seed: int
    """The seed of every random choice."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: each benchmark's path, planted artifact, summary and audit; the stress summary (without
        per-item outcomes, which are in ``stress_path``) and the conclusion."""
        return {
            "seed": self.seed,
            "benchmarks": {
                name: {
                    "path": str(self.paths[name]),
                    "planted": SYNTHETIC.resolve(name).planted,
                    "summary": self.summaries[name].to_dict(),
                    "audit": self.audits[name].to_dict(),
                }
                for name in self.paths
            },
            "stress": {"benchmark": DEMO_STRESSED, "path": str(self.stress_path), "result": self.stress.to_dict()},
            "report": str(self.report_path),
            "conclusion": list(self.conclusion),
        }


def run_demo(
    out_dir: str | Path = "pfungst-demo",
    *,
    seed: int = 0,
    n_items: int = 400,
    config: AuditConfig | None = None,
    stress_items: int = 24,
    model: str | LanguageModel = "smollm2",
    progress: Callable[[str, int, int], None] | None = None,
) -> DemoResult:
    """Write each synthetic benchmark to ``out_dir`` as pfungst JSONL, read it back, summarise and audit it; then
    stress ``model`` on the first ``stress_items`` items of ``gold-position``.

    The audit JSON of each benchmark goes beside it (``<name>.audit.json``); the stress result, every outcome
    included, to ``gold-position.stress.json``. Model answers are cached in ``gold-position.stress-cache.sqlite`` in
    the same folder, so a rerun with the same seed asks the model nothing.

    Args:
        out_dir: The folder written to (created if missing).
        seed: Seeds the benchmarks, the audits and the stress run.
        n_items: Items per synthetic benchmark.
        config: Audit settings (default: ``AuditConfig(seed=seed)``).
        stress_items: How many ``gold-position`` items (the first) the model is stressed on; at least 1.
        model: The model stressed: a spec (default the embedded SmolLM2-135M) or a LanguageModel.
        progress: Optional callback ``progress(step, done, total)``.

    Raises:
        ConfigError: ``n_items`` is not from 1 to :data:`MAX_DEMO_ITEMS`, ``stress_items`` not from 1 to ``n_items``,
            or another setting is invalid.

    Example:
        >>> import tempfile
        >>> from pfungst.models.requests import Loglikelihood, NextTokenLogprobs
        >>> class AlwaysA:  # a model drawn to the letter A, whatever the options say
        ...     fingerprint, capabilities = "always-a", frozenset({"next_token", "loglikelihood"})
        ...     def next_token_logprobs(self, requests):
        ...         return [NextTokenLogprobs(tuple(0.0 if c.strip() == "A" else -5.0 for c in r.candidates))
        ...                 for r in requests]
        ...     def loglikelihood(self, requests):
        ...         return [Loglikelihood(-1.0, 1, 1, False) for r in requests]
        >>> quick = AuditConfig(feature_sets=("1-grams_presence",), heuristics=False, cues=False, n_repeats=1,
        ...                     n_bootstrap=50, n_permutations=20)  # one cheap probe: the example is the stress part
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     result = run_demo(folder, n_items=60, config=quick, stress_items=8, model=AlwaysA())
        >>> print(result.conclusion[1])  # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
        With the answer moved to each slot it is right on A 1.00, B 0.00, C 0.00, D 0.00 (gap 1.000 [1.000, 1.000]);
        PriDe debiased: ... Clever Hans: the score rides on where the answer sits, not on what it says.
    """
    if isinstance(n_items, bool) or not isinstance(n_items, int) or not 1 <= n_items <= MAX_DEMO_ITEMS:
        raise ConfigError(
            f"n_items (--items) must be a number of items from 1 to {MAX_DEMO_ITEMS}, got {n_items!r}; 400 is the "
            "default"
        )
    if isinstance(stress_items, bool) or not isinstance(stress_items, int) or not 1 <= stress_items <= n_items:
        raise ConfigError(
            f"stress_items (--stress-items) must be a number of gold-position items from 1 to the {n_items} items "
            f"(--items) to stress the model on, got {stress_items!r}; for a fast run pass a small number or a "
            "scripted model"
        )
    out = Path(out_dir)
    stress_config = _stress_config(out, seed, stress_items)
    stress_config.validate()
    config = config or AuditConfig(seed=seed)
    paths, summaries, audits, benchmarks = {}, {}, {}, {}
    for name in SYNTHETIC:
        if progress is not None:
            progress(f"writing {name}", 0, 1)
        paths[name] = make_synthetic(name, n_items=n_items, seed=seed).save(out / f"{name}.jsonl")
        benchmarks[name] = load(paths[name])  # through the reader, as a user's file would go
        summaries[name] = summarize(benchmarks[name])
        audits[name] = audit(benchmarks[name], config, fields=DEMO_FIELDS.get(name, ()), progress=progress)
        audits[name].save_json(out / f"{name}.audit.json", items=True)
    stressed = stress(benchmarks[DEMO_STRESSED], model, stress_config, progress=progress)
    stress_path = stressed.save_json(out / f"{DEMO_STRESSED}.stress.json", items=True)
    conclusion = _conclude(stressed, benchmarks[DEMO_STRESSED], model)
    if progress is not None:
        progress("writing the report", 0, 1)
    parts = [part for name in paths for part in (summaries[name], audits[name])]
    report_path = write_html(
        [*parts, stressed],
        out / "report.html",
        title="pfungst demo: planted artifacts, and a model stressed on gold-position",
    )
    return DemoResult(paths, summaries, audits, stressed, stress_path, report_path, conclusion, seed)


def _stress_config(out: Path, seed: int, stress_items: int) -> StressConfig:
    """The demo's stress settings for this run: its seed, its items and a cache beside the results."""
    run = replace(DEMO_STRESS.run, limit=stress_items, seed=seed, cache=out / f"{DEMO_STRESSED}.stress-cache.sqlite")
    return replace(DEMO_STRESS, run=run)


def _conclude(result: StressResult, benchmark: Benchmark, model: str | LanguageModel) -> tuple[str, str]:
    """Two sentences: how the model scores as given and how often it answers A; then what is left when the answer
    moves and after PriDe, and the run's verdict (:attr:`StressResult.verdict`): whether the score rides on the
    answer's position."""
    name = model if isinstance(model, str) else "the model"  # a built model's fingerprint can be a long path
    plain = [o for o in result.outcomes if o.perturbation == "identity"]
    in_a = sum(item.gold == 0 for item in benchmark[: len(plain)])
    picks_a = sum(o.chosen_position == 0 for o in plain)
    accuracy = result.accuracy
    first = (
        f"{name} scores {format_estimate(accuracy)} (chance {accuracy.baseline:.2f}) on the first {len(plain)} "
        f"{DEMO_STRESSED} items as given; the gold answer is in slot A for {in_a} of them, and the model "
        f"answers A for {picks_a}."
    )
    try:
        moved: MovedAnswerAccuracy = result.analysis("answer-moved")
        pride: PrideResult = result.analysis("pride")
    except KeyError:
        return first, "The answer-moved and PriDe analyses could not be computed (see the stress warnings)."
    slots = ", ".join(
        f"{slot} {estimate.value:.2f}" for slot, estimate in zip(moved.slots, moved.per_slot, strict=True)
    )
    return first, (
        f"With the answer moved to each slot it is right on {slots} (gap {format_estimate(moved.gap)}); PriDe "
        f"debiased: {format_estimate(pride.debiased)}. {result.verdict.finding}"
    )
