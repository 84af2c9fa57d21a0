"""Join an audit's per-item shortcut predictions with per-item model outcomes (Pacchiardi et al. 2024, experiment 2).

Do models do better on the items a surface-feature probe solves? Per (model, dataset): accuracy on the items the
probe predicts right out of fold (*solvable*, :mod:`pfungst.reliance.shortcut`) and on the rest, with Wilson
intervals and chance-corrected versions, and a one-sided test that the first is higher. Per family of models: a
one-sided paired t-test over its (model, dataset) pairs, Benjamini-Hochberg across families, and the test's power
(:mod:`pfungst.reliance.families`). Both are repeated within gold classes (:mod:`pfungst.reliance.stratified`):
the solvable items often differ from the rest in their labels, and a model's label preference would otherwise pass
for reliance on the shortcut.

The per-model test is Fisher's exact test (one-sided, ``greater``) of the 2x2 table solvable/rest x right/wrong.
Conditional on the table's margins it *is* the exact permutation test of "which items are solvable is unrelated to
which the model gets right" (shuffling the solvable labels gives the hypergeometric distribution), so it needs no
seed and has no Monte Carlo error; ``test="permutation"`` runs the Monte Carlo version of the same test (difference
of accuracies, ``n_permutations`` shuffles) for comparison.

Pacchiardi et al. report the uncorrected per-family p-values: they are each :class:`FamilyTest`'s ``test.pvalue``,
beside the adjusted ``qvalue``. Items are joined by id; ids on one side only are counted in each
:class:`ModelReliance`, and outcomes or audits without a partner are listed in ``RelianceResult.unjoined``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pfungst.audit.result import AuditResult
from pfungst.errors import ConfigError, DataError, override_settings
from pfungst.provenance import Provenance, ResultReference
from pfungst.reliance.families import family_of, family_tests
from pfungst.reliance.outcomes import ModelOutcomes
from pfungst.reliance.reliance_config import ANY_SHORTCUT, RelianceConfig
from pfungst.reliance.result import ModelReliance, RelianceResult, ShortcutBreakdown
from pfungst.reliance.shortcut import AuditInput, ShortcutItems, read_audit, shortcut_items
from pfungst.reliance.shortcut_score import ShortcutTable, shortcut_table
from pfungst.reliance.stratified import within_label_difference
from pfungst.stats import (
    ConfidenceInterval,
    Estimate,
    chance_corrected_accuracy,
    fisher_exact_pvalue,
    newcombe_interval,
    permutation_pvalue,
    wilson_interval,
)

__all__ = ["RelianceConfig", "reliance"]


def reliance(
    audits: Sequence[AuditInput],
    outcomes: Sequence[ModelOutcomes],
    config: RelianceConfig | None = None,
    choices_only: Sequence[ModelOutcomes] = (),
    **settings: Any,
) -> RelianceResult:
    """Do models do better on the items a shortcut solves? Per model and dataset, then per family.

    Args:
        audits: One audit per dataset: :class:`~pfungst.audit.AuditResult` objects, dicts read from
            ``pfungst audit --json`` files, or those files' paths. Each dataset is named by its benchmark.
        outcomes: Per-item model outcomes (:func:`~pfungst.reliance.read_outcomes`); each joins the audit whose
            dataset name it carries (an outcome without a dataset name joins the only audit, if there is one).
        config: Settings; keyword ``settings`` override single fields (``reliance(a, o, alpha=0.1)``).
        choices_only: With ``split="any-shortcut"``, models' outcomes without the question (the ``choices-only``
            stress perturbation), each a column of the shortcut table of its dataset.

    Raises:
        ConfigError: an invalid or unknown setting, two audits of one dataset, two outcomes of one (model, dataset), an
            outcome without a dataset name beside several audits, a model missing from ``families``.
        DataError: no outcome joins any audit.

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> from pfungst.reliance.outcomes import ModelOutcomes
        >>> import pfungst
        >>> benchmark = make_synthetic("cue-word", 200)
        >>> audited = pfungst.audit.audit(benchmark, feature_sets=("1-grams_presence",), n_bootstrap=50,
        ...                         n_permutations=50, cues=False, heuristics=False)
        >>> solvable = audited.best.share_correct > 0.5
        >>> hans = ModelOutcomes("hans-1", benchmark.name, dict(zip(audited.best.item_ids, solvable)), "", "csv")
        >>> result = reliance([audited], [hans])
        >>> result.models[0].difference.value, result.models[0].difference.pvalue < 1e-6
        (1.0, True)
    """
    config = override_settings(config or RelianceConfig(), settings, "reliance")
    config.validate()
    if "n_permutations" in settings and config.test == "fisher":
        warnings.warn("n_permutations has no effect with test='fisher'", stacklevel=2)
    if choices_only and config.split != ANY_SHORTCUT:
        raise ConfigError(f"choices-only outcomes join the shortcut table only: pass split='{ANY_SHORTCUT}'")
    tables: list[ShortcutTable] = []
    if config.split == ANY_SHORTCUT:
        tables = [shortcut_table(audit, choices_only, config.feature_set, config.min_share) for audit in audits]
        splits = [table.split(ANY_SHORTCUT) for table in tables]
    else:
        splits = [shortcut_items(audit, config.feature_set, config.min_share) for audit in audits]
    pairs, unjoined = _join(splits, outcomes)
    models = _models(pairs, config)
    return RelianceResult(
        models=models,
        families=family_tests(models, config.alpha, config.level, config.power),
        shortcut_tables=tuple(table.summary() for table in tables),
        per_shortcut=tuple(_per_shortcut(tables, outcomes, config)),
        shortcuts=tuple(splits),
        unjoined=tuple(unjoined),
        warnings=tuple(_warnings(splits, models, config)),
        provenance=Provenance.current(
            config.to_dict(), config.seed, derived_from=_inputs(audits, outcomes, choices_only)
        ),
    )


def _inputs(
    audits: Sequence[AuditInput], outcomes: Sequence[ModelOutcomes], choices_only: Sequence[ModelOutcomes]
) -> tuple[ResultReference, ...]:
    """What the analysis joined: each audit (a file by its path and hash, an object by its content hash), then each
    outcome file once (by the reader that read it)."""
    references = [
        ResultReference.of_file(audit, AuditResult.KIND, AuditResult.SCHEMA_VERSION)
        if isinstance(audit, str | Path)
        else ResultReference.of(read_audit(audit))
        for audit in audits
    ]
    files = dict.fromkeys((o.source, o.format) for o in (*outcomes, *choices_only))
    return (*references, *(ResultReference.of_file(source, kind) for source, kind in files))


def _models(pairs: Sequence[tuple[ModelOutcomes, ShortcutItems]], config: RelianceConfig) -> tuple[ModelReliance, ...]:
    return tuple(
        _model_reliance(o, split, family_of(o.model, config.families), config, index)
        for index, (o, split) in enumerate(pairs)
    )


def _per_shortcut(
    tables: Sequence[ShortcutTable], outcomes: Sequence[ModelOutcomes], config: RelianceConfig
) -> list[ShortcutBreakdown]:
    """The same analysis with each shortcut's own split, over the datasets whose table has that shortcut."""
    names = dict.fromkeys(name for table in tables for name in table.shortcuts)
    found = []
    for name in names:
        splits = [table.split(name) for table in tables if name in table.shortcuts]
        datasets = {split.dataset for split in splits}
        joined = [o for o in outcomes if o.dataset in datasets or (not o.dataset and len(tables) == 1)]
        if not joined:
            continue
        models = _models(_join(splits, joined)[0], config)
        families = family_tests(models, config.alpha, config.level, config.power)
        found.append(ShortcutBreakdown(shortcut=name, models=models, families=families))
    return found


