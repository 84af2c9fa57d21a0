"""A stress run's first pass as documents for lm-evaluation-harness, and back.

The plan is the same one :func:`pfungst.stress.stress` asks: :func:`~pfungst.stress.suite.prepare_run` fixes every
random choice from the seed, :func:`~pfungst.stress.suite.first_pass_cells` lists the questions, and each question's
requests become one document of an lm-eval ``multiple_choice`` task: the context (``query``) and one choice per
request continuation, so that lm-eval's log-likelihood of each choice is exactly the number pfungst's engine asks
for. Letter scoring asks the next-token log-probability of every label spelled with and without a leading space
(``"A"``, ``" A"``); as a log-likelihood that is a choice per spelling, and pfungst adds the two spellings back up.

Only what can be planned before any answer is exported: perturbations of the first pass (``top2`` plans from
answers, ``spread-search`` asks as it goes) and rules that read nothing but summed log-likelihoods (``letter``,
``cloze-raw``, ``cloze-byte``; lm-eval logs no token counts for ``cloze-token`` and scores PMI otherwise).
Reading the logs back rebuilds the same plan from the settings and items stored in every document and matches each
document to its questions by key.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pfungst.data.benchmark import Benchmark
from pfungst.errors import ConfigError
from pfungst.evaluate.engine import Plan, plan_cell
from pfungst.evaluate.run_config import RunConfig
from pfungst.models.requests import LoglikelihoodRequest, NextTokenRequest
from pfungst.stress.perturbations.base import FIRST_PASS, StressRun
from pfungst.stress.perturbations.params import perturbation_spec
from pfungst.stress.stress_config import EXPORT_PERTURBATIONS, EXPORTABLE_RULES, StressConfig
from pfungst.stress.suite import first_pass_cells, prepare_run

__all__ = [
    "EXPORTABLE_RULES",
    "EXPORT_PERTURBATIONS",
    "SCHEMA",
    "HarnessDoc",
    "HarnessPlan",
    "cell_key",
    "config_from_settings",
    "harness_plan",
    "rebuild_plan",
    "settings_text",
]

SCHEMA = "pfungst.lm-eval-plan/1"
"""The layout of the exported documents and their ``settings``."""
_UNEXPORTABLE_RULES = {
    "cloze-token": "lm-eval logs no token counts",
    "pmi": "its unconditional term is not an lm-eval request",
    "generate": "lm-eval generation tasks parse answers their own way",
}
_RUN_SETTINGS = ("rule", "rule_params", "seed", "level")
"""The exported settings of the run (:class:`~pfungst.evaluate.run_config.RunConfig`)."""
_STRESS_SETTINGS = ("rules", "n_bootstrap")
"""The exported settings of the stress run itself."""

Kind = Literal["letter", "cloze"]


@dataclass(frozen=True)
class HarnessDoc:
    """One lm-eval document: the questions (perturbation, variant and rule) that share its context and choices."""

    task: str
    """The task suffix: the perturbation, with ``-letter`` or ``-cloze`` where it asks both kinds (``rules``)."""
    kind: Kind
    """``letter`` (choices are label spellings) or ``cloze`` (choices are option texts)."""
    plans: tuple[Plan, ...]
    """The planned questions it answers; each has the same requests."""
    query: str
    """The context every choice is scored after."""
    continuations: tuple[str, ...]
    """Each choice as scored, leading space included."""
    target: int | list[int]
    """The gold choice (cloze) or its two spellings (letter), for lm-eval's own ``acc``."""

    def record(self, settings: str, delimiter: str, bos_text: str, item_index: int) -> dict[str, Any]:
        """The JSON Lines record: the arrangement and item it shows, its questions, the prompt, choices, target.

        ``delimiter`` is the task's ``target_delimiter`` (taken off each choice), ``bos_text`` goes before the
        context, ``item_index`` is the item's place in the benchmark."""
        first = self.plans[0]
        arranged = first.cell.presentation.arranged
        item = arranged.item
        return {
            "doc_key": cell_key(first),
            "item_id": item.id,
            "item_index": item_index,
            "text": item.text,
            "options": list(item.options),
            "gold": item.gold,
            "perturbation": first.cell.perturbation,
            "variants": [plan.cell.presentation.variant for plan in self.plans],
            "rules": [plan.cell.rule.name for plan in self.plans],
            "format": first.cell.format_name,
            "order": list(arranged.order),
            "labels": list(first.rendered.labels),
            "gold_position": arranged.gold,
            "query": bos_text + self.query,
            "choices": [continuation.removeprefix(delimiter) for continuation in self.continuations],
            "target": self.target,
            "settings": settings,
        }


