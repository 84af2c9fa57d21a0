"""The :class:`Perturbation` protocol: what a perturbation asks, and how it analyses what came back.

A stress run (:func:`pfungst.stress.suite.stress`) prepares the run once (:class:`StressRun`: items, rule, base
format, the perturbations built with their parameters, seed), asks every perturbation for its cells in stage order,
asks the model, then lets each perturbation analyse the outcomes (:class:`Asked`) into typed results
(:class:`Findings`). How a result renders is the result's own
``blocks()`` (:class:`~pfungst.stress.analysis.AnalysisResult`). Adding a perturbation is one module and one line in
:data:`~pfungst.stress.perturbations.PERTURBATIONS` (or one ``pfungst.perturbations`` entry point); its parameters
are the fields of a frozen dataclass, checked at construction
(:func:`~pfungst.stress.perturbations.params.check_param`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pfungst.data.benchmark import Benchmark
from pfungst.data.clusters import item_clusters
from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.engine import Cell, Plan, Progress, plan_cell
from pfungst.evaluate.formats import PromptFormat
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.run_config import RunConfig
from pfungst.evaluate.scoring import ScoringRule
from pfungst.evaluate.variants import Identity, Variant
from pfungst.stress.analysis import Analysis, AnalysisResult
from pfungst.stress.stress_result import PerturbationCost

__all__ = [
    "ADAPTIVE",
    "AFTER_FIRST_PASS",
    "BY_ITEM",
    "FIRST_PASS",
    "Asked",
    "Findings",
    "FindingsBuilder",
    "Perturbation",
    "StressRun",
    "StressSettings",
    "own_outcomes_findings",
    "scores_warning",
]

BY_ITEM = 0
"""Stage: asked in the first pass, interleaved item by item with the other ``BY_ITEM`` perturbations (each item is
shown in every arrangement before the next item)."""
FIRST_PASS = 1
"""Stage: asked in the first pass, after the ``BY_ITEM`` cells, in registry order."""
AFTER_FIRST_PASS = 2
"""Stage: planned from the first pass's outcomes (the top-two placement), asked in a pass of its own."""
ADAPTIVE = 3
"""Stage: decides what to ask from what it has seen, asking through :meth:`Asked.ask` itself (the format search)."""


class StressSettings(Protocol):
    """What a perturbation reads of its run's settings; :class:`~pfungst.stress.stress_config.StressConfig` is one.

    Declared here, beside the perturbations, so that they need not import the config, which builds them from their
    registry.
    """

    @property
    def run(self) -> RunConfig:
        """The settings every model run shares: the main rule, the base format, the seed, the interval level."""

    @property
    def rules(self) -> tuple[str, ...]:
        """The names of the scoring rules compared by ``rules`` and reported by the probes."""

    @property
    def n_bootstrap(self) -> int:
        """Bootstrap resamples behind every interval that is not a Wilson interval."""

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the perturbations that run, in run order."""

    @property
    def rule_scores_options(self) -> bool:
        """Whether the main rule scores every option."""

    def compared_rules(self) -> tuple[ScoringRule, ...]:
        """The rules of the ``rules`` perturbation; the main rule keeps its parameters."""


@dataclass(frozen=True)
class StressRun:
    """Everything a stress run decided before its first model call: the items, the main rule and base format, the
    perturbations with their parameters, and the seed (in ``config``)."""

    config: StressSettings
    """The run's settings, checked (a :class:`~pfungst.stress.stress_config.StressConfig`)."""
    benchmark: Benchmark
    """The items stressed (after ``limit`` and ``sample``)."""
    rule: ScoringRule
    """The main scoring rule."""
    base: PromptFormat
    """The base prompt format."""
    perturbations: tuple[Perturbation, ...]
    """The perturbations that run, built with their parameters, in run order (``identity`` first)."""

    @property
    def clusters(self) -> Mapping[str, str] | None:
        """Item id -> cluster for cluster-robust intervals, by ``config.run.cluster_by``; None: the items are taken as
        independent (they do not cluster, or ``cluster_by`` is ``none``).

        Raises:
            ConfigError: ``cluster_by`` names a key some item lacks (:func:`~pfungst.data.clusters.item_clusters`).
        """
        return item_clusters(self.benchmark, self.config.run.cluster_by)

    @property
    def estimation(self) -> dict[str, Any]:
        """The keyword settings of every estimate (``seed``, ``n_bootstrap``, ``level``)."""
        return {"seed": self.config.run.seed, "n_bootstrap": self.config.n_bootstrap, "level": self.config.run.level}

    def cells(
        self,
        item: Item,
        variant: Variant,
        perturbation: str,
        *,
        rule: ScoringRule | None = None,
        prompt_format: PromptFormat | None = None,
        format_name: str | None = None,
        label: str = "",
    ) -> list[Cell]:
        """The cells of ``item`` under ``variant`` (main rule and base format unless given); ``label`` renames the
        variant in the outcomes (``pmi``, ``format 3``).

        Raises:
            ConfigError: the format has too few labels for the item (the message names the item).
        """
        prompt_format = prompt_format or self.base
        try:
            labels = prompt_format.labels(item.n_options)
        except ConfigError as exc:
            raise ConfigError(f"item '{item.id}': {exc}") from exc
        presentations = variant.present(item, labels, self.config.run.seed)
        if label:
            presentations = tuple(dataclasses.replace(p, variant=label) for p in presentations)
        name = self.config.run.format_name if format_name is None else format_name
        return [Cell(p, perturbation, rule or self.rule, prompt_format, name) for p in presentations]

    def format_cells(
        self, perturbation: str, formats: Mapping[str, PromptFormat], items: Sequence[Item] | None = None
    ) -> list[Cell]:
        """Each item (every item unless given) as given in each of ``formats``, format after format; the variant
        and the format are named by the format's name (``format 3``, ``paraphrase 2``)."""
        return [
            cell
            for format_name, prompt_format in formats.items()
            for item in (self.benchmark if items is None else items)
            for cell in self.cells(
                item, Identity(), perturbation, prompt_format=prompt_format, format_name=format_name, label=format_name
            )
        ]