def _join(
    splits: Sequence[ShortcutItems], outcomes: Sequence[ModelOutcomes]
) -> tuple[list[tuple[ModelOutcomes, ShortcutItems]], list[str]]:
    """Pair each outcome with the audit of its dataset; say what found no partner."""
    by_dataset: dict[str, ShortcutItems] = {}
    for split in splits:
        if split.dataset in by_dataset:
            raise ConfigError(f"two audits of dataset {split.dataset!r}: pass one audit per dataset")
        by_dataset[split.dataset] = split
    pairs, unjoined, seen = [], [], set()
    for entry in outcomes:
        dataset = entry.dataset
        if not dataset:
            if len(splits) != 1:
                raise ConfigError(
                    f"outcomes of {entry.model!r} from {entry.source} name no dataset and "
                    f"{len(splits)} audits were given. Read them with dataset=<audited benchmark name>."
                )
            dataset = splits[0].dataset
        if (entry.model, dataset) in seen:
            raise ConfigError(
                f"two sets of outcomes for model {entry.model!r} on {dataset!r} (the second from "
                f"{entry.source}). Pass one per (model, dataset), or rename one with model=."
            )
        seen.add((entry.model, dataset))
        if dataset in by_dataset:
            pairs.append((entry, by_dataset[dataset]))
        else:
            unjoined.append(
                f"outcomes of {entry.model!r} on {dataset!r} ({entry.source}): no audit of that dataset "
                f"(audited: {', '.join(sorted(by_dataset)) or 'none'})"
            )
    joined = {split.dataset for _, split in pairs}
    unjoined += [f"audit of {name!r}: no model outcomes name that dataset" for name in by_dataset if name not in joined]
    if not pairs:
        raise DataError(
            "no model outcomes join any audit: "
            + "; ".join(unjoined)
            + ". Read the outcomes with dataset=<audited benchmark name>."
        )
    return pairs, unjoined


