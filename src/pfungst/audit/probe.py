"""Probe a benchmark with one feature set: can a simple classifier on surface features predict the answers?

Two protocols (:class:`ProbeConfig`'s ``protocol``; :mod:`~pfungst.audit.probe_protocol`): ``CrossFit()`` (default,
seeded repeated stratified cross-fitting, the classifier grid chosen inside each training fold; see
:mod:`~pfungst.audit.crossfit_protocol`) and ``Pacchiardi2024()`` (Pacchiardi et al. 2024's one 60/20/20 split,
their classifiers and test-set scores, to reproduce their table; see :mod:`~pfungst.audit.pacchiardi2024_protocol`).
The protocol plans each probe's fold jobs and fits them; this module checks, fans the jobs out and assembles.

The permutation p-values test whether the (fixed) out-of-fold predictions are associated with the labels; they do
not refit the classifiers on permuted labels. Cross-fitting already keeps every prediction out of sample, so
the null distribution of kappa under "no signal" is centred on 0 without refitting.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
from joblib import Parallel, delayed

from pfungst.audit.blas_threads import one_blas_thread
from pfungst.audit.checked_inputs import check_parameters, checked_once
from pfungst.audit.classifiers import (
    CLASSIFIERS,
    ClassifierSpec,
    make_choice_model,
    make_classifier,
    warnings_routed_by_thread,
)
from pfungst.audit.encoder import make_encoder
from pfungst.audit.feature_sets import FeatureSet
from pfungst.audit.inputs import ItemInputs, OptionTable
from pfungst.audit.paper_protocol import PAPER_SEED
from pfungst.audit.probe_assembly import FoldResult, assemble_outcome
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.audit.probe_plan import FoldJob, ProbePlan
from pfungst.audit.probe_settings import ProbeSettings
from pfungst.audit.probe_tasks import ItemTask, OptionTask, make_task
from pfungst.errors import ConfigError

__all__ = ["PAPER_SEED", "ProbeConfig", "run_probe", "run_probes"]


@dataclass(frozen=True)
class ProbeConfig(ProbeSettings):
    """Settings of a probe: the :class:`~pfungst.audit.probe_settings.ProbeSettings` an audit passes to every probe
    (protocol, folds, seed, resamples, level, grid comparison, parallelism) and the classifier grid and fitting
    options; the defaults are the recommended protocol."""

    classifiers: tuple[str, ...] = tuple(CLASSIFIERS)
    """Names from :data:`~pfungst.audit.classifiers.CLASSIFIERS`; ties in validation go to the earlier name. Under
    crossfit only their penalties count: each is tried with every ``C`` of ``c_grid``."""
    scale_sparse: bool = True
    """Divide sparse n-gram columns by their largest absolute value under crossfit; pacchiardi2024 never does."""
    validation_fraction: float = 0.25
    """Share of each training fold held out to choose the classifier (crossfit)."""
    selection_metric: Literal["kappa", "accuracy"] = "kappa"
    """What picks the classifier under crossfit (pacchiardi2024 always uses accuracy, as the paper did)."""
    scale_dense: bool = True
    """Standardise dense features (readability, option features) under crossfit; pacchiardi2024 never does."""
    max_iter: int = 1000
    """Iteration limit of every fit under crossfit; pacchiardi2024 uses scikit-learn's default (100), as the paper
    did, and does not warn when a fit stops there."""
    top_k: int = 10
    """Most predictive features reported per class."""

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an invalid setting, before any fitting."""
        super().validate()
        self.candidates()  # raises for an unknown name or a C that is not a positive number
        if not 0 < self.validation_fraction < 1:
            raise ConfigError(f"validation_fraction must lie strictly between 0 and 1, not {self.validation_fraction}")
        if self.selection_metric not in ("kappa", "accuracy"):
            raise ConfigError(f"selection_metric must be 'kappa' or 'accuracy', not {self.selection_metric!r}")

    def candidates(self) -> tuple[ClassifierSpec, ...]:
        """The classifiers compared on validation data: the C grid under crossfit, the fixed entries otherwise."""
        return self.protocol.candidates(self)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "classifiers": list(self.classifiers), "c_grid": list(self.c_grid)}


def run_probe(
    feature_set: FeatureSet, inputs: ItemInputs | OptionTable, config: ProbeConfig | None = None
) -> ProbeOutcome:
    """Fit and score ``feature_set`` on ``inputs`` under ``config``'s protocol (crossfit by default).

    Args:
        feature_set: The features; its level must match the inputs (texts for ``item``, an option table for
            ``option``).
        inputs: One text and class per item (:class:`ItemInputs`) or one row per option (:class:`OptionTable`).
        config: Protocol and settings; ``ProbeConfig()`` if omitted.

    Raises:
        ConfigError: Invalid settings, a feature set of the wrong level, or too few items for the protocol.

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> from pfungst.audit.feature_sets import FeatureSet
        >>> words = FeatureSet("words", "", "item", "sklearn.feature_extraction.text:CountVectorizer")
        >>> inputs = ItemInputs.from_benchmark(make_synthetic("cue-word", 300), fields=("hypothesis",))
        >>> outcome = run_probe(words, inputs, ProbeConfig(n_bootstrap=200, n_permutations=200))
        >>> outcome.kappa.ci.low > 0.2, outcome.kappa.pvalue < 0.01
        (True, True)
    """
    return run_probes([(feature_set, inputs)], config)[0]


