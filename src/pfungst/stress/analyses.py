"""From a stress run's outcomes to its analyses and costs: which metric applies to which perturbation's outcomes.

Nothing here asks a model; every analysis is a function of outcomes (:mod:`pfungst.stress.metrics`,
:mod:`~pfungst.stress.pride`, :mod:`~pfungst.stress.spread`, :mod:`~pfungst.stress.multiprompt`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.engine import Plan
from pfungst.evaluate.outcome import Outcome
from pfungst.stress.metrics import (
    VariantAccuracy,
    answer_moved,
    circular_metrics,
    paired_difference,
    selection_bias,
    variant_accuracies,
)
from pfungst.stress.multiprompt import multiprompt_stats
from pfungst.stress.pride import choose_estimation_items, run_pride
from pfungst.stress.spread import SpreadSearch, format_spread
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.stress_result import Analysis, PerturbationCost

__all__ = ["analyse", "pride_items"]


def pride_items(items: Sequence[Item], config: StressConfig) -> tuple[str, ...]:
    """The seeded sample of items whose cyclic passes estimate PriDe's prior, drawn per option count so that every
    count present gets a prior (at least one item each), in benchmark order."""
    groups: dict[int, list[str]] = defaultdict(list)
    for item in items:
        groups[item.n_options].append(item.id)
    chosen = {
        item_id
        for n, ids in groups.items()
        for item_id in choose_estimation_items(ids, config.pride_fraction, config.seed + n)
    }
    return tuple(item.id for item in items if item.id in chosen)


def analyse(
    outcomes: Sequence[Outcome],
    plans: Sequence[Plan],
    config: StressConfig,
    estimation_items: Sequence[str],
    search: SpreadSearch | None,
) -> tuple[tuple[Analysis, ...], tuple[VariantAccuracy, ...], tuple[PerturbationCost, ...], tuple[str, ...]]:
    """Every analysis that the run's perturbations support, the accuracy of every variant, each perturbation's cost,
    and warnings for what could not be computed."""
    by_perturbation: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_perturbation[outcome.perturbation].append(outcome)
    analyses: list[Analysis] = []
    warnings: list[str] = []
    extra: list[Outcome] = []
    seed, boot, level = config.seed, config.n_bootstrap, config.level

    def add(name: str, subject: str, compute: Callable[[], Any]) -> None:
        try:
            analyses.append(Analysis(name, subject, compute()))
        except ConfigError as exc:
            warnings.append(f"{name} ({subject}) not computed: {exc}")

    identity = by_perturbation["identity"]
    add(
        "selection-bias",
        f"{config.rule}, identity, by position",
        lambda: selection_bias(identity, by="position", seed=seed, n_bootstrap=boot, level=level),
    )
    if by_perturbation["cyclic"]:
        add(
            "circular",
            f"{config.rule}, cyclic rotations",
            lambda: circular_metrics(by_perturbation["cyclic"], seed=seed, n_bootstrap=boot, level=level),
        )
    if by_perturbation["permutations"]:
        add(
            "circular",
            f"{config.rule}, permutations",
            lambda: circular_metrics(by_perturbation["permutations"], seed=seed, n_bootstrap=boot, level=level),
        )
    if by_perturbation["answer-moved"]:
        add(
            "answer-moved",
            f"{config.rule}, gold moved to each slot",
            lambda: answer_moved(by_perturbation["answer-moved"], seed=seed, n_bootstrap=boot, level=level),
        )
    shuffled = by_perturbation["ids-shuffled"]
    if shuffled:
        for by in ("label", "position"):
            add(
                "selection-bias",
                f"{config.rule}, ids shuffled, by {by}",
                partial(selection_bias, shuffled, by=by, seed=seed, n_bootstrap=boot, level=level),
            )
        add(
            "paired-difference",
            f"{config.rule}, identity versus ids shuffled",
            lambda: paired_difference(
                identity, shuffled, names=("identity", "ids shuffled"), seed=seed, n_bootstrap=boot, level=level
            ),
        )
    for needs_scores in ("top2", "pride"):
        if needs_scores in config.run and not config.rule_scores_options:
            warnings.append(
                f"{needs_scores} ({config.rule}) not computed: it needs a score for every option, and "
                f"rule '{config.rule}' gives only its parsed choice; use letter or a cloze rule"
            )
    top2 = by_perturbation["top2"]
    if top2:
        add(
            "paired-difference",
            f"{config.rule}, top two adjacent versus at the ends",
            lambda: paired_difference(
                [o for o in top2 if o.variant == "adjacent"],
                [o for o in top2 if o.variant == "ends"],
                names=("adjacent", "ends"),
                seed=seed,
                n_bootstrap=boot,
                level=level,
            ),
        )
    if "pride" in config.run and config.rule_scores_options:
        estimation = set(estimation_items)
        source = by_perturbation["cyclic"] or by_perturbation["pride-estimate"]
        cyclic = [o for o in source if o.item_id in estimation]
        before = len(analyses)
        add(
            "pride",
            f"{config.rule}, K = {config.pride_fraction:.0%}",
            lambda: run_pride(identity, cyclic, estimation_items, fraction=config.pride_fraction),
        )
        if len(analyses) > before:
            extra = list(analyses[-1].value.outcomes)
            add(
                "selection-bias",
                f"{config.rule}, PriDe debiased, by position",
                lambda: selection_bias(extra, by="position", seed=seed, n_bootstrap=boot, level=level),
            )
    _rule_analyses(by_perturbation["rules"], add, config)
    if by_perturbation["formats"]:
        add(
            "format-spread",
            f"{config.rule}, {len({o.format for o in by_perturbation['formats']})} formats",
            lambda: format_spread(by_perturbation["formats"], seed=seed, n_bootstrap=boot, level=level),
        )
    if search is not None:
        analyses.append(Analysis("spread-search", f"{config.rule}, {config.n_search_formats} formats", search))
    if by_perturbation["instructions"]:
        add(
            "multiprompt",
            f"{config.rule}, instruction paraphrases",
            lambda: multiprompt_stats(
                by_perturbation["instructions"], by="format", seed=seed, n_bootstrap=boot, level=level
            ),
        )
    accuracies = variant_accuracies([*outcomes, *extra], level=level)
    return tuple(analyses), accuracies, _costs(plans, config, estimation_items), tuple(warnings)


def _rule_analyses(
    outcomes: Sequence[Outcome], add: Callable[[str, str, Callable[[], Any]], None], config: StressConfig
) -> None:
    """Selection bias under each compared scoring rule (subject ``<rule>, rules``: the main rule's plain pass is
    ``<rule>, identity`` already, and one name and subject must name one analysis)."""
    for rule in dict.fromkeys(o.rule for o in outcomes):
        chosen = [o for o in outcomes if o.rule == rule]
        add(
            "selection-bias",
            f"{rule}, rules, by position",
            partial(
                selection_bias,
                chosen,
                by="position",
                seed=config.seed,
                n_bootstrap=config.n_bootstrap,
                level=config.level,
            ),
        )


def _costs(
    plans: Sequence[Plan], config: StressConfig, estimation_items: Sequence[str]
) -> tuple[PerturbationCost, ...]:
    """Each perturbation's questions and distinct requests, over one plain pass's; PriDe counted as it would run
    alone (cyclic passes on its sample, one pass elsewhere)."""
    questions: dict[str, int] = defaultdict(int)
    requests: dict[str, set[Any]] = defaultdict(set)
    for plan in plans:
        questions[plan.cell.perturbation] += 1
        requests[plan.cell.perturbation].update(plan.requests)
    plain_questions, plain_requests = questions["identity"], len(requests["identity"])
    if "pride" in config.run and config.rule_scores_options:
        chosen = set(estimation_items)
        source = "cyclic" if questions["cyclic"] else "pride-estimate"
        estimation = [
            p for p in plans if p.cell.perturbation == source and p.cell.presentation.arranged.item.id in chosen
        ]
        rest = [
            p for p in plans if p.cell.perturbation == "identity" and p.cell.presentation.arranged.item.id not in chosen
        ]
        questions["pride"] = len(estimation) + len(rest)
        requests["pride"] = {request for plan in [*estimation, *rest] for request in plan.requests}
    questions.pop("pride-estimate", None)
    return tuple(
        PerturbationCost(
            name,
            count,
            len(requests[name]),
            count / plain_questions if plain_questions else float("nan"),
            len(requests[name]) / plain_requests if plain_requests else float("nan"),
        )
        for name, count in questions.items()
    )