def _model_reliance(
    outcomes: ModelOutcomes, split: ShortcutItems, family: str, config: RelianceConfig, index: int
) -> ModelReliance:
    answered, audited = outcomes.correct, set(split.item_ids)
    shared = [item for item in answered if item in split.solvable]
    solvable = np.array([split.solvable[item] for item in shared], dtype=bool)
    right = np.array([answered[item] for item in shared], dtype=bool)
    accuracy_solvable = _accuracy(right[solvable], "items the shortcut solves", split.chance, config.level)
    accuracy_rest = _accuracy(right[~solvable], "items it does not solve", split.chance, config.level)
    return ModelReliance(
        model=outcomes.model,
        dataset=split.dataset,
        family=family,
        accuracy_solvable=accuracy_solvable,
        accuracy_rest=accuracy_rest,
        chance_corrected_solvable=_chance_corrected(accuracy_solvable, split.chance),
        chance_corrected_rest=_chance_corrected(accuracy_rest, split.chance),
        difference=_difference(solvable, right, accuracy_solvable, accuracy_rest, config, index),
        difference_within_label=within_label_difference(solvable, right, [split.gold[i] for i in shared], config.level),
        n_solvable=int(solvable.sum()),
        n_rest=int((~solvable).sum()),
        n_unmatched_outcomes=sum(item not in audited for item in answered),
        n_unmatched_audit=sum(item not in answered for item in split.item_ids),
        n_not_predicted=sum(item in audited and item not in split.solvable for item in answered),
    )


def _accuracy(right: np.ndarray, what: str, chance: float, level: float) -> Estimate:
    n, hits = int(right.size), int(right.sum())
    return Estimate(
        value=hits / n if n else math.nan,
        method=f"accuracy on {what}; wilson interval",
        n=n,
        ci=wilson_interval(hits, n, level),
        baseline=chance,
    )


