"""The settings of an audit (:class:`AuditConfig`): protocol, folds, seed, resamples, level, feature sets, the
verdict's threshold and the checks behind it; checked before any data is read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pfungst.audit.cluster import check_cluster_address
from pfungst.audit.probe_settings import ProbeSettings
from pfungst.errors import ConfigError
from pfungst.settings import check_settings, comma_list, comma_text, setting

if TYPE_CHECKING:  # the settings load without scikit-learn (the command line builds its options from them)
    from pfungst.audit.probe import ProbeConfig

__all__ = [
    "LARGE_ITEMS",
    "MAX_REFITS",
    "MEDIUM_ITEMS",
    "REPEAT_ITEMS",
    "AuditConfig",
    "check_refits",
    "check_size_limits",
]

REPEAT_ITEMS = 10_000
"""Past this many items a shared-label benchmark's default cross-fits once instead of ``n_repeats`` times
(:mod:`~pfungst.audit.size_defaults`): the fold assignment then moves kappa far less than the interval's width."""
MEDIUM_ITEMS = 100_000
"""Past this many items a shared-label benchmark's default is :data:`~pfungst.audit.size_defaults.MEDIUM_DEFAULTS`
instead of the 13 sets: the 13 with one repeat take about 300 CPU s at 100,000 items
(``benchmarks/audit_scaling.py``) and grow with the items."""
LARGE_ITEMS = 200_000
"""Past this many items a shared-label benchmark's default is :data:`~pfungst.audit.size_defaults.LARGE_DEFAULTS`,
with one repeat."""
MAX_REFITS = 200
"""Most refits a check may take: each costs one whole probe of the best feature set."""


def check_refits(n_refits: int) -> None:
    """Raise :class:`ConfigError` unless ``n_refits`` is 0 (no check: only clear signals flagged) or 2 to the cap."""
    if n_refits != 0 and not 2 <= n_refits <= MAX_REFITS:
        raise ConfigError(
            "n_refits (--n-refits) must be 0 (no refit-aware check: only a clear signal below threshold is "
            f"flagged) or 2 to {MAX_REFITS} label permutations (20 is the default), not {n_refits}"
        )


def check_size_limits(limits: tuple[int, ...]) -> None:
    """Raise :class:`ConfigError` unless ``limits`` is (repeat, medium, large) items with
    ``0 < repeat <= medium <= large``."""
    if len(limits) != 3 or not 0 < limits[0] <= limits[1] <= limits[2]:
        raise ConfigError(
            f"size_limits must be three item counts (repeat, medium, large) with 0 < repeat <= medium <= large "
            f"({REPEAT_ITEMS}, {MEDIUM_ITEMS}, {LARGE_ITEMS} by default), not {tuple(limits)}"
        )


