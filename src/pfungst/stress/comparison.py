"""Several models stressed on the same items: does the leaderboard survive the changes that should not matter?

Each model's outcomes become one correctness table per variant (one answer per item); variants every model ran on the
same items are ranked (:func:`~pfungst.stress.ranks.rank_stability`): rank per variant with bootstrap intervals,
Kendall's tau between variants, Kendall's W over all of them, the largest rank shift, and paired tests per model pair.
Circular evaluation (right under every rotation) and PriDe's debiased answers are variants too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from pfungst.blocks import Section
from pfungst.display import NotebookDisplay
from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.provenance import Provenance, ResultReference
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields, read_dataclass
from pfungst.stress.perturbations.pride.result import PrideResult
from pfungst.stress.ranks import RankStability, rank_stability
from pfungst.stress.sections import comparison_overview, comparison_sections
from pfungst.stress.stress_result import StressResult
from pfungst.stress.summary_lines import comparison_summary_lines

__all__ = ["COMPARISON_SCHEMA_VERSION", "StressComparison", "compare", "correctness_by_variant"]

COMPARISON_SCHEMA_VERSION = SCHEMA_VERSIONS["stress-comparison"]
"""The layout of :meth:`StressComparison.to_dict` (``pfungst stress`` with several models, ``--json``)."""

_ROTATIONS = "cyclic"


def correctness_by_variant(result: StressResult) -> dict[str, dict[str, bool]]:
    """Variant name -> item id -> correct, for every variant with exactly one answer per item, plus ``circular``
    (right under every cyclic rotation) and ``pride`` (debiased) when the run has them."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in result.outcomes:
        groups[_variant_name(outcome, result.provenance.settings)].append(outcome)
    table: dict[str, dict[str, bool]] = {}
    for name, outcomes in groups.items():
        ids = [o.item_id for o in outcomes]
        if len(set(ids)) == len(ids):
            table[name] = {o.item_id: o.correct for o in outcomes}
    rotations = [o for o in result.outcomes if o.perturbation == _ROTATIONS]
    if rotations:
        circular: dict[str, bool] = {}
        for outcome in rotations:
            circular[outcome.item_id] = circular.get(outcome.item_id, True) and outcome.correct
        table["circular"] = circular
    for analysis in result.analyses:
        if isinstance(analysis.result, PrideResult):
            table["pride"] = {o.item_id: o.correct for o in analysis.result.outcomes}
    return table


def compare(
    results: Sequence[StressResult],
    *,
    names: Sequence[str] | None = None,
    seed: int = 0,
    n_bootstrap: int = 1000,
    level: float = 0.95,
) -> RankStability:
    """Rank stability of ``results``' models over the variants all of them ran on the same items.

    Args:
        results: One stress result per model, on the same benchmark.
        names: Model names to show (default: each result's model fingerprint).
        seed, n_bootstrap, level: Of the bootstrap rank intervals and paired comparisons.

    Raises:
        ConfigError: fewer than two results, repeated names, or no variant shared by all on the same items.
    """
    if len(results) < 2:
        raise ConfigError(f"comparing models needs at least two stress results, got {len(results)}")
    names = list(names) if names is not None else [result.model for result in results]
    if len(names) != len(results) or len(set(names)) != len(names):
        raise ConfigError(f"need one distinct name per result; got {names} for {len(results)} results")
    tables = [correctness_by_variant(result) for result in results]
    shared = [variant for variant in tables[0] if all(_same_items(table, tables[0], variant) for table in tables[1:])]
    if not shared:
        raise ConfigError(
            "the results share no variant asked on the same items; stress every model on the same "
            "benchmark with the same perturbations, seed and limit"
        )
    correctness = {
        name: {variant: table[variant] for variant in shared} for name, table in zip(names, tables, strict=True)
    }
    ranks = rank_stability(correctness, seed=seed, n_bootstrap=n_bootstrap, level=level)
    data = tuple(dict.fromkeys(source for result in results for source in result.provenance.data))
    inputs = tuple(ResultReference.of(result) for result in results)
    return replace(ranks, provenance=replace(ranks.provenance, data=data, derived_from=inputs))


@dataclass(frozen=True, eq=False)
class StressComparison(NotebookDisplay):
    """Several models stressed on the same items: each model's stress result and the rank stability between them."""

    results: tuple[StressResult, ...]
    """One stress result per model, in input order."""
    rank_stability: RankStability
    """Leaderboard places per variant and how much they agree (:func:`compare`)."""
    schema_version: str = COMPARISON_SCHEMA_VERSION
    KIND: ClassVar[str] = "stress-comparison"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = COMPARISON_SCHEMA_VERSION
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "model"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    @property
    def provenance(self) -> Provenance:
        """The rank stability's record (settings, seed, software, the stress results compared and their data files);
        each stress run's own record is in its result (and on the report's provenance chapter)."""
        return self.rank_stability.provenance

    def sections(self) -> tuple[Section, ...]:
        """Each model's stress chapter, then the rank stability between them (computes nothing)."""
        return comparison_sections(self)

    def overview(self) -> Overview:
        """One board row per model; the headline is how far the rankings agree (Kendall's W)."""
        return comparison_overview(self)

    def summary_lines(self) -> tuple[str, ...]:
        """Its short answer: each model's verdict and plain accuracy, and how far the rankings agree."""
        return comparison_summary_lines(self)

    def to_dict(self, items: bool = False) -> dict[str, Any]:
        """A JSON-safe dict with stable keys; ``items=True`` adds every result's outcomes."""
        return {
            "schema_version": self.schema_version,
            "kind": self.KIND,
            "results": [result.to_dict(items=items) for result in self.results],
            "rank_stability": self.rank_stability.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> StressComparison:
        """The comparison that :meth:`to_dict` wrote, every result and analysis typed.

        Raises:
            ConfigError: not a stress comparison.
            ReaderError: a key missing or a value of the wrong type (the message names ``source``).
        """
        fields = Fields(data, source)
        version = fields.data.get("schema_version")
        if version != COMPARISON_SCHEMA_VERSION:
            raise ConfigError(
                f"{source}: expected a stress comparison ({COMPARISON_SCHEMA_VERSION}), got schema_version {version!r}"
            )
        results = tuple(StressResult.from_dict(run.data, source, run.path) for run in fields.records("results"))
        ranks = fields.sub("rank_stability")
        ranks.check_schema(RankStability.SCHEMA_VERSION)
        return cls(results=results, rank_stability=read_dataclass(RankStability, ranks))

    def __repr__(self) -> str:
        return f"StressComparison({len(self.results)} results, {self.rank_stability!r})"


def _same_items(table: dict[str, dict[str, bool]], first: dict[str, dict[str, bool]], variant: str) -> bool:
    return variant in table and set(table[variant]) == set(first[variant])


def _variant_name(outcome: Outcome, settings: dict[str, object]) -> str:
    """``identity``, ``cyclic: shift 1``, ``rules: pmi``, ``formats: format 3`` (the rule is added where it is not
    the run's main rule)."""
    same = outcome.variant == outcome.perturbation
    name = outcome.perturbation if same else f"{outcome.perturbation}: {outcome.variant}"
    if outcome.perturbation != "rules" and outcome.rule != settings.get("rule"):
        name += f" ({outcome.rule})"
    return name