def _chance_corrected(accuracy: Estimate, chance: float) -> Estimate:
    k = 1.0 / chance
    ci = accuracy.ci or ConfidenceInterval(math.nan, math.nan)
    mapped = ConfidenceInterval(chance_corrected_accuracy(ci.low, k), chance_corrected_accuracy(ci.high, k), ci.level)
    return Estimate(
        value=chance_corrected_accuracy(accuracy.value, k),
        method=f"chance-corrected {accuracy.method.split(';')[0]}: (acc - c) / (1 - c), c = {chance:.4g}; "
        "interval mapped from the Wilson interval",
        n=accuracy.n,
        ci=mapped,
        baseline=0.0,
    )


def _difference(
    solvable: np.ndarray, right: np.ndarray, first: Estimate, second: Estimate, config: RelianceConfig, index: int
) -> Estimate:
    """Accuracy on solvable minus on the rest: Newcombe's hybrid score interval and a one-sided p-value."""
    value = first.value - second.value
    method = "difference of accuracies (solvable - rest); Newcombe hybrid score interval; "
    if not first.n or not second.n or first.ci is None or second.ci is None:
        return Estimate(
            value=value, method=method + "no test (a side has no items)", n=int(solvable.size), baseline=0.0
        )
    table = [
        [int(right[solvable].sum()), int((~right[solvable]).sum())],
        [int(right[~solvable].sum()), int((~right[~solvable]).sum())],
    ]
    if config.test == "fisher":
        pvalue = fisher_exact_pvalue(table, alternative="greater")
        method += "one-sided Fisher exact test (the exact permutation test given the margins)"
    else:
        pvalue = permutation_pvalue(
            solvable,
            right,
            _mean_difference,
            n_permutations=config.n_permutations,
            seed=np.random.SeedSequence([config.seed, index]),
            alternative="greater",
        )
        method += f"one-sided permutation test ({config.n_permutations} shuffles of the solvable labels)"
    return Estimate(
        value=value,
        method=method,
        n=int(solvable.size),
        ci=newcombe_interval(table[0][0], first.n, table[1][0], second.n, config.level),
        pvalue=pvalue,
        baseline=0.0,
    )


def _mean_difference(solvable: np.ndarray, right: np.ndarray) -> float:
    if solvable.all() or not solvable.any():
        return math.nan
    return float(right[solvable].mean() - right[~solvable].mean())


def _warnings(splits: Sequence[ShortcutItems], models: Sequence[ModelReliance], config: RelianceConfig) -> list[str]:
    """What limits the reading of the results, per audited dataset."""
    found = []
    for split in splits:
        if split.constant:
            found.append(
                f"{split.dataset}: the probe {split.feature_set} predicts one class for every item, so "
                "'solvable' only means 'has that gold label': a difference measures a model's label "
                "preference, not reliance on a surface cue"
            )
        elif _label_determined(split):
            found.append(
                f"{split.dataset}: the items the probe {split.feature_set} solves are exactly those of some "
                "gold classes, so the raw difference measures label preference; no within-label comparison "
                "is possible"
            )
        elif split.probed and (not split.kappa_pvalue <= config.alpha or not split.kappa > 0):
            found.append(
                f"{split.dataset}: the probe {split.feature_set} is not shown better than chance (kappa "
                f"{split.kappa:.3f}, p {split.kappa_pvalue:.3g}): its split is close to random and can "
                "hardly show reliance"
            )
        if split.n_solvable in (0, len(split.solvable)):
            found.append(
                f"{split.dataset}: the probe solves {split.n_solvable} of {len(split.solvable)} predicted "
                "items, so one side is empty and no difference can be measured"
            )
    unmatched = [m for m in models if m.n_unmatched_outcomes or m.n_unmatched_audit]
    if unmatched:
        found.append(f"{len(unmatched)} (model, dataset) pair(s) have item ids on one side only (counted per pair)")
    return found


def _label_determined(split: ShortcutItems) -> bool:
    """Whether no gold class has both solvable and other items."""
    sides: dict[str, set[bool]] = {}
    for item, solvable in split.solvable.items():
        sides.setdefault(split.gold[item], set()).add(solvable)
    return all(len(seen) == 1 for seen in sides.values())