class Asked:
    """What a run has asked so far: every plan, the outcomes it reports, and the outcomes adaptive perturbations
    asked for themselves (kept for their analysis, not reported)."""

    def __init__(self, ask: Callable[[Sequence[Plan], str | None], tuple[Outcome, ...]], progress: Progress) -> None:
        self.plans: list[Plan] = []
        """Every plan asked, in order (the run's request counts and costs)."""
        self.outcomes: list[Outcome] = []
        """The reported outcomes, in the order asked."""
        self.adaptive: list[Outcome] = []
        """Outcomes asked through :meth:`ask` with ``report=False``."""
        self.progress = progress
        """The run's progress callback ``progress(step, done, total)``."""
        self._ask = ask

    def of(self, perturbation: str) -> list[Outcome]:
        """Every outcome labelled ``perturbation`` (reported or adaptive), in the order asked."""
        return [o for o in (*self.outcomes, *self.adaptive) if o.perturbation == perturbation]

    def ask_plans(self, plans: Sequence[Plan], *, step: str | None = None, report: bool = True) -> tuple[Outcome, ...]:
        """Ask planned cells now (each distinct request once, through the cache) and record them.

        Args:
            plans: The planned cells.
            step: The progress step to show; None for none.
            report: Whether the outcomes belong to the result (False: only the perturbation's analysis reads them).
        """
        self.plans.extend(plans)
        outcomes = self._ask(plans, step)
        (self.outcomes if report else self.adaptive).extend(outcomes)
        return outcomes

    def ask(self, cells: Sequence[Cell], *, step: str | None = None, report: bool = True) -> tuple[Outcome, ...]:
        """Plan and ask ``cells`` now (see :meth:`ask_plans`).

        Raises:
            ConfigError: a cell cannot be rendered or planned, or the model lacks a capability.
        """
        return self.ask_plans([plan_cell(cell) for cell in cells], step=step, report=report)


@dataclass(frozen=True)
class Findings:
    """What one perturbation's analysis found."""

    analyses: tuple[Analysis, ...] = ()
    """Its analyses, in the order they are reported."""
    outcomes: tuple[Outcome, ...] = ()
    """Outcomes it derived (PriDe's debiased answers): reported as variants in the accuracy table."""
    warnings: tuple[str, ...] = ()
    """What it could not compute, and why."""
    costs: tuple[PerturbationCost, ...] = ()
    """Its cost where its own plans do not show it (PriDe counted as it would run alone)."""


