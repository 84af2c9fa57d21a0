"""Stress metrics from lm-eval's logs of an exported plan (``pfungst stress --from-logs OUT``).

The plan is rebuilt from the settings and items its documents carry (:func:`~pfungst.stress.lm_eval.plan.
rebuild_plan`); each planned question is matched to its logged document by key, the logged request is checked
against the planned one (a different prompt means the task was run with other options, such as
``--num_fewshot`` or ``--apply_chat_template``), and the log-likelihoods become the results the engine's own
decision reads (:func:`pfungst.evaluate.engine.outcome`). Every perturbation then analyses those outcomes as in
:func:`pfungst.stress.stress`: accuracy per variant, RStd and per-ID recall, circular accuracy and consistency,
answer moved, PriDe from the cyclic passes, and the scoring rules compared. A perturbation without logged samples,
or an item whose presentations were logged in part (``lm_eval --limit``), is named in the warnings, never guessed.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark, DataSource
from pfungst.data.item import Item
from pfungst.data.records import json_value
from pfungst.errors import ConfigError, ReaderError
from pfungst.evaluate.engine import Plan, outcome
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.run_config import override_run_settings
from pfungst.evaluate.score_result import ScoreCounts
from pfungst.models.requests import Loglikelihood, NextTokenLogprobs, NextTokenRequest, Request, Result
from pfungst.provenance import Provenance, ResultReference
from pfungst.stress.costs import plan_costs
from pfungst.stress.lm_eval.plan import cell_key, config_from_settings, rebuild_plan
from pfungst.stress.lm_eval.samples import LoggedDoc, find_sample_files, read_samples
from pfungst.stress.metrics import variant_accuracies
from pfungst.stress.perturbations.base import Asked
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.stress_result import StressResult

__all__ = ["stress_from_logs"]


def stress_from_logs(
    out: str | Path,
    *,
    n_bootstrap: int | None = None,
    level: float | None = None,
    model: str | None = None,
    cluster_by: str | None = None,
) -> StressResult:
    """Every stress figure the logged samples of an exported plan allow.

    Args:
        out: lm-eval's ``--output_path`` (searched for ``samples_*.jsonl``), one model's folder in it, or a file.
        n_bootstrap: Bootstrap resamples per interval (default: as exported).
        level: Coverage of every interval (default: as exported).
        model: The model's name in the result (default: ``lm-eval:<the folder lm-eval named after it>``).
        cluster_by: Which items share errors: ``auto``, ``none`` or a metadata key or field
            (``RunConfig.cluster_by``); default: as exported (``auto``).

    Raises:
        ConfigError: no samples, samples of several models or plans, or none from ``pfungst export lm-eval``.
        ReaderError: a line that differs from the plan (file, line and field named).
    """
    files = find_sample_files(out)
    logged = [doc for path in files for doc in read_samples(path)]
    settings = _settings(logged)
    config = _overridden(_config(logged[0], settings), n_bootstrap=n_bootstrap, level=level, cluster_by=cluster_by)
    benchmark = _benchmark(logged, str(settings.get("benchmark", "")), files)
    run, plans = rebuild_plan(benchmark, config)
    by_key = {key: doc for doc in logged for key in doc.keys}
    answered, outcomes, warnings = _outcomes(plans, by_key, str(settings.get("bos_text", "")))
    asked = Asked(_no_model, lambda step, done, total: None)
    asked.plans.extend(answered)
    asked.outcomes.extend(outcomes)
    findings = [perturbation.analyse(run, asked) for perturbation in run.perturbations]
    present = {o.perturbation for o in outcomes}
    missing = [
        f"{name}: no samples in the logs, so its figures are not computed (run its task)"
        for name in config.names
        if name not in present and name != "pride"
    ]
    planned = [request for plan in answered for request in plan.requests]
    return StressResult(
        model=model or f"lm-eval:{files[0].parent.name}",
        accuracies=variant_accuracies(
            [*outcomes, *(o for f in findings for o in f.outcomes)],
            level=config.run.level,
            clusters=run.clusters,  # cluster-robust where items cluster, as pfungst.stress does
        ),
        analyses=tuple(analysis for found in findings for analysis in found.analyses),
        costs=plan_costs(answered, config.names) + tuple(cost for found in findings for cost in found.costs),
        outcomes=tuple(outcomes),
        counts=ScoreCounts(len(planned), len(set(planned)), 0, 0, 0, 0.0),
        warnings=(
            *settings.get("not_exported", ()),
            *missing,
            *warnings,
            *(w for found in findings for w in found.warnings),
        ),
        benchmark=run.benchmark.to_dict(),
        provenance=_provenance(config, run.benchmark, files),
    )


def _provenance(config: StressConfig, benchmark: Benchmark, files: Sequence[Path]) -> Provenance:
    """The record of a result read from logs: the plan's settings and the sample files it was derived from."""
    settings = {**config.to_dict(), "cache": "", "source": "lm-eval", "samples": [str(path) for path in files]}
    samples = tuple(ResultReference.of_file(path, "lm-eval samples") for path in files)
    return Provenance.current(settings, config.run.seed, data=(benchmark.provenance,), derived_from=samples)


def _overridden(config: StressConfig, **overrides: Any) -> StressConfig:
    """The exported settings, with each override that is not None in place of its field (its own or its run's)."""
    return override_run_settings(
        config, {name: value for name, value in overrides.items() if value is not None}, "stress"
    )


