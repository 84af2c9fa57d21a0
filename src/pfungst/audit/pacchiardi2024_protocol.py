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

import numpy as np

from pfungst.audit.classifiers import ClassifierSpec, candidate_grid, counting_convergence_warnings, top_features
from pfungst.audit.crossfit_protocol import validation_score
from pfungst.audit.encoder import EncoderSettings, accepted_overrides, make_encoder
from pfungst.audit.feature_sets import PAPER_FEATURE_SETS, FeatureSet
from pfungst.audit.item_groups import ItemGroups
from pfungst.audit.paper_protocol import PAPER_MAX_ITER, PAPER_SEED, paper_rows, paper_split
from pfungst.audit.probe_assembly import FoldResult
from pfungst.audit.probe_outcome import FoldChoice
from pfungst.audit.probe_plan import FoldJob, ProbePlan
from pfungst.audit.probe_protocol import ProbeProtocol
from pfungst.audit.probe_tasks import ItemTask, OptionTask
from pfungst.audit.size_defaults import SizeDefault
from pfungst.data.benchmark import Benchmark
from pfungst.errors import ConfigError

if TYPE_CHECKING:
    from pfungst.audit.audit_config import AuditConfig
    from pfungst.audit.probe import ProbeConfig
    from pfungst.audit.probe_settings import ProbeSettings

__all__ = ["Pacchiardi2024"]

_NOTE = (
    "the verdict reads Cohen's kappa, not the paper's chance-corrected accuracy (shown as the paper's kappa), "
    "because always answering the majority label passes the latter"
)


class Pacchiardi2024(ProbeProtocol):
    """The paper's one unstratified 60/20/20 split (seed 42) of its rows in its order, its fixed classifiers and
    test-set scores; item level only.

    Example:
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
        train, _, test = paper_split(len(y))
        return [(train, test)]

    def plan(
        self, feature_set: FeatureSet, task: ItemTask | OptionTask, config: ProbeConfig, groups: np.ndarray | None
    ) -> ProbePlan:
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
        return _paper_split_fit(plan, config)

    def candidates(self, config: ProbeConfig) -> tuple[ClassifierSpec, ...]:
        return candidate_grid(config.classifiers, ())

    def max_iter(self, config: ProbeConfig) -> int:
        return PAPER_MAX_ITER

    def describe_scores(self, config: ProbeSettings) -> str:
        return f"pacchiardi2024: one unstratified 60/20/20 split (seed {PAPER_SEED}), test items only"

    def rows(self, benchmark: Benchmark) -> Benchmark:
        return paper_rows(benchmark)  # the paper's rows in its order; the probes split them in that order

    def deduplicate(self, benchmark: Benchmark) -> Benchmark:
        return benchmark  # its rows drop repeated texts in the paper's order (:meth:`rows`)

    def folds(self, benchmark: Benchmark, config: AuditConfig) -> tuple[int, ItemGroups]:
        return config.n_splits, ItemGroups.ungrouped(
            len(benchmark), f"the {self.name} protocol keeps the paper's own split"
        )

    def default_sets(
        self, benchmark: Benchmark, n_repeats: int, size_limits: tuple[int, int], all_sets: bool
    ) -> SizeDefault:
        return SizeDefault(PAPER_FEATURE_SETS, n_repeats, "the paper protocol's 13 feature sets")

    def verdict_note(self, statistic: str) -> str:
        return _NOTE if statistic == "kappa" else ""


def _paper_split_fit(plan: ProbePlan, config: ProbeConfig) -> FoldResult:
    """Fit the classifiers on train, choose by validation accuracy, predict the test items (one split, no refit)."""
    task = plan.task
    train, val, test = paper_split(len(task.item_ids))
    warned = [0]
    with counting_convergence_warnings(lambda count: warned.__setitem__(0, count)):
        encoder = make_encoder(plan.feature_set, plan.settings)
        train_block = task.encode(encoder, train, fit=True)
        val_block, test_block = task.encode(encoder, val, fit=False), task.encode(encoder, test, fit=False)
        models, scores = {}, {}
        for name in config.classifiers:
            models[name] = task.fit(name, train_block, seed=config.seed, max_iter=PAPER_MAX_ITER)
            scores[name] = validation_score(val_block.y, task.predict(models[name], val_block), "accuracy")
        best = max(config.classifiers, key=lambda name: scores[name])
        predictions = task.predict(models[best], test_block)
        weights = top_features(models[best], encoder.get_feature_names_out(), task.class_names, config.top_k)
    choice = FoldChoice(0, 0, int(train.size), int(test.size), best, scores)
    return FoldResult(test, predictions, choice, warned[0], weights)
