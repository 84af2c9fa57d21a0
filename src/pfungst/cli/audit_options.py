"""The audit's option group (:class:`AuditOptions`), shared by ``pfungst audit`` and ``pfungst suite``: feature
sets, folds, the C grid, solvers, parallelism and the checks behind the verdict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import typer

from pfungst.cli.common import NBootstrapOption, SeedOption
from pfungst.cli.option_groups import OptionGroup
from pfungst.errors import ConfigError

__all__ = ["AuditOptions", "c_values"]


_FeatureSets = Annotated[
    list[str] | None,
    typer.Option("--feature-set", help="Feature set to probe, repeatable: feature_sets (default: all that apply)."),
]
_DetectLabelSet = Annotated[
    bool,
    typer.Option(
        help="Audit per-item options that are the same strings in every item (Yes / No as each item's choices) as "
        "shared labels, gold mapped to its label; --no-detect-label-set audits them as per-item choices."
    ),
]
_GroupSiblings = Annotated[
    bool,
    typer.Option(
        help="Keep sibling items (the same per-item option set, near-identical text, exact duplicates) in one "
        "cross-fitting fold; --no-group-siblings lets each item fall anywhere."
    ),
]
_SiblingSimilarity = Annotated[
    float,
    typer.Option(help="Word 1- and 2-gram Jaccard similarity from which two items count as near-identical."),
]
_MaxItems = Annotated[
    int, typer.Option(help="Audit a seeded sample of at most N items, stratified by gold (0: every item).")
]
_SelectionMaxItems = Annotated[
    int, typer.Option(help="Compare the classifier grid on at most N items of each training fold, then refit.")
]
_Parallel = Annotated[
    str,
    typer.Option(
        help="How --n-jobs run: worker 'processes' (each copies the data) or 'threads' of one process (one copy of "
        "the data: for very large benchmarks). Identical results."
    ),
]


def c_values(text: str) -> tuple[float, ...]:
    """The C values of ``--c-grid`` (numbers separated by commas, each in the range of
    :func:`~pfungst.audit.classifiers.check_c_grid`); an empty list, an empty part or a part that is not a number is
    a usage error."""
    from pfungst.audit.classifiers import check_c_grid

    parts = text.split(",")
    try:
        if any(not part.strip() for part in parts):
            raise ValueError
        values = tuple(float(part) for part in parts)
    except ValueError:
        raise typer.BadParameter(
            f"{text!r} is not a list of numbers: give C values separated by commas, e.g. 0.01,1,100"
        ) from None
    try:
        check_c_grid(values, "")
    except ConfigError as error:
        raise typer.BadParameter(str(error).removeprefix(": ")) from None
    return values


def _check_c_values(text: str) -> str:
    c_values(text)
    return text


_CGrid = Annotated[
    str,
    typer.Option(
        callback=_check_c_values,
        help="The C values (inverse regularisation strengths) tried for each penalty in every training fold, "
        "separated by commas.",
    ),
]
_Solvers = Annotated[
    str,
    typer.Option(
        help="How the cross-fitting fits its classifier grid: 'liblinear' (both penalties by liblinear at 0.01, L1 "
        "up to C = 1 at 0.001: about a quarter of the time) or 'sklearn' (scikit-learn's defaults: lbfgs for L2, "
        "tolerance 1e-4). Their kappas differ by less than a change of --seed moves them."
    ),
]
_Cluster = Annotated[
    str,
    typer.Option(
        help="Run the jobs on Dask: 'local' (a LocalCluster of --n-jobs worker processes, at least 2) or a "
        "scheduler address such as tcp://host:8786. Results are identical to a serial run. Needs pfungst[dask]."
    ),
]


@dataclass(frozen=True)
class AuditOptions(OptionGroup):
    """How a benchmark is audited: the feature sets probed, the cross-fitting, resamples, the verdict's threshold,
    the item caps and the parallelism (``pfungst audit`` and each benchmark of ``pfungst suite``)."""

    feature_set: _FeatureSets = None
    """Feature sets to probe; None for all that apply."""
    all_feature_sets: Annotated[
        bool,
        typer.Option(
            "--all-feature-sets",
            help="Probe every default feature set at any size (the 13 paper sets for shared labels) instead of the "
            "smaller default past 10,000 items.",
        ),
    ] = False
    """Whether the size-aware default keeps every default feature set."""
    detect_label_set: _DetectLabelSet = True
    """Whether per-item options that repeat in every item are audited as shared labels."""
    seed: SeedOption = 0
    """Seed of every random choice."""
    n_repeats: Annotated[int, typer.Option(help="Repeats of the cross-fitting.")] = 2
    """Repeats of the cross-fitting."""
    n_splits: Annotated[int, typer.Option(help="Folds of the cross-fitting.")] = 5
    """Folds of the cross-fitting."""
    group_siblings: _GroupSiblings = True
    """Whether sibling items are kept in one fold."""
    sibling_similarity: _SiblingSimilarity = 0.8
    """Similarity from which two items are near-identical siblings."""
    n_bootstrap: NBootstrapOption = 1000
    """Bootstrap resamples per interval."""
    n_permutations: Annotated[int, typer.Option(help="Permutations per p-value.")] = 1000
    """Permutations per p-value."""
    threshold: Annotated[
        float,
        typer.Option(
            help="Verdict threshold: 'predictable' when the interval's lower bound is above it, 'no evidence' when "
            "its upper bound is below it, 'inconclusive' in between."
        ),
    ] = 0.2
    """Verdict threshold on the interval's bounds."""
    lexical_task: Annotated[
        bool,
        typer.Option(
            "--lexical-task",
            help="Declare that the task is answered from the words of its input by design (sentiment, emotion, "
            "intent, topic): a full-input finding on shared labels then reads as expected, not as a content "
            "shortcut (recorded in the result; BIG-bench keywords can declare it too).",
        ),
    ] = False
    """Whether the task is declared to be answered from its words."""
    max_items: _MaxItems = 0
    """A stratified sample of at most this many items; 0 for every item."""
    selection_max_items: _SelectionMaxItems = 20_000
    """Items per training fold on which the classifier grid is compared."""
    c_grid: _CGrid = "0.01,0.1,1,10,100"
    """The C values tried per penalty, separated by commas."""
    solvers: _Solvers = "liblinear"
    """``liblinear`` or ``sklearn``: how the grid's item-level classifiers are fitted."""
    grid_patience: Annotated[
        int,
        typer.Option(
            help="Stop each penalty's C path after N values in a row that score no better on validation than the best "
            "so far (0: fit the whole grid)."
        ),
    ] = 1
    """Non-improving C values after which a penalty's path stops; 0 for the whole grid."""
    n_jobs: Annotated[int, typer.Option(help="Parallel (feature set, fold) jobs (joblib; -1: every core).")] = 1
    """Parallel jobs."""
    parallel: _Parallel = "processes"
    """``processes`` or ``threads``."""
    cluster: _Cluster = ""
    """A Dask cluster (``local`` or a scheduler address); empty for none."""

    def values(self) -> dict[str, Any]:
        """Each option by the name of its config field (``--feature-set`` is ``feature_sets``, a tuple)."""
        values = super().values()
        values["feature_sets"] = tuple(values.pop("feature_set") or ())
        values["c_grid"] = c_values(values["c_grid"])
        return values
