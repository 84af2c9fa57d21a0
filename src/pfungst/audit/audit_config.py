"""The settings of an audit (:class:`AuditConfig`): protocol, folds, seed, resamples, level, feature sets, the
verdict's threshold and the checks behind it; checked before any data is read."""

from __future__ import annotations

from dataclasses import dataclass

from pfungst.audit.cluster import check_cluster_address
from pfungst.audit.feature_sets import get_feature_set
from pfungst.audit.item_groups import default_rules
from pfungst.audit.probe import ProbeConfig
from pfungst.audit.probe_settings import ProbeSettings
from pfungst.audit.refit_check import check_refits
from pfungst.audit.size_defaults import LARGE_ITEMS, MEDIUM_ITEMS, check_size_limits
from pfungst.errors import ConfigError

__all__ = ["AuditConfig"]


@dataclass(frozen=True)
class AuditConfig(ProbeSettings):
    """Settings of an audit: the :class:`~pfungst.audit.probe_settings.ProbeSettings` every probe runs under
    (protocol, folds, seed, resamples, level, grid comparison, parallelism), the feature sets, the verdict's
    threshold, heuristics and cues; the defaults are the recommended (correct) protocol."""

    feature_sets: tuple[str, ...] = ()
    """Feature sets to probe; empty means the default for the benchmark's kind and size
    (:func:`~pfungst.audit.size_defaults.size_default`)."""
    all_feature_sets: bool = False
    """With no sets named, probe the full default at any size (the 13 paper sets for shared labels, with
    ``n_repeats``) instead of the size-aware subset past ``size_limits[0]`` items."""
    size_limits: tuple[int, int] = (MEDIUM_ITEMS, LARGE_ITEMS)
    """Items past which a shared-label benchmark's default is the medium subset, then word 1-gram presence with one
    repeat (:mod:`~pfungst.audit.size_defaults`)."""
    fields: tuple[str, ...] = ()
    """Partial-input baseline: build each item's text from these named fields only (``("hypothesis",)``)."""
    detect_label_set: bool = True
    """Audit a per-item benchmark whose items all offer the same option strings (in any order) as shared labels,
    gold mapped to its label (:func:`~pfungst.data.label_sets.detect_label_set`); False: audit it as per-item."""
    n_refits: int = 20
    """Label permutations, each with the best feature set refitted, behind "signal below threshold" (see
    :mod:`~pfungst.audit.refit_check`): run only when the bootstrap interval excludes 0, but not clearly (see
    :attr:`Verdict.clear`), without the verdict being "predictable"; 0 skips them (only clear signals are then
    flagged); at most 200."""
    threshold: float = 0.2
    """The verdict is "predictable" when the simultaneous lower bound of the best statistic exceeds this, "no
    evidence" when the upper bound is below it, and "inconclusive" when the interval spans it."""
    lexical_task: bool = False
    """The task is answered from its words by design (sentiment, topic): a full-input finding on shared labels is
    then expected, not a shortcut (:mod:`~pfungst.audit.task_declaration`; BIG-bench keywords can say so too)."""
    heuristics: bool = True
    """Run the zero-training heuristics (longest option, gold position, ...)."""
    cues: bool = True
    """Look for cue words (:func:`~pfungst.audit.cues.find_cues`)."""
    cue_top_k: int = 30
    """Cue words reported."""
    max_items: int = 0
    """Audit a seeded sample of at most this many items, stratified by gold (0: every item). The sample is
    recorded in the result's provenance; for a first look at a very large benchmark, or a whole suite."""
    group_siblings: bool = True
    """Keep sibling items in one cross-fitting fold (probes, heuristics, controls, refits): items with the same
    per-item option set, near-identical text or exact duplicates (:mod:`~pfungst.audit.item_groups`); the groups are
    recorded in ``settings["item_groups"]``. False: every item on its own. pacchiardi2024 keeps the paper's split."""
    sibling_similarity: float = 0.8
    """Word (1- and 2-gram) set Jaccard similarity from which two items' texts and options count as near-identical."""
    cluster: str = ""
    """Run the (feature set, fold) jobs on a Dask cluster: ``local`` (a LocalCluster of ``n_jobs`` worker processes,
    2 when ``n_jobs`` is 1) or a scheduler address (``tcp://host:8786``); empty: joblib on this machine. The
    results are the same, bit for bit, as a serial run with the same seed."""

    def __post_init__(self) -> None:
        super().__post_init__()
        check_refits(self.n_refits)
        check_size_limits(self.size_limits)

    def probe_config(self) -> ProbeConfig:
        """The settings of each probe: this audit's :class:`~pfungst.audit.probe_settings.ProbeSettings`, the
        classifier grid at its defaults."""
        return ProbeConfig(**self.shared())

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an invalid setting, before any fitting."""
        self.probe_config().validate()
        for name in self.feature_sets:
            get_feature_set(name)
        check_cluster_address(self.cluster)
        if self.cluster and self.parallel == "threads":
            raise ConfigError(
                "parallel='threads' runs the jobs in this process; a cluster runs them on its workers: give one"
            )
        if self.max_items < 0:
            raise ConfigError(f"max_items must be 0 (every item) or a positive number of items, not {self.max_items}")
        default_rules(self.sibling_similarity)  # raises for a similarity outside (0, 1]
        if not 0 <= self.threshold < 1:
            raise ConfigError(f"threshold must lie in [0, 1), not {self.threshold}")
