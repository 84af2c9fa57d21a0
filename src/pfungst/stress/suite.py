"""Stress a model on a benchmark: ask the same questions in every way that should not matter, and measure how much
the answers move (``pfungst stress``, ``pfungst.stress``).

The run has three stages, all through one persistent cache: (1) every perturbation that needs nothing but the items
(identity, rotations, orders, moved answers, shuffled IDs, PriDe's estimation passes, scoring rules, formats,
instructions) is planned up front, checked, de-duplicated and asked; (2) the top-two placement, which needs the plain
pass's scores; (3) the budgeted format search, which decides what to ask from what it has seen. Analyses are then
computed from the outcomes alone (:mod:`pfungst.stress.analyses`).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.environment import environment
from pfungst.errors import ConfigError, override_settings
from pfungst.evaluate.engine import Cell, Plan, Progress, ask_plans, count_requests, open_cached, plan_cell
from pfungst.evaluate.formats import FormatGrammar, PromptFormat
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.scoring import ScoringRule
from pfungst.evaluate.variants import (
    Cyclic,
    Identity,
    MovedAnswer,
    Permutations,
    ShuffledIds,
    TopTwo,
    Variant,
)
from pfungst.models.cache import CachedModel
from pfungst.models.protocol import LanguageModel
from pfungst.stress.analyses import analyse, pride_items
from pfungst.stress.spread import SpreadSearch, search_spread
from pfungst.stress.stress_config import BUILTIN_INSTRUCTIONS, StressConfig
from pfungst.stress.stress_result import StressResult

__all__ = ["stress"]


@dataclasses.dataclass(frozen=True)
class _Run:
    """Everything a stress run decided before its first model call."""

    config: StressConfig
    benchmark: Benchmark
    rule: ScoringRule
    base: PromptFormat
    formats: dict[str, PromptFormat]
    paraphrases: dict[str, PromptFormat]
    search_formats: dict[str, PromptFormat]
    estimation_items: tuple[str, ...]


def stress(
    benchmark: Benchmark,
    model: str | LanguageModel = "smollm2",
    config: StressConfig | None = None,
    *,
    progress: Progress | None = None,
    **settings: Any,
) -> StressResult:
    """Stress ``model`` on ``benchmark``: accuracy per variant, selection bias, circular evaluation, PriDe, format
    spread, multi-prompt statistics; every figure with its interval.

    Args:
        benchmark: The items (options in original order).
        model: A model spec (``"smollm2"``, a ``.gguf`` path, ``"openai:<base_url>#<model>"``) or a LanguageModel.
        config: Settings (:class:`~pfungst.stress.stress_config.StressConfig`); keyword ``settings`` override single
            fields (``stress(b, "smollm2", perturbations=("cyclic",), limit=20)``).
        progress: Optional callback ``progress(step, done, total)``.

    Raises:
        ConfigError: an invalid setting, an item a format or rule cannot handle, or a model lacking a capability a
            rule needs; all before the first model call.
        BackendError: the model failed (answers stored before the failure stay in the cache; run again to resume).
    """
    config = override_settings(config or StressConfig(), settings, "stress")
    run = _prepare(benchmark, config)
    cells = _first_stage(run)
    plans = [plan_cell(cell) for cell in cells]
    report = progress or (lambda step, done, total: None)
    with open_cached(model, config.cache_path(), config.model_options) as cached:
        start, before = time.perf_counter(), replace(cached.stats)
        outcomes = list(ask_plans(cached, plans, chunk_size=config.chunk_size, progress=report, step="stressing"))
        if "top2" in config.run and config.rule_scores_options:
            top2_plans = [plan_cell(cell) for cell in _top2_cells(run, outcomes)]
            outcomes += ask_plans(cached, top2_plans, chunk_size=config.chunk_size, progress=report, step="top-2")
            plans += top2_plans
        search = None
        if "spread-search" in config.run:
            search, searched = _search(run, cached, report)
            plans += searched
        counts = count_requests(plans, before, cached.stats, time.perf_counter() - start)
        fingerprint = cached.fingerprint
    analyses, accuracies, costs, warnings = analyse(outcomes, plans, run.config, run.estimation_items, search)
    return StressResult(
        model=fingerprint,
        accuracies=accuracies,
        analyses=analyses,
        costs=costs,
        outcomes=tuple(outcomes),
        counts=counts,
        warnings=warnings,
        benchmark=run.benchmark.to_dict(),
        settings={**config.to_dict(), "formats": _describe(run)},
        seed=config.seed,
        environment=environment(),
    )


def _prepare(benchmark: Benchmark, config: StressConfig) -> _Run:
    """Validate the settings and fix every random choice that does not depend on the model."""
    config.validate()
    rule, base = config.main_rule(), config.base_format()
    config.compared_rules()
    if config.limit is not None:
        benchmark = benchmark[: config.limit]
    if config.sample is not None and config.sample < len(benchmark):
        chosen = random.Random(config.seed).sample([item.id for item in benchmark], config.sample)
        benchmark = benchmark.select(chosen)
    if len(benchmark) == 0:
        raise ConfigError(f"benchmark '{benchmark.name}' has no items to stress")
    grammar = FormatGrammar(base=base)
    formats = {config.format_name: base}
    if "formats" in config.run and config.n_formats > 1:
        sampled = [f for f in grammar.sample(config.n_formats, config.seed) if f != base][: config.n_formats - 1]
        formats.update({f"format {index}": f for index, f in enumerate(sampled, start=1)})
    search_formats: dict[str, PromptFormat] = {}
    if "spread-search" in config.run:
        search_formats = {
            f"search format {index}": f
            for index, f in enumerate(grammar.sample(config.n_search_formats, config.seed + 1))
        }
    texts = dict.fromkeys(BUILTIN_INSTRUCTIONS + tuple(config.instructions))
    paraphrases = {
        f"paraphrase {index}": dataclasses.replace(base, instruction=text) for index, text in enumerate(texts)
    }
    wants_pride = "pride" in config.run and config.rule_scores_options
    estimation = pride_items(list(benchmark), config) if wants_pride else ()
    return _Run(config, benchmark, rule, base, formats, paraphrases, search_formats, estimation)


def _first_stage(run: _Run) -> list[Cell]:
    """Every question that depends on nothing but the items, one perturbation after another."""
    config, name = run.config, run.config.format_name
    variants: list[Variant] = [Identity()]
    if "cyclic" in config.run:
        variants.append(Cyclic())
    if "permutations" in config.run:
        variants.append(Permutations(config.permutations))
    if "answer-moved" in config.run:
        variants.append(MovedAnswer())
    if "ids-shuffled" in config.run:
        variants.append(ShuffledIds())
    cells = [
        cell
        for item in run.benchmark
        for variant in variants
        for cell in _cells(item, variant, variant.name, run.rule, run.base, name, config.seed)
    ]
    if run.estimation_items and "cyclic" not in config.run:
        chosen = set(run.estimation_items)
        cells += [
            cell
            for item in run.benchmark
            if item.id in chosen
            for cell in _cells(item, Cyclic(), "pride-estimate", run.rule, run.base, name, config.seed)
        ]
    if "rules" in config.run:
        cells += [
            cell
            for rule in config.compared_rules()
            for item in run.benchmark
            for cell in _cells(item, Identity(), "rules", rule, run.base, name, config.seed, rule.name)
        ]
    for perturbation, formats in (("formats", run.formats), ("instructions", run.paraphrases)):
        if perturbation in config.run:
            cells += [
                cell
                for format_name, prompt_format in formats.items()
                for item in run.benchmark
                for cell in _cells(
                    item, Identity(), perturbation, run.rule, prompt_format, format_name, config.seed, format_name
                )
            ]
    return cells


def _cells(
    item: Item,
    variant: Variant,
    perturbation: str,
    rule: ScoringRule,
    prompt_format: PromptFormat,
    format_name: str,
    seed: int,
    label: str = "",
) -> list[Cell]:
    """The cells of one item under one variant; ``label`` renames the variant (``letter``, ``format 3``).

    Raises:
        ConfigError: the format has too few labels for the item (the message names the item).
    """
    try:
        labels = prompt_format.labels(item.n_options)
    except ConfigError as exc:
        raise ConfigError(f"item '{item.id}': {exc}") from exc
    presentations = variant.present(item, labels, seed)
    if label:
        presentations = tuple(replace(p, variant=label) for p in presentations)
    return [Cell(p, perturbation, rule, prompt_format, format_name) for p in presentations]


def _top2_cells(run: _Run, outcomes: Sequence[Outcome]) -> list[Cell]:
    """Top-two placements from the plain pass's scores (items it could not rank are left out)."""
    top = {
        o.item_id: _top_two(o)
        for o in outcomes
        if o.perturbation == "identity" and o.status == "ok" and o.n_options >= 3
    }
    variant = TopTwo(top)
    return [
        cell
        for item in run.benchmark
        if item.id in top
        for cell in _cells(item, variant, "top2", run.rule, run.base, run.config.format_name, run.config.seed)
    ]


