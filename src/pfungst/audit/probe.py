"""Probe a benchmark with one feature set: can a simple classifier on surface features predict the answers?

Two protocols (:class:`ProbeConfig`):

- ``crossfit`` (default): seeded ``RepeatedStratifiedKFold`` (option level: stratified by gold position), or, given
  ``groups`` (siblings: :mod:`~pfungst.audit.item_groups`), a seeded stratified group K-fold that keeps each group
  in one fold (:func:`~pfungst.audit.folds.crossfit_splits`; the inner validation split keeps groups whole too). In each
  training fold the feature set is fitted on the training items only (and scaled: see
  :mod:`~pfungst.audit.probe_tasks`); the classifier grid (each penalty with every ``C`` of ``c_grid``) is compared
  on an inner stratified validation split of the training fold (the feature transformer, which never sees labels, is
  shared by the inner split; supervised steps are not), the best is refitted on the whole training fold and
  predicts the held-out fold. Every item gets one out-of-fold prediction per repeat, so every score has a
  distribution over repeats and a bootstrap interval over items.
- ``pacchiardi2024``: Pacchiardi et al. 2024's protocol, to reproduce their table: the items in the order given
  (:func:`~pfungst.audit.paper_protocol.paper_rows` puts a benchmark's items in the paper's order; ``audit`` does
  so), their seed-42 ``DataFrame.sample`` shuffle and unstratified 60/20/20 train/validation/test split
  (:func:`~pfungst.audit.paper_protocol.paper_split`), n-grams with ``min_df=2`` and their raw-count TF and
  presence (``paper_compatible=True``), ``SelectKBest(f_classif, k=min(20000, n_features))`` fitted on train, the
  three logistic regressions fitted on train with scikit-learn's default ``max_iter=100`` (as their code) and
  selected by validation accuracy, and the test-set chance-corrected accuracy that the paper calls "kappa". Only
  test items are predicted; the top features are those of the chosen model as fitted on train. Their liblinear
  (L1) fits were unseeded: here they take ``seed``, so a cell where L1 wins can be recomputed under other seeds.

The permutation p-values test whether the (fixed) out-of-fold predictions are associated with the labels; they do
not refit the classifiers on permuted labels. Cross-fitting already keeps every prediction out of sample, so
the null distribution of kappa under "no signal" is centred on 0 without refitting.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

import numpy as np
from joblib import Parallel, delayed

from pfungst.audit.blas_threads import one_blas_thread
from pfungst.audit.checked_inputs import check_parameters, checked_once
from pfungst.audit.classifiers import (
    CLASSIFIERS,
    ClassifierSpec,
    candidate_grid,
    counting_convergence_warnings,
    make_choice_model,
    make_classifier,
    top_features,
    warnings_routed_by_thread,
)
from pfungst.audit.encoder import EncoderSettings, accepted_overrides, make_encoder
from pfungst.audit.feature_sets import FeatureSet
from pfungst.audit.folds import crossfit_splits, feasible_splits
from pfungst.audit.grid_path import choose_classifier, refit_chosen
from pfungst.audit.inputs import ItemInputs, OptionTable
from pfungst.audit.paper_protocol import PAPER_MAX_ITER, PAPER_SEED, paper_split
from pfungst.audit.probe_assembly import FoldResult, assemble_outcome
from pfungst.audit.probe_outcome import FoldChoice, ProbeOutcome
from pfungst.audit.probe_settings import ProbeSettings
from pfungst.audit.probe_tasks import (
    ItemTask,
    OptionTask,
    inner_split,
    make_task,
    selection_items,
)
from pfungst.errors import ConfigError
from pfungst.stats import cohen_kappa

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
        if self.protocol != "crossfit":
            return candidate_grid(self.classifiers, ())
        return candidate_grid(self.classifiers, self.c_grid, self.solvers)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "classifiers": list(self.classifiers), "c_grid": list(self.c_grid)}


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


@dataclass(frozen=True)
class _Plan:
    """One probe's task, encoder settings and fold jobs ``(repeat, fold, train, test)``, checked before fitting."""

    task: ItemTask | OptionTask
    feature_set: FeatureSet
    settings: EncoderSettings
    jobs: tuple[tuple[int, int, np.ndarray, np.ndarray], ...]
    groups: np.ndarray | None = None
    """Group id per item (crossfit with siblings kept in one fold), or None."""


def _plan(
    feature_set: FeatureSet, task: ItemTask | OptionTask, config: ProbeConfig, groups: np.ndarray | None = None
) -> _Plan:
    if feature_set.level != task.level:
        raise ConfigError(
            f"feature set '{feature_set.name}' is {feature_set.level}-level; these inputs are "
            f"{task.level}-level ({'OptionTable' if task.level == 'option' else 'ItemInputs'})"
        )
    if config.protocol == "pacchiardi2024":
        if task.level == "option":
            raise ConfigError("the pacchiardi2024 protocol is item-level only; use protocol 'crossfit' for options")
        n = len(task.item_ids)
        if n < 5:
            raise ConfigError(
                f"{n} items are too few for a 60/20/20 split; the pacchiardi2024 protocol needs 5 or more"
            )
        overrides = accepted_overrides(feature_set, {"min_df": 2, "paper_compatible": True})
        settings = EncoderSettings(overrides, scale_dense=False, select_k=20000)
        train, _, test = paper_split(n)
        return _Plan(task, feature_set, settings, ((0, 0, train, test),))
    settings = EncoderSettings({}, scale_dense=config.scale_dense, scale_sparse=config.scale_sparse)
    if groups is not None and len(groups) != len(task.y):
        raise ConfigError(f"groups name {len(groups)} items; the inputs of '{feature_set.name}' have {len(task.y)}")
    what = f"feature set '{feature_set.name}'"
    n_splits = feasible_splits(task.y, config.n_splits, what, warn_rare=False, groups=groups)
    splits = crossfit_splits(task.y, groups, n_splits, config.n_repeats, config.seed)
    jobs = tuple((*divmod(index, n_splits), train, test) for index, (train, test) in enumerate(splits))
    return _Plan(task, feature_set, settings, jobs, groups)


