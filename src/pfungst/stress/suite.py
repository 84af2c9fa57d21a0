"""Stress a model on a benchmark: ask the same questions in every way that should not matter, and measure how much
the answers move (``pfungst stress``, ``pfungst.stress``).

The run asks every perturbation (:data:`~pfungst.stress.perturbations.PERTURBATIONS`) for its cells by stage, all
through one persistent cache: (1) the first pass, every perturbation that needs nothing but the items, planned up
front, checked, de-duplicated and asked together; (2) those planned from the first pass's outcomes (the top-two
placement); (3) adaptive ones that ask as they go (the budgeted format search). Each perturbation then analyses the
outcomes into typed results (:class:`~pfungst.stress.perturbations.base.Findings`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from pfungst.data.benchmark import Benchmark
from pfungst.errors import ConfigError
from pfungst.evaluate.engine import Cell, Plan, Progress, ask_plans, count_requests, open_cached, plan_cell
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.run_config import RunConfig, override_run_settings
from pfungst.evaluate.score_result import ScoreCounts
from pfungst.models.cache import CachedModel
from pfungst.models.protocol import LanguageModel
from pfungst.models.registry import ModelSpec
from pfungst.provenance import Provenance
from pfungst.stress.costs import plan_costs
from pfungst.stress.metrics import VariantAccuracy, variant_accuracies
from pfungst.stress.perturbations.base import ADAPTIVE, FIRST_PASS, Asked, Findings, Perturbation, StressRun
from pfungst.stress.progress import RunProgress, max_requests
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.stress_result import StressResult

__all__ = ["AskedRun", "ask_perturbations", "first_pass_cells", "prepare_run", "stress"]


def stress(
    benchmark: Benchmark,
    model: ModelSpec | str | LanguageModel = "smollm2",
    config: StressConfig | None = None,
    *,
    progress: Progress | None = None,
    **settings: Any,
) -> StressResult:
    """Stress ``model`` on ``benchmark``: accuracy per variant, selection bias, circular evaluation, PriDe, format
    spread, multi-prompt statistics; every figure with its interval.

    Args:
        benchmark: The items (options in original order).
        model: A model spec (``"smollm2"``, a ``.gguf`` path, ``"openai:<base_url>#<model>"``, or one parsed into a
            :class:`~pfungst.models.registry.ModelSpec`) or a LanguageModel.
        config: Settings (:class:`~pfungst.stress.stress_config.StressConfig`); keyword ``settings`` override single
            fields, its own or its run's (``stress(b, "smollm2", perturbations=("cyclic",), limit=20)``).
        progress: Optional callback ``progress(stage, done, total)`` over the model requests of the whole run
            (:mod:`pfungst.stress.progress`): the total is known before the first request, an
            :class:`~pfungst.stress.progress.AtMost` while a later stage's count is only bounded.

    Raises:
        ConfigError: an invalid setting, an item a format or rule cannot handle, or a model lacking a capability a
            rule needs; all before the first model call.
        BackendError: the model failed (answers stored before the failure stay in the cache; run again to resume).
    """
    config = override_run_settings(config or StressConfig(), settings, "stress")
    done = ask_perturbations(benchmark, model, config, progress)
    run, asked = done.run, done.asked
    findings = [perturbation.analyse(run, asked) for perturbation in run.perturbations]
    return StressResult(
        model=done.model,
        accuracies=_accuracies(run, [*asked.outcomes, *_derived(findings)]),
        analyses=tuple(analysis for found in findings for analysis in found.analyses),
        costs=plan_costs(asked.plans, config.names) + tuple(cost for found in findings for cost in found.costs),
        outcomes=tuple(asked.outcomes),
        counts=done.counts,
        warnings=(*_skipped_warning(asked.outcomes), *(warning for found in findings for warning in found.warnings)),
        benchmark=run.benchmark.to_dict(),
        provenance=Provenance.current(
            {**config.to_dict(), "formats": _describe(run)}, config.run.seed, data=(run.benchmark.provenance,)
        ),
    )


class AskedRun(NamedTuple):
    """What a run asked, before any analysis: the prepared run, its plans and outcomes, the request counts and the
    model's fingerprint."""

    run: StressRun
    asked: Asked
    counts: ScoreCounts
    model: str


def ask_perturbations(
    benchmark: Benchmark, model: ModelSpec | str | LanguageModel, config: StressConfig, progress: Progress | None = None
) -> AskedRun:
    """Validate ``config``, then ask the model every perturbation's questions, stage by stage, through one cache, with
    one progress counter over the whole run's requests: the runner of ``stress`` and ``score`` alike.

    Raises:
        ConfigError: an invalid setting, an item a format or rule cannot handle, or a model lacking a capability a
            rule needs; all before the first model call.
        BackendError: the model failed (answers stored before the failure stay in the cache; run again to resume).
    """
    run = prepare_run(benchmark, config)
    later = sorted((p for p in run.perturbations if p.stage > FIRST_PASS), key=lambda p: p.stage)
    first = [p for p in run.perturbations if p.stage <= FIRST_PASS]
    first_plans = [plan_cell(cell) for cell in first_pass_cells(run, first)]
    tracker = RunProgress(progress or (lambda step, done, total: None))
    tracker.plan(first_plans, {p.name: max_requests(p, run) for p in later})
    with open_cached(model, config.run.cache_path(), config.run.model_options) as cached:
        start, before = time.perf_counter(), replace(cached.stats)
        tracker.attach(cached)
        asked = _asker(cached, config.run, tracker)
        asked.ask_plans(first_plans, step=tracker.stage)
        for perturbation in later:
            _ask_later(perturbation, run, asked, tracker)
        counts = count_requests(asked.plans, before, cached.stats, time.perf_counter() - start)
        return AskedRun(run, asked, counts, cached.fingerprint)