@dataclass(frozen=True)
class AuditConfig(ProbeSettings):
    """Settings of an audit: the :class:`~pfungst.audit.probe_settings.ProbeSettings` every probe runs under
    (protocol, folds, seed, resamples, level, grid comparison, parallelism), the feature sets, the verdict's
    threshold, heuristics and cues; the defaults are the recommended (correct) protocol."""

    feature_sets: tuple[str, ...] = field(
        default=(),
        metadata=setting(
            "Feature set to probe, repeatable: feature_sets (default: all that apply).",
            flags=("--feature-set",),
            repeat=True,
        ),
    )
    """Feature sets to probe; empty means the default for the benchmark's kind and size
    (:func:`~pfungst.audit.size_defaults.size_default`)."""
    all_feature_sets: bool = field(
        default=False,
        metadata=setting(
            f"Probe every default feature set at any size (the 13 paper sets for shared labels), with --n-repeats, "
            f"instead of one repeat past {REPEAT_ITEMS:,} items and fewer sets past {MEDIUM_ITEMS:,}.",
            flags=("--all-feature-sets",),
        ),
    )
    """With no sets named, probe the full default at any size (the 13 paper sets for shared labels, with
    ``n_repeats``) instead of one repeat past ``size_limits[0]`` items and the size-aware subset past
    ``size_limits[1]``."""
    size_limits: tuple[int, int, int] = (REPEAT_ITEMS, MEDIUM_ITEMS, LARGE_ITEMS)
    """Items past which a shared-label benchmark's default cross-fits once, then probes the medium subset, then word
    1-gram presence (:mod:`~pfungst.audit.size_defaults`)."""
    fields: tuple[str, ...] = field(
        default=(),
        metadata=setting(
            "Partial-input baseline: comma-separated named fields, e.g. hypothesis.", parse=comma_list, show=comma_text
        ),
    )
    """Partial-input baseline: build each item's text from these named fields only (``("hypothesis",)``)."""
    detect_label_set: bool = field(
        default=True,
        metadata=setting(
            "Audit per-item options that are the same strings in every item (Yes / No as each item's choices) as "
            "shared labels, gold mapped to its label; --no-detect-label-set audits them as per-item choices."
        ),
    )
    """Audit a per-item benchmark whose items all offer the same option strings (in any order) as shared labels,
    gold mapped to its label (:func:`~pfungst.data.label_sets.detect_label_set`); False: audit it as per-item."""
    n_refits: int = field(default=20, metadata=setting("Refitted label permutations behind 'signal below threshold'."))
    """Label permutations, each with the best feature set refitted, behind "signal below threshold" (see
    :mod:`~pfungst.audit.refit_check`): run only when the bootstrap interval excludes 0, but not clearly (see
    :attr:`Verdict.clear`), without the verdict being "predictable"; 0 skips them (only clear signals are then
    flagged); at most 200."""
    threshold: float = field(
        default=0.2,
        metadata=setting(
            "Verdict threshold: 'predictable' when the interval's lower bound is above it, 'no evidence' when its "
            "upper bound is below it, 'inconclusive' in between."
        ),
    )
    """The verdict is "predictable" when the simultaneous lower bound of the best statistic exceeds this, "no
    evidence" when the upper bound is below it, and "inconclusive" when the interval spans it."""
    lexical_task: bool = field(
        default=False,
        metadata=setting(
            "Declare that the task is answered from the words of its input by design (sentiment, emotion, intent, "
            "topic): a full-input finding on shared labels then reads as expected, not as a content shortcut "
            "(recorded in the result; BIG-bench keywords can declare it too).",
            flags=("--lexical-task",),
        ),
    )
    """The task is answered from its words by design (sentiment, topic): a full-input finding on shared labels is
    then expected, not a shortcut (:mod:`~pfungst.audit.task_declaration`; BIG-bench keywords can say so too)."""
    heuristics: bool = True
    """Run the zero-training heuristics (longest option, gold position, ...)."""
    cues: bool = True
    """Look for cue words (:func:`~pfungst.audit.cues.find_cues`)."""
    cue_top_k: int = 30
    """Cue words reported."""
    max_items: int = field(
        default=0,
        metadata=setting(
            "Audit a seeded sample of at most N items, stratified by gold (0: every item).", bounds=(0, None)
        ),
    )
    """Audit a seeded sample of at most this many items, stratified by gold (0: every item). The sample is
    recorded in the result's provenance; for a first look at a very large benchmark, or a whole suite."""
    group_siblings: bool = field(
        default=True,
        metadata=setting(
            "Keep sibling items (the same per-item option set, near-identical text, exact duplicates) in one "
            "cross-fitting fold; --no-group-siblings lets each item fall anywhere."
        ),
    )
    """Keep sibling items in one cross-fitting fold (probes, heuristics, controls, refits): items with the same
    per-item option set, near-identical text or exact duplicates (:mod:`~pfungst.audit.item_groups`); the groups are
    recorded in ``settings["item_groups"]``. False: every item on its own. pacchiardi2024 keeps the paper's split."""
    sibling_similarity: float = field(
        default=0.8,
        metadata=setting("Word 1- and 2-gram Jaccard similarity from which two items count as near-identical."),
    )
    """Word (1- and 2-gram) set Jaccard similarity from which two items' texts and options count as near-identical."""
    cluster: str = field(
        default="",
        metadata=setting(
            "Run the jobs on Dask: 'local' (a LocalCluster of --n-jobs worker processes, at least 2) or a scheduler "
            "address such as tcp://host:8786. Results are identical to a serial run. Needs pfungst[dask]."
        ),
    )
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
        from pfungst.audit.probe import ProbeConfig

        return ProbeConfig(**self.shared())

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an invalid setting, before any fitting."""
        from pfungst.audit.feature_sets import get_feature_set
        from pfungst.audit.item_groups import default_rules

        check_settings(self)
        self.probe_config().validate()
        for name in self.feature_sets:
            get_feature_set(name)
        check_cluster_address(self.cluster)
        if self.cluster and self.parallel == "threads":
            raise ConfigError(
                "parallel='threads' runs the jobs in this process; a cluster runs them on its workers: give one"
            )
        default_rules(self.sibling_similarity)  # raises for a similarity outside (0, 1]
        if not 0 <= self.threshold < 1:
            raise ConfigError(f"threshold must lie in [0, 1), not {self.threshold}")