@dataclass
class FindingsBuilder:
    """Collects a perturbation's analyses; an analysis that cannot be computed becomes a warning."""

    perturbation: str
    """The perturbation analysed (the key of every analysis added)."""
    rule: str
    """The rule of its outcomes, unless an analysis names another."""
    analyses: list[Analysis] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    costs: list[PerturbationCost] = field(default_factory=list)

    def add(
        self,
        kind: type[Any],
        subject: str,
        compute: Callable[[], AnalysisResult],
        *,
        rule: str | None = None,
        variant: str = "",
    ) -> AnalysisResult | None:
        """Compute and add one analysis of result type ``kind``; a :class:`ConfigError` becomes a warning
        (``selection-bias (letter, identity, by position) not computed: ...``) and None is returned."""
        try:
            result = compute()
        except ConfigError as exc:
            self.warnings.append(f"{kind.KIND} ({subject}) not computed: {exc}")
            return None
        self.analyses.append(Analysis(self.perturbation, rule or self.rule, result, variant, subject))
        return result

    def findings(self) -> Findings:
        """Everything collected."""
        return Findings(tuple(self.analyses), tuple(self.outcomes), tuple(self.warnings), tuple(self.costs))


def own_outcomes_findings(
    perturbation: str,
    run: StressRun,
    asked: Asked,
    kind: type[Any],
    subject: str,
    metric: Callable[..., AnalysisResult],
    **options: Any,
) -> Findings:
    """The one analysis of a perturbation's own outcomes: ``metric(outcomes, **options, **run.estimation)``.

    The analysis (result type ``kind``) is headed ``"<rule>, <subject>"``; a perturbation that asked nothing has no
    findings.
    """
    found = FindingsBuilder(perturbation, run.config.run.rule)
    outcomes = asked.of(perturbation)
    if outcomes:
        found.add(kind, f"{run.config.run.rule}, {subject}", lambda: metric(outcomes, **options, **run.estimation))
    return found.findings()


@runtime_checkable
class Perturbation(Protocol):
    """A change to how items are asked that should not change the answers: what to ask, and how to analyse it.

    Its parameters are its constructor's keyword arguments (the fields of a frozen dataclass), checked at
    construction and recorded in the result as ``{"name", "params"}``; everything it derives from them and the run
    (the formats it samples, the items it draws) it computes from ``run`` and the seed, so the same parameters and
    seed ask the same questions.

    A later-stage perturbation (:data:`AFTER_FIRST_PASS`, :data:`ADAPTIVE`) may also define ``max_requests(run) ->
    int``, the most model requests it can send, known before the first pass: the run's progress total then counts
    it as a bound (:mod:`pfungst.stress.progress`); without it the total is a lower bound until it has run. One that
    asks in prompt formats of its own may define ``prompt_formats(run) -> Mapping[str, PromptFormat]``: the result
    records them by name (``settings["formats"]``).
    """

    name: str
    """The registry name; also the ``perturbation`` of its outcomes (``cyclic``)."""
    description: str
    """What it runs and reports, in one line (``pfungst formats --what perturbations``)."""
    stage: int
    """When it is asked: :data:`BY_ITEM`, :data:`FIRST_PASS`, :data:`AFTER_FIRST_PASS` or :data:`ADAPTIVE`."""

    def plan(self, run: StressRun, asked: Asked) -> Sequence[Cell]:
        """The cells to ask. First-pass stages see nothing asked yet; later ones read ``asked``; an adaptive one may
        ask through ``asked.ask`` itself and return what is left to ask (usually nothing)."""
        ...

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Its analyses of the outcomes (``asked.of(name)``, and any other perturbation's it builds on)."""
        ...


def scores_warning(perturbation: str, rule: str) -> str:
    """Why ``perturbation`` was not computed under a rule that scores only its parsed choice (``generate``)."""
    return (
        f"{perturbation} ({rule}) not computed: it needs a score for every option, and "
        f"rule '{rule}' gives only its parsed choice; use letter or a cloze rule"
    )