def _asker(cached: CachedModel, config: RunConfig, tracker: RunProgress) -> Asked:
    """What the run has asked, asking through the cache; every chunk answered advances the run's one counter."""

    def ask(plans: Sequence[Plan], step: str | None) -> tuple[Outcome, ...]:
        return ask_plans(
            cached,
            plans,
            chunk_size=config.chunk_size,
            progress=tracker.update,
            step=step or tracker.stage,
            on_error=config.on_error,
        )

    return Asked(ask, tracker.update)


def _ask_later(perturbation: Perturbation, run: StressRun, asked: Asked, tracker: RunProgress) -> None:
    """Plan and ask a later-stage perturbation; its exact request count replaces its bound as soon as it is known
    (before asking; after asking for an adaptive one, which asks as it plans)."""
    tracker.begin(perturbation.name)
    plans = [plan_cell(cell) for cell in perturbation.plan(run, asked)]
    if perturbation.stage != ADAPTIVE:
        tracker.settle(perturbation.name, plans)
    if plans:
        asked.ask_plans(plans, step=perturbation.name)
    if perturbation.stage == ADAPTIVE:
        tracker.settle(perturbation.name)


def _accuracies(run: StressRun, outcomes: Sequence[Outcome]) -> tuple[VariantAccuracy, ...]:
    """Accuracy per variant; cluster-robust where the items cluster (subject, subtask, group; ``cluster_by``)."""
    return variant_accuracies(outcomes, level=run.config.run.level, clusters=run.clusters)


def prepare_run(benchmark: Benchmark, config: StressConfig) -> StressRun:
    """Validate the settings, build the perturbations and choose the items: everything but the perturbations' own
    draws, which each makes from the seed."""
    config.validate()
    perturbations = config.resolved_perturbations()
    rule, base = config.run.main_rule(), config.run.base_format()
    config.compared_rules()
    if config.run.limit is not None:
        benchmark = benchmark[: config.run.limit]
    if config.sample is not None and config.sample > len(benchmark):
        raise ConfigError(
            f"sample (--sample) {config.sample} is more than the {len(benchmark)} items of '{benchmark.name}'"
            f"{' left by --limit' if config.run.limit is not None else ''}: give at most {len(benchmark)}, or leave "
            "it out to use every item"
        )
    if config.sample is not None and config.sample < len(benchmark):
        chosen = random.Random(config.run.seed).sample([item.id for item in benchmark], config.sample)
        benchmark = benchmark.select(chosen)
    if len(benchmark) == 0:
        raise ConfigError(f"benchmark '{benchmark.name}' has no items to run")
    run = StressRun(config, benchmark, rule, base, perturbations)
    _ = run.clusters  # a --cluster-by key the items lack fails here, before the first model call
    return run


def first_pass_cells(run: StressRun, perturbations: Sequence[Perturbation]) -> list[Cell]:
    """The first pass's cells: the by-item perturbations' interleaved item by item (each item in every arrangement
    before the next), then the others' in registry order. Nothing has been asked yet."""
    nothing = Asked(_cannot_ask, lambda step, done, total: None)
    position = {item.id: index for index, item in enumerate(run.benchmark)}
    by_item = [cell for p in perturbations if p.stage < FIRST_PASS for cell in p.plan(run, nothing)]
    by_item.sort(key=lambda cell: position[cell.presentation.arranged.item.id])
    return by_item + [cell for p in perturbations if p.stage == FIRST_PASS for cell in p.plan(run, nothing)]


def _cannot_ask(plans: Sequence[Plan], step: str | None) -> tuple[Outcome, ...]:
    raise ConfigError(
        "a first-pass perturbation (stage BY_ITEM or FIRST_PASS) asked the model while planning; "
        "give it stage AFTER_FIRST_PASS or ADAPTIVE to plan from answers"
    )


def _skipped_warning(outcomes: Sequence[Outcome]) -> tuple[str, ...]:
    """One warning counting the questions left unasked because they did not fit the context window (``skip``)."""
    skipped = [outcome for outcome in outcomes if outcome.status == "skipped"]
    if not skipped:
        return ()
    items = sorted({outcome.item_id for outcome in skipped})
    shown = ", ".join(repr(item) for item in items[:5]) + (", ..." if len(items) > 5 else "")
    return (
        f"skipped: {len(skipped)} questions of {len(items)} items did not fit the model's context window "
        f"({shown}); they count as wrong and predict no option ID",
    )


def _derived(findings: Sequence[Findings]) -> list[Outcome]:
    """The outcomes the analyses derived (PriDe's debiased answers), reported as variants."""
    return [outcome for found in findings for outcome in found.outcomes]


def _describe(run: StressRun) -> dict[str, Any]:
    """Every format used, by name, as its fields (instructions and examples included): the base format and those
    of the perturbations that ask in formats of their own (``prompt_formats(run)``)."""
    described = {run.config.run.format_name: run.base.to_dict()}
    for perturbation in run.perturbations:
        prompt_formats = getattr(perturbation, "prompt_formats", None)
        for name, prompt_format in (prompt_formats(run) if callable(prompt_formats) else {}).items():
            described[name] = prompt_format.to_dict()
    return described
