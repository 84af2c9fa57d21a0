"""The one result protocol and the one registry of result kinds, so a report is a loop over results.

A shared module: every result class (``BenchmarkSummary``, ``AuditResult``, ``StressResult``, a stress analysis such
as ``SelectionBias``, a plugin's own) is a frozen dataclass with a ``KIND`` and reads and renders itself; reports and
:func:`pfungst.read_result` look the class up by kind in :data:`RESULTS` and never test kinds themselves.

A top-level result (one that a command writes as a file) also has ``SCHEMA_VERSION`` (written as ``schema_version``,
beside ``kind``), ``sections()`` (its chapter for a report) and ``overview()`` (its place on the report's first page).
A plugin adds a kind with one module and one entry point in the ``pfungst.results`` group; its kinds carry its
package name (``mypkg.thing``).

Example:
    >>> RESULTS.resolve("audit").KIND, RESULTS.resolve("selection-bias").KIND
    ('audit', 'selection-bias')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, NamedTuple, Protocol, runtime_checkable

from pfungst.blocks import Section
from pfungst.registry import Registry

__all__ = [
    "DERIVED",
    "REPORT_PARTS",
    "RESULTS",
    "BoardRow",
    "Overview",
    "Result",
    "derive",
    "overview_lines",
    "result_class",
]

BoardRow = tuple[str, str, str, str, str]
"""One row of a report's board: benchmark, model, verdict in words, headline figure, status (``good``, ``warn``,
``bad``, ``info``)."""

REPORT_PARTS = ("suite", "data", "model", "analysis")
"""Where a result's chapter goes in a report, in reading order: a suite's leaderboard, the data side (summaries and
audits, grouped by benchmark), the model side (stress runs, scores, comparisons), then analyses across models and
datasets (reliance, validity)."""


class Overview(NamedTuple):
    """How a result shows on a report's first page and in its provenance chapter."""

    benchmark: Mapping[str, Any]
    """The ``Benchmark.to_dict()`` it is about (its name titles the report); empty when it is about several."""
    model: str
    """The model (or models) in words; empty for a data-side result."""
    headline: str
    """The one figure that sums it up, with its interval."""
    rows: tuple[BoardRow, ...]
    """Its rows on the board: one per benchmark and model it judges."""
    records: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    """Provenance records (benchmark, environment, settings, seed) beyond its own, each with a label: one per stress
    run inside a comparison."""
    about: str = ""
    """What it is about when it has no single benchmark (the datasets of a reliance analysis), for its label."""

    @property
    def name(self) -> str:
        """The benchmark's name, or what the result is about."""
        return str(self.benchmark.get("name") or "") or self.about