@dataclass(frozen=True)
class HarnessPlan:
    """The exported plan: the run it comes from, its documents in run order, and what could not be exported."""

    run: StressRun
    """The prepared run (items, rule, formats, seed)."""
    docs: tuple[HarnessDoc, ...]
    """One document per distinct question, in the order the run asks them."""
    settings: Mapping[str, Any]
    """The JSON settings that rebuild the plan (:func:`config_from_settings`)."""
    not_exported: tuple[str, ...]
    """What was asked for but cannot be exported, and why."""

    @property
    def tasks(self) -> tuple[str, ...]:
        """Task suffixes in first-asked order."""
        return tuple(dict.fromkeys(doc.task for doc in self.docs))


def cell_key(plan: Plan) -> str:
    """The key that names a question in the logs: perturbation, variant, format, rule and item."""
    cell = plan.cell
    return "|".join(
        (
            cell.perturbation,
            cell.presentation.variant,
            cell.format_name,
            cell.rule.name,
            cell.presentation.arranged.item.id,
        )
    )


def harness_plan(benchmark: Benchmark, config: StressConfig, *, bos_text: str = "") -> HarnessPlan:
    """The first pass of a stress run of ``config`` on ``benchmark``, as lm-eval documents.

    Raises:
        ConfigError: a perturbation that needs answers to plan (``top2``, ``spread-search``), a main rule lm-eval
            cannot serve, or a prompt given as a format object rather than a built-in name.
    """
    config.validate()
    if not isinstance(config.run.prompt, str):
        raise ConfigError("an exported plan names its prompt format: give a built-in format name, not a PromptFormat")
    _check_perturbations(config)
    rule = config.run.rule
    if rule not in EXPORTABLE_RULES:
        raise ConfigError(
            f"rule '{rule}' cannot be scored from lm-eval's logs ({_UNEXPORTABLE_RULES.get(rule, '')}); "
            f"use one of {', '.join(EXPORTABLE_RULES)}"
        )
    kept = tuple(rule for rule in config.rules if rule in EXPORTABLE_RULES)
    not_exported = tuple(
        f"rules: {rule} not exported ({_UNEXPORTABLE_RULES.get(rule, 'not a built-in rule')})"
        for rule in config.rules
        if rule not in EXPORTABLE_RULES
    )
    if "rules" in config.names and not kept:
        raise ConfigError(f"the 'rules' perturbation needs one of {', '.join(EXPORTABLE_RULES)} in rules")
    config = dataclasses.replace(config, rules=kept or (rule,))
    run = prepare_run(benchmark, config)
    settings = {
        "schema": SCHEMA,
        "benchmark": run.benchmark.name,
        "prompt": config.run.prompt,
        "bos_text": bos_text,
        **{name: _jsonable(getattr(config.run, name)) for name in _RUN_SETTINGS},
        **{name: _jsonable(getattr(config, name)) for name in _STRESS_SETTINGS},
        "perturbations": [perturbation_spec(p) for p in run.perturbations],
        "not_exported": list(not_exported),
    }
    docs = _docs([plan_cell(cell) for cell in _cells(run)])
    return HarnessPlan(run, docs, settings, not_exported)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(entry, str) for entry in value)


def _specs(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(entry, dict) and isinstance(entry.get("name"), str) and isinstance(entry.get("params"), dict)
        for entry in value
    )