def run_probes(
    requests: Sequence[tuple[FeatureSet, ItemInputs | OptionTable]],
    config: ProbeConfig | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    groups: np.ndarray | None = None,
) -> list[ProbeOutcome]:
    """:func:`run_probe` for several (feature set, inputs) pairs, fanned out as one batch of (probe, fold) jobs.

    The jobs run through joblib (``config.n_jobs`` workers, or whatever backend an enclosing
    ``joblib.parallel_config`` names, such as Dask's); each is seeded by its (repeat, fold), so the outcomes are
    the same, bit for bit, whichever backend and however many workers run them.

    Args:
        requests: The probes, each a feature set and the inputs of its level.
        config: Protocol and settings; ``ProbeConfig()`` if omitted.
        progress: Called as ``progress(done, total)`` as fold jobs finish (in job order).
        groups: A group id per item, the same items in the same order in every request: items of one group fall
            in the same fold (crossfit), in the outer and the inner split; None: every item on its own. The
            pacchiardi2024 protocol keeps the paper's split and ignores them.

    Raises:
        ConfigError: as :func:`run_probe`, or ``groups`` of another length than the items, before any job starts.
    """
    config = config or ProbeConfig()
    config.validate()
    plans = [_plan(feature_set, make_task(inputs), config, groups) for feature_set, inputs in requests]
    _check_components(plans, config)
    jobs = [(index, job) for index, plan in enumerate(plans) for job in plan.jobs]
    folds: list[list[FoldResult]] = [[] for _ in plans]
    with _job_context(config):
        results = Parallel(n_jobs=config.n_jobs, return_as="generator", prefer=config.parallel)(
            delayed(_run_job)(plans[index], config, job) for index, job in jobs
        )
        for done, ((index, _), result) in enumerate(zip(jobs, results, strict=True), start=1):
            folds[index].append(result)
            if progress is not None:
                progress(done, len(jobs))
    with one_blas_thread(), checked_once():
        return [
            assemble_outcome(plan.task, plan.feature_set, plan.settings, config, fold_results)
            for plan, fold_results in zip(plans, folds, strict=True)
        ]


@contextmanager
def _job_context(config: ProbeConfig) -> Iterator[None]:
    """Around the fold jobs: with threads, one BLAS thread and per-thread warning counts for the whole run (both
    are process-wide, so a job could not set them for itself without changing another's)."""
    if config.parallel != "threads" or config.n_jobs == 1:
        yield
        return
    with one_blas_thread(), warnings_routed_by_thread():
        yield


def _plan(
    feature_set: FeatureSet, task: ItemTask | OptionTask, config: ProbeConfig, groups: np.ndarray | None = None
) -> ProbePlan:
    if feature_set.level != task.level:
        raise ConfigError(
            f"feature set '{feature_set.name}' is {feature_set.level}-level; these inputs are "
            f"{task.level}-level ({'OptionTable' if task.level == 'option' else 'ItemInputs'})"
        )
    return config.protocol.plan(feature_set, task, config, groups)


def _check_components(plans: Sequence[ProbePlan], config: ProbeConfig) -> None:
    """scikit-learn's parameter checks, once, on every encoder and classifier the jobs will fit (the jobs skip
    them: :func:`~pfungst.audit.checked_inputs.checked_once`)."""
    encoders = [make_encoder(plan.feature_set, plan.settings) for plan in plans]
    max_iter = config.protocol.max_iter(config)
    # A grid entry's classifier depends on the level and the number of classes only: each kind is checked once.
    kinds = dict.fromkeys((plan.task.level, plan.task.n_classes) for plan in plans)
    classifiers = [
        make_choice_model(spec, max_iter=max_iter)
        if level == "option"
        else make_classifier(spec, seed=config.seed, max_iter=max_iter)
        for level, n_classes in kinds
        for spec in config.candidates()
    ]
    check_parameters([*encoders, *classifiers])


def _run_job(plan: ProbePlan, config: ProbeConfig, job: FoldJob) -> FoldResult:
    """One fold of one probe, wherever it runs."""
    started = time.perf_counter()
    # The fits are small: multi-threaded BLAS only adds thread wake-ups (10x slower on 2 cores). Parallelism is
    # over (probe, fold) jobs instead.
    with one_blas_thread(), checked_once():
        result = config.protocol.fit_fold(plan, config, job)
    return replace(result, seconds=time.perf_counter() - started)