def _top_two(outcome: Outcome) -> tuple[int, int]:
    ranked = sorted(range(outcome.n_options), key=lambda p: (-outcome.scores[p], p))
    return outcome.order[ranked[0]], outcome.order[ranked[1]]


def _search(run: _Run, cached: CachedModel, progress: Progress) -> tuple[SpreadSearch, list[Plan]]:
    """Sclar et al.'s budgeted search over the search formats; returns the search and the plans it asked."""
    items, asked = list(run.benchmark), []

    def ask_format(format_name: str, indices: Sequence[int]) -> list[bool]:
        prompt_format = run.search_formats[format_name]
        cells = [
            cell
            for index in indices
            for cell in _cells(
                items[index],
                Identity(),
                "spread-search",
                run.rule,
                prompt_format,
                format_name,
                run.config.seed,
                format_name,
            )
        ]
        plans = [plan_cell(cell) for cell in cells]
        asked.extend(plans)
        progress("format search", len(asked), run.config.spread_budget)
        return [o.correct for o in ask_plans(cached, plans, chunk_size=run.config.chunk_size)]

    budget = min(run.config.spread_budget, len(items) * len(run.search_formats))
    search = search_spread(
        list(run.search_formats),
        len(items),
        ask_format,
        budget=budget,
        batch=min(10, max(1, budget // 20)),
        seed=run.config.seed,
    )
    return search, asked


def _describe(run: _Run) -> dict[str, Any]:
    """Every format used, by name, as its fields (instructions and examples included)."""
    described = {}
    for formats in (run.formats, run.paraphrases, run.search_formats):
        for name, prompt_format in formats.items():
            described[name] = prompt_format.to_dict()
    return described