@runtime_checkable
class Result(Protocol):
    """A top-level result: a frozen dataclass that writes, reads and renders itself.

    Class constants: ``KIND`` (kebab-case; a plugin's prefixed with its package: ``mypkg.thing``),
    ``SCHEMA_VERSION`` (``pfungst.audit/3``; a changed field meaning bumps it) and ``REPORT_PART`` (one of
    :data:`REPORT_PARTS`). The class method ``from_dict(data, source="<dict>")`` reads :meth:`to_dict` back through
    :class:`pfungst.schema.Fields`, naming ``source`` and the field path of a value of the wrong type.
    """

    KIND: ClassVar[str]
    SCHEMA_VERSION: ClassVar[str]
    REPORT_PART: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys, ``kind`` and ``schema_version`` among them."""
        ...

    def sections(self) -> tuple[Section, ...]:
        """Its chapter: a level-2 section naming what it is about, then its parts (level 3); computes nothing.

        Results of one report part whose chapters open with the same section (a benchmark's summary and audit)
        share that opening."""
        ...

    def overview(self) -> Overview:
        """Its board rows, headline, benchmark and model."""
        ...


RESULTS: Registry[type[Any]] = Registry(
    "result kind",
    {
        "summary": "pfungst.data.summary:BenchmarkSummary",
        "audit": "pfungst.audit.result:AuditResult",
        "suite": "pfungst.audit.suite.result:SuiteResult",
        "score": "pfungst.evaluate.score_result:ScoreResult",
        "stress": "pfungst.stress.stress_result:StressResult",
        "stress-comparison": "pfungst.stress.comparison:StressComparison",
        "rank-stability": "pfungst.stress.rank_result:RankStability",
        "reliance": "pfungst.reliance.result:RelianceResult",
        "validity": "pfungst.reliance.validity.result:ValidityResult",
        "selection-bias": "pfungst.stress.metrics.id_bias:SelectionBias",
        "circular": "pfungst.stress.metrics.circular:CircularMetrics",
        "answer-moved": "pfungst.stress.metrics.arrangement_effects:MovedAnswerAccuracy",
        "paired-difference": "pfungst.stress.metrics.arrangement_effects:PairedDifference",
        "pride": "pfungst.stress.perturbations.pride.result:PrideResult",
        "format-spread": "pfungst.stress.perturbations.formats.metric:FormatSpread",
        "spread-search": "pfungst.stress.perturbations.spread_search.metric:SpreadSearch",
        "multiprompt": "pfungst.stress.multiprompt:MultiPromptStats",
        "choices-only": "pfungst.stress.perturbations.choices_only.metric:ChoicesOnlyAccuracy",
        "none-of-the-above": "pfungst.stress.perturbations.none_of_the_above.metric:NoneOfTheAboveEffect",
        "letter-text": "pfungst.stress.perturbations.letter_text.metric:LetterTextAgreement",
        "choices-only-comparison": "pfungst.reliance.choices_only:ChoicesOnlyComparison",
    },
    group="pfungst.results",
)
"""Kind -> the result class (lazy ``"module:Name"``): top-level results and the analyses inside a stress run; an
installed package adds its kinds through the ``pfungst.results`` entry-point group."""


DERIVED: Registry[Callable[[tuple[Any, ...]], tuple[Any, ...]]] = Registry(
    "derived result",
    {"choices-only-comparison": "pfungst.reliance.choices_only:choices_only_comparisons"},
    group="pfungst.derived",
)
"""Derived kind -> the function of the stage that owns it (lazy ``"module:function"``): given every result of a
report, it pairs those that belong together and returns one result per pairing (each with ``KIND``,
``REPORT_PART`` and ``sections()``), or none. A report shows them after the chapters of their part; an installed
package adds its own through the ``pfungst.derived`` entry-point group."""


def derive(results: Iterable[Any]) -> tuple[Any, ...]:
    """The results that ``results`` imply together, from every function in :data:`DERIVED`, in registry order.

    The stage that owns a derived kind computes it (pairing figures its results already hold); the report layer
    only calls this and renders what comes back. A broken plugin warns once and adds nothing.

    Example:
        >>> derive([])
        ()
    """
    results = tuple(results)
    found: list[Any] = []
    for kind in DERIVED:
        found += DERIVED.skip_if_broken(kind, "derive", lambda name: DERIVED.resolve(name)(results), kind) or ()
    return tuple(found)


def result_class(kind: str) -> type[Any] | None:
    """The class registered for ``kind``, or None when no installed package knows it (a broken plugin warns once).

    Example:
        >>> result_class("summary").__name__, result_class("mypkg.unknown")
        ('BenchmarkSummary', None)
    """
    if not isinstance(kind, str) or kind not in RESULTS:
        return None
    return RESULTS.skip_if_broken(kind, "import", RESULTS.resolve, kind)


def overview_lines(overview: Overview, most: int = 8) -> tuple[str, ...]:
    """A result's short answer from its overview, for a result without ``summary_lines()`` of its own: the headline,
    then one sentence per board row (at most ``most``, the rest counted).

    Example:
        >>> rows = (("mmlu", "smollm2", "position dependent", "gap 0.31 [0.22, 0.40]", "bad"),)
        >>> overview_lines(Overview({}, "smollm2", "1 model", rows))
        ('1 model', 'mmlu, smollm2: position dependent (problem); gap 0.31 [0.22, 0.40]')
    """
    from pfungst.blocks import STATUSES

    lines = [overview.headline] if overview.headline else []
    for benchmark, model, verdict, figure, status in overview.rows[:most]:
        about = ", ".join(part for part in (benchmark, model) if part and part != "(data)")
        words = STATUSES[status][1] if status in STATUSES else status
        lines.append(f"{about}: {verdict} ({words}); {figure}" if figure else f"{about}: {verdict} ({words})")
    if len(overview.rows) > most:
        lines.append(f"... and {len(overview.rows) - most} more rows")
    return tuple(lines)


def is_top_level(cls: type[Any]) -> bool:
    """Whether ``cls`` is a result a file can hold on its own (it has a schema version and renders as a chapter)."""
    return isinstance(getattr(cls, "SCHEMA_VERSION", None), str) and getattr(cls, "REPORT_PART", None) in REPORT_PARTS
