"""``audit``: probe a benchmark with every feature set, add heuristics and cues, and give a verdict with evidence."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pfungst.audit.audit_config import AuditConfig
from pfungst.audit.cluster import cluster_backend
from pfungst.audit.controls import audit_controls
from pfungst.audit.cue_naming import name_cue
from pfungst.audit.cues import CueConfig, find_cues
from pfungst.audit.feature_sets import get_feature_set
from pfungst.audit.headline_rules import headline_of
from pfungst.audit.heuristics import HeuristicConfig, HeuristicsReport, run_heuristics
from pfungst.audit.inputs import ItemInputs, OptionTable
from pfungst.audit.item_flag_rules import item_flags
from pfungst.audit.item_groups import ItemGroups
from pfungst.audit.label_set import audited_layout
from pfungst.audit.position_content import PositionContentSplit, position_artifact
from pfungst.audit.probe import run_probes
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.audit.refit_check import refit_check
from pfungst.audit.result import AuditResult, Verdict
from pfungst.audit.size_defaults import SizeDefault
from pfungst.audit.task_declaration import declaration
from pfungst.audit.verdict_rule import verdict_of
from pfungst.data.benchmark import Benchmark
from pfungst.data.item_checks import check_items
from pfungst.errors import override_settings
from pfungst.provenance import Provenance

__all__ = ["AuditConfig", "audit"]

Progress = Callable[[str, int, int], None]
"""Called as ``progress(step, done, total)`` before each probe and once at the end."""


def audit(
    benchmark: Benchmark, config: AuditConfig | None = None, *, progress: Progress | None = None, **settings: object
) -> AuditResult:
    """Can ``benchmark`` be answered from surface features alone? Probe, explain, and give a verdict.

    Args:
        benchmark: The benchmark to audit. Per-item options that are one fixed label set in every item (Yes / No
            written as each item's choices) are audited as shared labels, with a warning (``detect_label_set``).
        config: Settings; keyword ``settings`` override single fields (``audit(b, seed=3, threshold=0.1)``).
        progress: Optional callback ``progress(step, done, total)`` for progress bars.

    Raises:
        ConfigError: an invalid setting, an unknown feature set, a field the items lack, or an option-level
            feature set named for items that all offer one fixed label set (audited as shared labels).

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> result = audit(make_synthetic("cue-word", 300), fields=("hypothesis",), feature_sets=("1-grams_presence",),
        ...                n_bootstrap=200, n_permutations=200, cues=False, heuristics=False)
        >>> result.verdict.label
        'predictable'
    """
    config = override_settings(config or AuditConfig(), settings, "audit")
    config.validate()
    benchmark, label_set = audited_layout(benchmark, config.detect_label_set, config.feature_sets)
    if config.max_items:
        benchmark = benchmark.sample(config.max_items, config.seed)
    benchmark = config.protocol.rows(benchmark)
    n_splits, groups = config.protocol.folds(benchmark, config)
    config = replace(config, n_splits=n_splits)
    chosen = _chosen_sets(benchmark, config)
    config, names = replace(config, n_repeats=chosen.n_repeats), chosen.feature_sets
    (report := progress or (lambda step, done, total: None))(f"{len(names)} feature sets", 0, 1)
    with cluster_backend(config.cluster, config.n_jobs):
        probes = run_probes(
            [(get_feature_set(name), _inputs(benchmark, name, config)) for name in names],
            config.probe_config(),
            progress=lambda done, total: report(f"{len(names)} feature sets: fold {done} of {total}", done, total + 1),
            groups=groups.ids,
        )
    report("heuristics and cues", 1, 1)
    heuristics = _heuristics(benchmark, config, groups) if config.heuristics else None
    cues = find_cues(benchmark, config=CueConfig(fields=config.fields, top_k=config.cue_top_k)) if config.cues else None
    verdict = _refit_checked(verdict_of(probes, config, benchmark.option_kind), benchmark, config, groups)
    parts = _split(benchmark, probes, verdict, heuristics, config, groups)
    verdict = _position_evidence(verdict, parts)
    controls = audit_controls(
        benchmark, n_splits=config.n_splits, seed=config.seed, level=config.level, groups=groups.ids
    )
    cue = name_cue(heuristics, cues, len(benchmark), fields=config.fields, level=config.level)
    return AuditResult(
        benchmark=benchmark.to_dict(),
        probes=tuple(probes),
        verdict=verdict,
        headline=headline_of(verdict, parts, controls, cue, **_task_facts(benchmark, config)),
        position_content=parts,
        controls=controls,
        item_findings=check_items(benchmark, near_duplicate_threshold=config.sibling_similarity, seed=config.seed),
        item_flags=item_flags(benchmark, probes, heuristics, config),
        heuristics=heuristics,
        cues=cues,
        provenance=Provenance.current(
            {**config.to_dict(), **_chosen(chosen, names), "label_set_detection": label_set.to_dict()}
            | {"item_groups": groups.to_dict()},
            config.seed,
            data=(benchmark.provenance,),
        ),
    )


def _chosen(chosen: SizeDefault, names: Sequence[str]) -> dict[str, Any]:
    """The feature sets run, why, and each one's spec, as the settings record them."""
    specs = [get_feature_set(name).spec() for name in names]
    return {"feature_sets": list(names), "feature_sets_reason": chosen.reason, "feature_set_specs": specs}


def _task_facts(benchmark: Benchmark, config: AuditConfig) -> dict[str, Any]:
    """What the headline needs of the task: where it was declared answered from its words, its shared labels."""
    labels = benchmark.option_kind.labels_of(benchmark.labels)
    return {"declared": declaration(benchmark, config.lexical_task), "labels": labels}


def _heuristics(benchmark: Benchmark, config: AuditConfig, groups: ItemGroups) -> HeuristicsReport:
    """The zero-training baselines with the audit's seed, resamples and level, cross-fitted over the groups."""
    settings = HeuristicConfig(
        seed=config.seed, n_resamples=config.n_bootstrap, n_permutations=config.n_permutations, level=config.level
    )
    return run_heuristics(benchmark, config=settings, groups=groups.ids)


def _split(
    benchmark: Benchmark,
    probes: list[ProbeOutcome],
    verdict: Verdict,
    heuristics: HeuristicsReport | None,
    config: AuditConfig,
    groups: ItemGroups,
) -> PositionContentSplit | None:
    """The verdict apart into content (position-blind probes, their own Bonferroni) and the gold-position finding.

    Shared labels have no positions: the verdict is the content. None for a per-item audit with no blind probe.
    """
    if not benchmark.option_kind.has_positions:
        return PositionContentSplit(benchmark.name, verdict, None, tuple(p.feature_set for p in probes))
    blind = [p for p in probes if get_feature_set(p.feature_set).position_blind]
    if not blind:
        return None
    content = _refit_checked(verdict_of(blind, config, benchmark.option_kind), benchmark, config, groups)
    position = position_artifact(heuristics, config.threshold)
    return PositionContentSplit(benchmark.name, content, position, tuple(p.feature_set for p in blind))


def _position_evidence(verdict: Verdict, parts: PositionContentSplit | None) -> Verdict:
    """``verdict`` marked as needing the gold position when only position-aware probes reach it and the gold slot
    is skewed: the position-blind content verdict is not "predictable" but the gold-position finding is flagged."""
    if parts is None or parts.position is None or verdict.label != "predictable":
        return verdict
    if parts.content.label == "predictable" or not parts.position.flagged:
        return verdict
    return replace(verdict, evidence=replace(verdict.evidence, input="position", fields=()))


def _refit_checked(verdict: Verdict, benchmark: Benchmark, config: AuditConfig, groups: ItemGroups) -> Verdict:
    """``verdict`` with its refit-aware interval where the bootstrap interval excludes 0 without the label being
    "predictable" and without being :attr:`~Verdict.clear` (the one case where the refits decide whether the
    verdict says "signal below threshold")."""
    ci = verdict.estimate.ci
    if not config.n_refits or verdict.label == "predictable" or ci is None or not ci.low > 0 or verdict.clear:
        return verdict
    name = verdict.feature_set
    check = refit_check(
        benchmark,
        lambda copy: (get_feature_set(name), _inputs(copy, name, config)),
        statistic=verdict.statistic,
        value=verdict.estimate.value,
        n_feature_sets=verdict.n_feature_sets,
        config=config.probe_config(),
        n_refits=config.n_refits,
        groups=groups.ids,
    )
    return replace(verdict, refit=check)


def _chosen_sets(benchmark: Benchmark, config: AuditConfig) -> SizeDefault:
    """The sets named in ``config``, else the default for the benchmark's kind and size (with a warning when the
    size cut them)."""
    if config.feature_sets:
        if config.all_feature_sets:
            warnings.warn(
                "all_feature_sets has no effect when feature sets are named: the named sets run", stacklevel=3
            )
        return SizeDefault(config.feature_sets, config.n_repeats, "named in the settings")
    chosen = config.protocol.default_sets(benchmark, config.n_repeats, config.size_limits, config.all_feature_sets)
    if chosen.reduced:
        warnings.warn(f"benchmark '{benchmark.name}': probing {chosen.reason}", stacklevel=3)
    return chosen


def _inputs(benchmark: Benchmark, name: str, config: AuditConfig) -> ItemInputs | OptionTable:
    """What feature set ``name`` reads, by its declarations: item texts, or the option table (with the question only
    when the set declares it sees the question)."""
    feature_set = get_feature_set(name)
    if feature_set.level == "option":
        return OptionTable.from_benchmark(benchmark, config.fields, with_question=feature_set.sees_question)
    return ItemInputs.from_benchmark(benchmark, config.fields)