def _check_components(plans: Sequence[_Plan], config: ProbeConfig) -> None:
    """scikit-learn's parameter checks, once, on every encoder and classifier the jobs will fit (the jobs skip
    them: :func:`~pfungst.audit.checked_inputs.checked_once`)."""
    encoders = [make_encoder(plan.feature_set, plan.settings) for plan in plans]
    max_iter = PAPER_MAX_ITER if config.protocol == "pacchiardi2024" else config.max_iter
    # A grid entry's classifier depends on the level and the number of classes only: each kind is checked once.
    kinds = dict.fromkeys((plan.task.level, plan.task.n_classes) for plan in plans)
    classifiers = [
        make_choice_model(spec, max_iter=max_iter)
        if level == "option"
        else make_classifier(spec, n_classes=n_classes, seed=config.seed, max_iter=max_iter)
        for level, n_classes in kinds
        for spec in config.candidates()
    ]
    check_parameters([*encoders, *classifiers])


def _run_job(plan: _Plan, config: ProbeConfig, job: tuple[int, int, np.ndarray, np.ndarray]) -> FoldResult:
    """One fold of one probe, wherever it runs."""
    started = time.perf_counter()
    # The fits are small: multi-threaded BLAS only adds thread wake-ups (10x slower on 2 cores). Parallelism is
    # over (probe, fold) jobs instead.
    with one_blas_thread(), checked_once():
        if config.protocol == "pacchiardi2024":
            result = _pacchiardi_split(plan.task, plan.feature_set, plan.settings, config)
        else:
            result = _crossfit_fold(plan, config, *job)
    return replace(result, seconds=time.perf_counter() - started)


def _crossfit_fold(
    plan: _Plan, config: ProbeConfig, repeat: int, fold: int, train: np.ndarray, test: np.ndarray
) -> FoldResult:
    """Choose a classifier inside the training fold, refit it on the whole fold, predict the held-out fold."""
    task, feature_set, settings = plan.task, plan.feature_set, plan.settings
    train = np.sort(train)  # the order an option-level block takes; the groups below follow it
    train_groups = None if plan.groups is None else plan.groups[train]
    warned = [0]
    with counting_convergence_warnings(lambda count: warned.__setitem__(0, count)):
        encoder = make_encoder(feature_set, settings)
        train_block = task.encode(encoder, train, fit=True)
        test_block = task.encode(encoder, test, fit=False)
        inner_seed = int(np.random.SeedSequence([config.seed, repeat, fold]).generate_state(1)[0])
        selection = selection_items(train_block.y, config.selection_max_items, inner_seed)
        select_block = train_block if selection is None else train_block.take(selection)
        select_groups = train_groups if selection is None or train_groups is None else train_groups[selection]
        inner_train, inner_val = inner_split(select_block.y, config.validation_fraction, inner_seed, select_groups)
        fit_block, val_block = select_block.take(inner_train), select_block.take(inner_val)
        chosen = choose_classifier(
            task,
            config.candidates(),
            (fit_block, val_block),
            lambda y, predicted: _score(y, predicted, config.selection_metric),
            seed=config.seed,
            max_iter=config.max_iter,
            warm_start=config.warm_start,
            patience=config.grid_patience,
        )
        model = refit_chosen(task, chosen, train_block, seed=config.seed, max_iter=config.max_iter)
        predictions, gold_probability = task.predict(model, test_block), task.gold_probability(model, test_block)
    spec = chosen.best
    choice = FoldChoice(repeat, fold, int(train.size), int(test.size), spec.name, chosen.scores, spec.penalty, spec.C)
    return FoldResult(np.sort(test), predictions, choice, warned[0], gold_probability=gold_probability)


def _score(y: np.ndarray, predictions: np.ndarray, metric: str) -> float:
    if metric == "accuracy":
        return float(np.mean(y == predictions))
    return cohen_kappa(y, predictions)


def _pacchiardi_split(
    task: ItemTask | OptionTask, feature_set: FeatureSet, settings: EncoderSettings, config: ProbeConfig
) -> FoldResult:
    """Fit the grid on train, choose by validation accuracy, predict the test items (one split, no refit)."""
    train, val, test = paper_split(len(task.item_ids))
    warned = [0]
    with counting_convergence_warnings(lambda count: warned.__setitem__(0, count)):
        encoder = make_encoder(feature_set, settings)
        train_block = task.encode(encoder, train, fit=True)
        val_block, test_block = task.encode(encoder, val, fit=False), task.encode(encoder, test, fit=False)
        models, scores = {}, {}
        for name in config.classifiers:
            models[name] = task.fit(name, train_block, seed=config.seed, max_iter=PAPER_MAX_ITER)
            scores[name] = _score(val_block.y, task.predict(models[name], val_block), "accuracy")
        best = max(config.classifiers, key=lambda name: scores[name])
        predictions = task.predict(models[best], test_block)
        weights = top_features(models[best], encoder.get_feature_names_out(), task.class_names, config.top_k)
    choice = FoldChoice(0, 0, int(train.size), int(test.size), best, scores)
    return FoldResult(test, predictions, choice, warned[0], weights)
