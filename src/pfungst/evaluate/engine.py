"""The engine under every stress run: render and plan each question, ask each distinct request once through the
persistent cache, then decide.

A :class:`Cell` is one question (an item presented one way, in one format, under one scoring rule). All cells of a
run are planned before the first model call (STYLE rule 14), so a bad format, label set or capability fails at once;
their requests are de-duplicated across cells (shift 0 of the cyclic variant *is* the identity question, and costs
nothing twice) and sent ``chunk_size`` cells at a time through a :class:`~pfungst.models.cache.CachedModel`, which
commits each answer as it arrives: an interrupted run resumes without repeating a model call.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pfungst.data.builder import OnError
from pfungst.errors import ConfigError, ContextOverflow
from pfungst.evaluate.formats import PromptFormat, RenderedPrompt
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.score_result import ScoreCounts
from pfungst.evaluate.scoring import ScoringRule, answer_requests
from pfungst.evaluate.scoring.base import Decision
from pfungst.evaluate.variants import Presentation
from pfungst.models.cache import CachedModel, CacheStats
from pfungst.models.protocol import LanguageModel
from pfungst.models.registry import ModelSpec, load_model
from pfungst.models.requests import Loglikelihood, Request, Result

__all__ = ["Cell", "Plan", "Progress", "answer_plans", "ask", "ask_plans", "count_requests", "open_cached", "plan_cell"]

Progress = Callable[[str, int, int], None]
"""``progress(step, done, total)``, called as work advances."""

_REQUESTS_PER_MODEL_CALL = 4096  # CachedModel's own chunking; cell chunks are already smaller


@dataclass(frozen=True)
class Cell:
    """One question: an item presented one way, rendered in one format, scored by one rule."""

    presentation: Presentation
    """The arranged item (and any labels replacing the format's)."""
    perturbation: str
    """The family this question belongs to (``cyclic``, ``formats``, ...); copied to the outcome."""
    rule: ScoringRule
    """How the answer is read from the model."""
    format: PromptFormat
    """How the item is rendered."""
    format_name: str
    """The format's name in results (``mmlu``, ``format 3``, ``paraphrase 2``)."""


@dataclass(frozen=True)
class Plan:
    """A cell rendered, with the requests its rule needs, in the order the rule decides from."""

    cell: Cell
    rendered: RenderedPrompt
    requests: tuple[Request, ...]


def plan_cell(cell: Cell) -> Plan:
    """Render ``cell`` and plan its requests.

    Raises:
        ConfigError: the format or rule cannot handle the item (the message names the item).
    """
    presentation = cell.presentation
    item_id = presentation.arranged.item.id
    try:
        prompt_format = cell.format
        if presentation.labels:
            prompt_format = dataclasses.replace(prompt_format, label_style=presentation.labels)
        rendered = prompt_format.render(presentation.arranged)
        requests = cell.rule.requests(presentation.arranged, rendered)
    except ConfigError as exc:
        message = str(exc)
        raise ConfigError(message if item_id in message else f"item '{item_id}': {message}") from exc
    return Plan(cell, rendered, tuple(requests))


def answer_plans(
    model: LanguageModel,
    plans: Sequence[Plan],
    *,
    chunk_size: int,
    progress: Progress,
    step: str,
    on_error: OnError = "raise",
) -> dict[Request, Result]:
    """Every distinct request's result, asking for each once, ``chunk_size`` plans at a time.

    A question longer than the model's context window stops the run with an error naming its item, or with
    ``on_error="skip"`` leaves its requests unanswered (its outcome is ``skipped``) and goes on.

    Raises:
        ConfigError: the model lacks a capability some plan needs (checked before any call).
        ContextOverflow: a question does not fit the context window, and ``on_error`` is ``raise``.
    """
    needed = {request.capability for plan in plans for request in plan.requests}
    missing = needed - set(model.capabilities)
    if missing:
        rules = ", ".join(f"'{name}'" for name in sorted({plan.cell.rule.name for plan in plans}))
        why = "".join(f" {note}" for note in getattr(model, "limitations", ()))  # a server's probe says why
        raise ConfigError(
            f"scoring rule {rules} needs {sorted(missing)} requests, which the model cannot serve "
            f"(it offers {sorted(model.capabilities)}); choose another scoring rule.{why}"
        )
    answers: dict[Request, Result] = {}
    progress(step, 0, len(plans))
    for start in range(0, len(plans), chunk_size):
        chunk = plans[start : start + chunk_size]
        pending = [request for plan in chunk for request in plan.requests if request not in answers]
        try:
            answers.update(answer_requests(model, pending))
        except ContextOverflow:
            _answer_one_by_one(model, chunk, answers, on_error)
        progress(step, start + len(chunk), len(plans))
    return answers


def _answer_one_by_one(
    model: LanguageModel, plans: Sequence[Plan], answers: dict[Request, Result], on_error: OnError
) -> None:
    """Ask a chunk that overflowed question by question, to name (or skip) the questions that do not fit."""
    for plan in plans:
        pending = [request for request in plan.requests if request not in answers]
        try:
            answers.update(answer_requests(model, pending))
        except ContextOverflow as exc:
            if on_error != "skip":
                item = plan.cell.presentation.arranged.item
                raise ContextOverflow(
                    f"item '{item.id}' ({plan.cell.format_name}, {plan.cell.presentation.variant}): {exc} "
                    "Pass --on-error skip (on_error='skip') to score it as skipped and go on."
                ) from exc


def decide(plan: Plan, results: Sequence[Result]) -> Decision:
    """The rule's decision for a planned cell from its requests' results."""
    return plan.cell.rule.decide(plan.cell.presentation.arranged, plan.rendered, results)


def outcome(plan: Plan, answers: Mapping[Request, Result]) -> Outcome:
    """The outcome of a planned, answered cell."""
    cell, arranged = plan.cell, plan.cell.presentation.arranged
    if any(request not in answers for request in plan.requests):
        results: list[Result] = []
        decision = Decision.no_choice(arranged, "skipped", "")
    else:
        results = [answers[request] for request in plan.requests]
        decision = decide(plan, results)
    return Outcome(
        item_id=arranged.item.id,
        perturbation=cell.perturbation,
        variant=cell.presentation.variant,
        rule=cell.rule.name,
        format=cell.format_name,
        order=arranged.order,
        labels=plan.rendered.labels,
        gold=arranged.item.gold,
        chosen=decision.original,
        chosen_position=decision.position,
        status=decision.status,
        scores=decision.scores,
        text=decision.text,
        n_tokens=_continuation_tokens(arranged.n_options, results),
    )


def _continuation_tokens(n_options: int, results: Sequence[Result]) -> tuple[int, ...]:
    """Tokens of each option's continuation: the first ``K`` results when they are log-likelihoods (cloze and PMI
    rules ask one per option first, in arranged order); empty for other rules."""
    if len(results) < n_options or not all(isinstance(result, Loglikelihood) for result in results[:n_options]):
        return ()
    return tuple(result.n_tokens for result in results[:n_options])  # type: ignore[union-attr]


def ask(
    model: CachedModel,
    cells: Sequence[Cell],
    *,
    chunk_size: int = 16,
    progress: Progress | None = None,
    step: str = "asking",
) -> tuple[tuple[Outcome, ...], ScoreCounts]:
    """The outcome of every cell (same order) and what it cost: requests, cache hits and misses, seconds.

    Raises:
        ConfigError: a cell cannot be rendered or planned, or the model lacks a capability; before any call.
    """
    plans = [plan_cell(cell) for cell in cells]
    start, before = time.perf_counter(), replace(model.stats)
    outcomes = ask_plans(model, plans, chunk_size=chunk_size, progress=progress, step=step)
    return outcomes, count_requests(plans, before, model.stats, time.perf_counter() - start)


def ask_plans(
    model: LanguageModel,
    plans: Sequence[Plan],
    *,
    chunk_size: int = 16,
    progress: Progress | None = None,
    step: str = "asking",
    on_error: OnError = "raise",
) -> tuple[Outcome, ...]:
    """The outcome of every planned cell (same order), each distinct request asked once.

    Raises:
        ConfigError: the model lacks a capability some plan needs (before any call).
        ContextOverflow: a question does not fit the model's context window and ``on_error`` is ``raise``.
    """
    answers = answer_plans(
        model, plans, chunk_size=chunk_size, progress=progress or _quiet, step=step, on_error=on_error
    )
    return tuple(outcome(plan, answers) for plan in plans)


def count_requests(plans: Sequence[Plan], before: CacheStats, after: CacheStats, seconds: float) -> ScoreCounts:
    """Requests planned and distinct, cache hits and misses and model calls between two cache snapshots."""
    planned = [request for plan in plans for request in plan.requests]
    return ScoreCounts(
        requests=len(planned),
        unique_requests=len(set(planned)),
        hits=after.hits - before.hits,
        misses=after.misses - before.misses,
        model_calls=after.model_calls - before.model_calls,
        seconds=round(seconds, 3),
    )


@contextmanager
def open_cached(
    model: ModelSpec | str | LanguageModel, cache_path: str | Path, options: Mapping[str, Any]
) -> Iterator[CachedModel]:
    """The model behind a persistent cache; a model loaded here, and the cache opened here, are closed after.

    Raises:
        ConfigError: ``model`` is neither a spec (a :class:`~pfungst.models.registry.ModelSpec` or a string) nor a
            LanguageModel, or ``options`` are given with a built model.
    """
    if isinstance(model, CachedModel):
        yield model
        return
    if isinstance(model, ModelSpec | str):
        loaded: Any = load_model(model, **dict(options))
    elif hasattr(model, "fingerprint") and hasattr(model, "capabilities"):
        if options:
            raise ConfigError("model_options apply only to a model given by name; this model is already built")
        loaded = model
    else:
        raise ConfigError(f"model must be a spec such as 'smollm2' or a LanguageModel, not {type(model).__name__}")
    try:
        cached = CachedModel(loaded, str(cache_path), chunk_size=_REQUESTS_PER_MODEL_CALL)
        try:
            yield cached
        finally:
            cached.close()
    finally:
        if loaded is not model and hasattr(loaded, "close"):
            loaded.close()


def _quiet(step: str, done: int, total: int) -> None:
    """A progress callback that shows nothing."""
