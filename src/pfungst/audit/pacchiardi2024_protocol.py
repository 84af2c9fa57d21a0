"""Pacchiardi et al. 2024's protocol (:class:`Pacchiardi2024`), to reproduce their table.

The items in the order given (:func:`~pfungst.audit.paper_protocol.paper_rows` puts a benchmark's items in the paper's
order; an audit does so), their seed-42 ``DataFrame.sample`` shuffle and unstratified 60/20/20
train/validation/test split (:func:`~pfungst.audit.paper_protocol.paper_split`), n-grams with ``min_df=2`` and their
raw-count TF and presence (``paper_compatible=True``), ``SelectKBest(f_classif, k=min(20000, n_features))`` fitted
on train, the three logistic regressions fitted on train with scikit-learn's default ``max_iter=100`` (as their
code) and selected by validation accuracy, and the test-set chance-corrected accuracy that the paper calls "kappa".
Only test items are predicted; the top features are those of the chosen model as fitted on train. Their liblinear
(L1) fits were unseeded: here they take ``seed``, so a cell where L1 wins can be recomputed under other seeds.
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

__all__ = ["Pacchiardi2024"]

_NOTE = (
    "the verdict reads Cohen's kappa, not the paper's chance-corrected accuracy (shown as the paper's kappa), "
    "because always answering the majority label passes the latter"
)


class Pacchiardi2024(ProbeProtocol):
    """The paper's one unstratified 60/20/20 split (seed 42) of its rows in its order, its fixed classifiers and
    test-set scores; item level only.

    Example:
        >>> import numpy as np
        >>> from pfungst.audit.probe import ProbeConfig
        >>> [(len(train), len(test)) for train, test in Pacchiardi2024().splits(np.zeros(197), ProbeConfig())]
        [(118, 39)]
    """

    name = "pacchiardi2024"
    summary = "Pacchiardi et al. 2024's exact protocol: one 60/20/20 split, their classifiers and test-set scores"
    accuracy_interval = "wilson"
    warns_unconverged = False  # the paper's fits stop at scikit-learn's default limit, as theirs did

    def splits(
        self, y: np.ndarray, config: ProbeSettings, groups: np.ndarray | None = None
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The paper's one (train, test) split; its validation part is :func:`paper_split`'s middle one. The seed,
        folds and groups are not read: the paper's split is fixed."""
        from pfungst.audit.paper_protocol import paper_split

        train, _, test = paper_split(len(y))
        return [(train, test)]

    def plan(
        self, feature_set: FeatureSet, task: ItemTask | OptionTask, config: ProbeConfig, groups: np.ndarray | None
    ) -> ProbePlan:
        from pfungst.audit.encoder import EncoderSettings, accepted_overrides
        from pfungst.audit.probe_plan import ProbePlan
        from pfungst.errors import ConfigError

        if task.level == "option":
            raise ConfigError("the pacchiardi2024 protocol is item-level only; use protocol 'crossfit' for options")
        n = len(task.item_ids)
        if n < 5:
            raise ConfigError(
                f"{n} items are too few for a 60/20/20 split; the pacchiardi2024 protocol needs 5 or more"
            )
        overrides = accepted_overrides(feature_set, {"min_df": 2, "paper_compatible": True})
        settings = EncoderSettings(overrides, scale_dense=False, select_k=20000)
        ((train, test),) = self.splits(task.y, config)
        return ProbePlan(task, feature_set, settings, ((0, 0, train, test),))

    def fit_fold(self, plan: ProbePlan, config: ProbeConfig, job: FoldJob) -> FoldResult:
        from pfungst.audit.fold_fits import paper_split_fit

        return paper_split_fit(plan, config)

    def candidates(self, config: ProbeConfig) -> tuple[ClassifierSpec, ...]:
        from pfungst.audit.classifiers import candidate_grid

        return candidate_grid(config.classifiers, ())

    def max_iter(self, config: ProbeConfig) -> int:
        from pfungst.audit.paper_protocol import PAPER_MAX_ITER

        return PAPER_MAX_ITER

    def describe_scores(self, config: ProbeSettings) -> str:
        from pfungst.audit.paper_protocol import PAPER_SEED

        return f"pacchiardi2024: one unstratified 60/20/20 split (seed {PAPER_SEED}), test items only"

    def rows(self, benchmark: Benchmark) -> Benchmark:
        from pfungst.audit.paper_protocol import paper_rows

        return paper_rows(benchmark)  # the paper's rows in its order; the probes split them in that order

    def deduplicate(self, benchmark: Benchmark) -> Benchmark:
        return benchmark  # its rows drop repeated texts in the paper's order (:meth:`rows`)

    def folds(self, benchmark: Benchmark, config: AuditConfig) -> tuple[int, ItemGroups]:
        from pfungst.audit.item_groups import ItemGroups

        return config.n_splits, ItemGroups.ungrouped(
            len(benchmark), f"the {self.name} protocol keeps the paper's own split"
        )

    def default_sets(
        self, benchmark: Benchmark, n_repeats: int, size_limits: tuple[int, int, int], all_sets: bool
    ) -> SizeDefault:
        from pfungst.audit.feature_sets import PAPER_FEATURE_SETS
        from pfungst.audit.size_defaults import SizeDefault

        return SizeDefault(PAPER_FEATURE_SETS, n_repeats, "the paper protocol's 13 feature sets")

    def verdict_note(self, statistic: str) -> str:
        return _NOTE if statistic == "kappa" else ""