_SETTING_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "rule": (lambda value: isinstance(value, str), "a scoring rule's name"),
    "rule_params": (lambda value: isinstance(value, dict), "an object"),
    "perturbations": (_specs, 'a list of {"name", "params"} objects'),
    "rules": (_texts, "a list of scoring rule names"),
    "seed": (_whole, "a whole number"),
    "n_bootstrap": (_whole, "a whole number"),
    "level": (_number, "a number"),
    "prompt": (lambda value: isinstance(value, str), "a prompt format's name"),
}
"""What each exported setting must be: a log edited by hand or damaged is refused naming the setting."""


def config_from_settings(settings: Mapping[str, Any]) -> StressConfig:
    """The stress settings an exported document records.

    Raises:
        ConfigError: the settings are not of :data:`SCHEMA`.
    """
    if settings.get("schema") != SCHEMA:
        raise ConfigError(f"settings of schema {settings.get('schema')!r}, expected {SCHEMA!r}")
    for name, (check, expected) in _SETTING_TYPES.items():
        if name not in settings:
            raise ConfigError(f"the setting {name!r} is missing")
        if not check(settings[name]):
            raise ConfigError(f"the setting {name!r} must be {expected}, found {settings[name]!r:.40}")
    run = RunConfig(prompt=str(settings["prompt"]), **{name: settings[name] for name in _RUN_SETTINGS})
    perturbations = tuple(settings["perturbations"])  # each rebuilt with its recorded parameters
    return StressConfig(
        run=run, perturbations=perturbations, rules=tuple(settings["rules"]), n_bootstrap=settings["n_bootstrap"]
    )


def rebuild_plan(benchmark: Benchmark, config: StressConfig) -> tuple[StressRun, tuple[Plan, ...]]:
    """The prepared run and every planned question of an exported plan (items as stored in its documents)."""
    run = prepare_run(benchmark, config)
    return run, tuple(plan_cell(cell) for cell in _cells(run))


def _cells(run: StressRun) -> list[Any]:
    return first_pass_cells(run, run.perturbations)


def _check_perturbations(config: StressConfig) -> None:
    late = [p.name for p in config.resolved_perturbations() if p.stage > FIRST_PASS]
    if late:
        raise ConfigError(
            f"{', '.join(late)} cannot be exported: each decides what to ask from the model's answers "
            "(top2 from a first pass, spread-search as it searches). Leave it out, or run it with pfungst stress."
        )


def _docs(plans: Sequence[Plan]) -> tuple[HarnessDoc, ...]:
    """One document per perturbation and distinct set of requests, in first-asked order."""
    grouped: dict[tuple[Any, ...], list[Plan]] = {}
    for plan in plans:
        grouped.setdefault((plan.cell.perturbation, plan.requests), []).append(plan)
    kinds: dict[str, set[str]] = {}
    for (perturbation, requests), _ in grouped.items():
        kinds.setdefault(perturbation, set()).add(_kind(requests))
    docs = []
    for (perturbation, requests), members in grouped.items():
        kind = _kind(requests)
        task = perturbation if len(kinds[perturbation]) == 1 else f"{perturbation}-{kind}"
        query, continuations = _choices(requests)
        gold = members[0].cell.presentation.arranged.gold
        target: int | list[int] = [2 * gold, 2 * gold + 1] if kind == "letter" else gold
        docs.append(HarnessDoc(task, kind, tuple(members), query, continuations, target))
    return tuple(docs)


def _kind(requests: tuple[Any, ...]) -> Kind:
    if len(requests) == 1 and isinstance(requests[0], NextTokenRequest):
        return "letter"
    loglikelihoods = [request for request in requests if isinstance(request, LoglikelihoodRequest)]
    if requests and len(loglikelihoods) == len(requests) and len({r.context for r in loglikelihoods}) == 1:
        return "cloze"
    raise ConfigError(f"requests {[type(r).__name__ for r in requests]} are not one lm-eval multiple-choice question")


def _choices(requests: tuple[Any, ...]) -> tuple[str, tuple[str, ...]]:
    if isinstance(requests[0], NextTokenRequest):
        return requests[0].context, tuple(requests[0].candidates)
    return requests[0].context, tuple(request.continuation for request in requests)


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def settings_text(settings: Mapping[str, Any]) -> str:
    """The settings as the compact JSON string every document carries."""
    return json.dumps(dict(settings), sort_keys=True, ensure_ascii=False)
