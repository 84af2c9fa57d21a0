"""The recommended protocol (:class:`CrossFit`): stratified repeated cross-fitting, Cohen's kappa, intervals.

Seeded ``RepeatedStratifiedKFold`` (option level: stratified by gold position), or, given ``groups`` (siblings:
:mod:`~pfungst.audit.item_groups`), a seeded stratified group K-fold that keeps each group in one fold
(:func:`~pfungst.audit.folds.crossfit_splits`; the inner validation split keeps groups whole too). In each training
fold the feature set is fitted on the training items only (and scaled: see :mod:`~pfungst.audit.probe_tasks`); the
classifier grid (each penalty with every ``C`` of ``c_grid``) is compared on an inner stratified validation split of
the training fold (the feature transformer, which never sees labels, is shared by the inner split; supervised steps
are not), the best is refitted on the whole training fold and predicts the held-out fold. Every item gets one
out-of-fold prediction per repeat, so every score has a distribution over repeats and a bootstrap interval over
items. The folds and repeats are the settings ``n_splits`` and ``n_repeats``
(:class:`~pfungst.audit.probe_settings.ProbeSettings`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.audit.probe_protocol import ProbeProtocol

if TYPE_CHECKING:  # the methods import what they compute with: a protocol loads without numpy and scikit-learn
    import numpy as np

    from pfungst.audit.audit_config import AuditConfig
    from pfungst.audit.classifiers import ClassifierSpec
    from pfungst.audit.feature_sets import FeatureSet
    from pfungst.audit.item_groups import ItemGroups
    from pfungst.audit.probe import ProbeConfig
    from pfungst.audit.probe_assembly import FoldResult
    from pfungst.audit.probe_plan import FoldJob, ProbePlan
    from pfungst.audit.probe_settings import ProbeSettings
    from pfungst.audit.probe_tasks import ItemTask, OptionTask
    from pfungst.audit.size_defaults import SizeDefault
    from pfungst.data.benchmark import Benchmark

__all__ = ["CrossFit"]


class CrossFit(ProbeProtocol):
    """Stratified repeated cross-fitting (``n_splits`` folds x ``n_repeats``), the classifier grid chosen inside
    each training fold, out-of-fold predictions for every item; Cohen's kappa with bootstrap intervals and
    permutation p-values.

    Example:
        >>> import numpy as np
        >>> from pfungst.audit.probe import ProbeConfig
        >>> config = ProbeConfig(n_splits=3, n_repeats=2)
        >>> [len(test) for _, test in CrossFit().splits(np.arange(12) % 2, config)]
        [4, 4, 4, 4, 4, 4]
    """

    name = "crossfit"
    summary = "stratified repeated cross-fitting, Cohen's kappa, intervals (the default)"
    accuracy_interval = "bootstrap"

    def splits(
        self, y: np.ndarray, config: ProbeSettings, groups: np.ndarray | None = None
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The (train, test) positions of every fold of every repeat, in job order, for classes ``y``."""
        from pfungst.audit.folds import crossfit_splits

        return list(crossfit_splits(y, groups, config.n_splits, config.n_repeats, config.seed))

    def plan(
        self, feature_set: FeatureSet, task: ItemTask | OptionTask, config: ProbeConfig, groups: np.ndarray | None
    ) -> ProbePlan:
        from pfungst.audit.encoder import EncoderSettings
        from pfungst.audit.folds import crossfit_splits, feasible_splits
        from pfungst.audit.probe_plan import ProbePlan
        from pfungst.errors import ConfigError

        settings = EncoderSettings({}, scale_dense=config.scale_dense, scale_sparse=config.scale_sparse)
        if groups is not None and len(groups) != len(task.y):
            raise ConfigError(f"groups name {len(groups)} items; the inputs of '{feature_set.name}' have {len(task.y)}")
        what = f"feature set '{feature_set.name}'"
        n_splits = feasible_splits(task.y, config.n_splits, what, warn_rare=False, groups=groups)
        splits = crossfit_splits(task.y, groups, n_splits, config.n_repeats, config.seed)
        jobs = tuple((*divmod(index, n_splits), train, test) for index, (train, test) in enumerate(splits))
        return ProbePlan(task, feature_set, settings, jobs, groups)

    def fit_fold(self, plan: ProbePlan, config: ProbeConfig, job: FoldJob) -> FoldResult:
        from pfungst.audit.fold_fits import crossfit_fold

        return crossfit_fold(plan, config, *job)

    def candidates(self, config: ProbeConfig) -> tuple[ClassifierSpec, ...]:
        from pfungst.audit.classifiers import candidate_grid

        return candidate_grid(config.classifiers, config.c_grid, config.solvers)

    def max_iter(self, config: ProbeConfig) -> int:
        return config.max_iter

    def describe_scores(self, config: ProbeSettings) -> str:
        return f"out-of-fold, {config.n_splits}-fold cross-fitting x {config.n_repeats} repeats (mean over repeats)"

    def rows(self, benchmark: Benchmark) -> Benchmark:
        return benchmark

    def deduplicate(self, benchmark: Benchmark) -> Benchmark:
        return benchmark.deduplicate()

    def folds(self, benchmark: Benchmark, config: AuditConfig) -> tuple[int, ItemGroups]:
        from pfungst.audit.folds import feasible_splits
        from pfungst.audit.item_groups import sibling_groups

        groups = sibling_groups(benchmark, config.group_siblings, config.sibling_similarity)
        golds, what = [item.gold for item in benchmark], f"benchmark '{benchmark.name}'"
        return feasible_splits(golds, config.n_splits, what, groups=groups.ids), groups

    def default_sets(
        self, benchmark: Benchmark, n_repeats: int, size_limits: tuple[int, int, int], all_sets: bool
    ) -> SizeDefault:
        from pfungst.audit.size_defaults import size_default

        return size_default(benchmark, n_repeats, size_limits=size_limits, all_sets=all_sets)