def _no_model(plans: Sequence[Plan], step: str | None) -> tuple[Outcome, ...]:
    raise ConfigError("analysing lm-eval logs asks no model; a perturbation that asks as it goes cannot be analysed")


def _settings(logged: Sequence[LoggedDoc]) -> dict[str, Any]:
    if not logged:
        raise ConfigError("the samples files are empty; run lm_eval on the exported tasks with --log_samples")
    texts = Counter(str(doc.doc["settings"]) for doc in logged)
    if len(texts) > 1:
        odd = next(doc for doc in logged if doc.doc["settings"] != logged[0].doc["settings"])
        raise ReaderError(
            odd.path,
            odd.line,
            "settings",
            "differ from the first file's",
            "Analyse the samples of one export at a time",
        )
    first = logged[0]
    settings = json_value(first.doc["settings"], first.path, line=first.line, field="doc.settings")
    if not isinstance(settings, dict):
        raise ReaderError(first.path, first.line, "doc.settings", f"expected a JSON object, found {settings!r:.40}")
    not_exported = settings.get("not_exported", [])
    if not isinstance(not_exported, list) or not all(isinstance(note, str) for note in not_exported):
        raise ReaderError(first.path, first.line, "doc.settings", "'not_exported' is not a list of strings")
    return settings


def _config(first: LoggedDoc, settings: Mapping[str, Any]) -> StressConfig:
    """The exported stress settings, checked; a ReaderError at the first document's settings where they are not."""
    try:
        config = config_from_settings(settings)
        config.validate()
    except (KeyError, TypeError, ValueError) as exc:  # ConfigError is a ValueError: its message says what is wrong
        reason = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        raise ReaderError(
            first.path, first.line, "doc.settings", f"not the settings of an export ({reason})", "Export again"
        ) from None
    return config


def _benchmark(logged: Sequence[LoggedDoc], name: str, files: Sequence[Path]) -> Benchmark:
    """The items the documents show, in benchmark order."""
    items: dict[str, tuple[int, Item]] = {}
    for doc in logged:
        data = doc.doc
        if data["item_id"] not in items:
            item = Item(str(data["item_id"]), str(data["text"]), tuple(data["options"]), int(data["gold"]))
            items[item.id] = (int(data["item_index"]), item)
    ordered = tuple(item for _, item in sorted(items.values(), key=lambda pair: pair[0]))
    provenance = DataSource(source=", ".join(str(path) for path in files), format="lm-eval samples")
    return Benchmark(name, ordered, provenance=provenance)


def _outcomes(
    plans: Sequence[Plan], by_key: Mapping[str, LoggedDoc], bos_text: str
) -> tuple[list[Plan], list[Outcome], list[str]]:
    """The logged plans and their outcomes; an item whose presentations in a perturbation were logged in part is
    left out of that perturbation, with a warning."""
    wanted = Counter((plan.cell.perturbation, plan.cell.presentation.arranged.item.id) for plan in plans)
    logged = Counter(
        (plan.cell.perturbation, plan.cell.presentation.arranged.item.id) for plan in plans if cell_key(plan) in by_key
    )
    partial = {key for key, count in logged.items() if count < wanted[key]}
    answered, outcomes = [], []
    for plan in plans:
        key = cell_key(plan)
        if key not in by_key or (plan.cell.perturbation, plan.cell.presentation.arranged.item.id) in partial:
            continue
        answers = _answers(plan, by_key[key], bos_text)
        answered.append(plan)
        outcomes.append(dataclasses.replace(outcome(plan, answers), n_tokens=()))  # lm-eval logs no token counts
    warnings = [
        f"{perturbation}: {count} item(s) logged in part (some presentations missing, as after lm_eval --limit) "
        "left out"
        for perturbation, count in Counter(perturbation for perturbation, _ in partial).items()
    ]
    return answered, outcomes, warnings


def _answers(plan: Plan, doc: LoggedDoc, bos_text: str) -> dict[Request, Result]:
    """The results of the plan's requests, read from its document after checking the logged requests match."""
    requests = plan.requests
    if len(requests) == 1 and isinstance(requests[0], NextTokenRequest):
        request = requests[0]
        _check(doc, [request.context] * len(request.candidates), list(request.candidates), bos_text)
        return {request: NextTokenLogprobs(doc.loglikelihoods)}
    _check(doc, [r.context for r in requests], [r.continuation for r in requests], bos_text)  # type: ignore[union-attr]
    return {
        request: Loglikelihood(value, 0, len(doc.continuations[index].encode("utf-8")), doc.greedy[index])
        for index, (request, value) in enumerate(zip(requests, doc.loglikelihoods, strict=True))
    }


def _check(doc: LoggedDoc, contexts: list[str], continuations: list[str], bos_text: str) -> None:
    if list(doc.continuations) != continuations:
        raise ReaderError(
            doc.path,
            doc.line,
            "arguments",
            f"the choices sent ({list(doc.continuations)[:4]}) are not the planned ones ({continuations[:4]})",
            "Run the exported tasks unchanged",
        )
    for sent, planned in zip(doc.contexts, contexts, strict=True):
        if sent != bos_text + planned:
            raise ReaderError(
                doc.path,
                doc.line,
                "arguments",
                f"the prompt sent differs from pfungst's ({sent[-60:]!r} against {planned[-60:]!r})",
                "Run the exported tasks without --num_fewshot, --apply_chat_template or --system_instruction",
            )
