"""``build_report``: results in, one :class:`~pfungst.blocks.Report` out, in reading order.

The overview comes first: a one-glance board (one row per benchmark and model: verdict, headline figure with its
interval, a status in colour, symbol and words; a benchmark's summary row folds into its audit's) and the list of
inputs; then each result's chapter, part by part
(:data:`~pfungst.results.REPORT_PARTS`: a suite's leaderboard, the data side grouped by benchmark, the model side,
the analyses across models and datasets), each part closed by the results its inputs imply together
(:func:`~pfungst.results.derive`: the stage that owns each such kind pairs them, such as the audit's classifier
choices-only probe beside each model's), and the provenance of every input (data file hash, seeds, versions,
settings, git revision). Every chapter, row and figure comes from the result itself
(:class:`~pfungst.results.Result`); this module only arranges them. HTML, Markdown, JSON and the console all
render this one structure, so they show the same figures.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pfungst.blocks import Board, Report, Section, Table
from pfungst.report.loading import LoadedResult, as_result
from pfungst.report.provenance import provenance_sections
from pfungst.results import REPORT_PARTS, BoardRow, derive

__all__ = ["build_report", "derived_sections", "merge_rows", "result_sections"]


def build_report(results: Iterable[Any], *, title: str | None = None) -> Report:
    """Arrange results (loaded files, result objects or result dicts) as one report; computes nothing.

    Results that pair up (an audit's classifier choices-only probe and a stress run's choices-only analysis on the
    same benchmark) come from :func:`pfungst.results.derive`, which asks the stage that owns each derived kind.

    Args:
        results: :class:`~pfungst.report.loading.LoadedResult` objects, result objects (``AuditResult``,
            ``StressResult``, ``BenchmarkSummary``, ...) or their ``to_dict()``, in any order.
        title: The report's title; by default one naming the benchmarks.

    Raises:
        ConfigError: an input of an unknown kind or schema.
        ReaderError: a result dict with a value of the wrong type.

    Example:
        >>> from pfungst.data import Benchmark, Item
        >>> from pfungst.data.summary import summarize
        >>> summary = summarize(Benchmark("toy", [Item(str(i), "q", ("x", "y"), i % 2) for i in range(4)]))
        >>> report = build_report([summary])
        >>> report.title, [section.title for section in report.sections if section.level == 2]
        ('pfungst report: toy', ['Overview', 'Benchmark: toy', 'Provenance'])
    """
    loaded = [as_result(result) for result in results]
    derived = derive((result.data for result in loaded), (result.reference for result in loaded))
    sections: list[Section] = [_overview(loaded)]
    for part in REPORT_PARTS:
        sections += _chapters([result for result in loaded if part == result.data.REPORT_PART])
        sections += [section for found in derived if part == found.REPORT_PART for section in found.sections()]
    sections += provenance_sections(loaded, derived)
    names = dict.fromkeys(name for result in loaded if (name := str(result.data.overview().benchmark.get("name", ""))))
    default = "pfungst report" + (f": {', '.join(names)}" if names else "")
    return Report(
        title=title or default, sections=tuple(sections), sources=tuple(result.to_dict() for result in loaded)
    )


def result_sections(result: Any) -> tuple[Section, ...]:
    """One result as sections: a chapter heading with what it is about, then its parts. A result object renders
    itself; only a result dict is read (checked) first.

    Raises:
        ConfigError: not a result.
    """
    if isinstance(result, LoadedResult):
        return tuple(result.data.sections())
    sections = getattr(result, "sections", None)  # a result object renders itself: no round trip through JSON
    return tuple(sections() if callable(sections) else as_result(result).data.sections())


def derived_sections(results: Iterable[Any]) -> list[Section]:
    """The sections of the results that ``results`` imply together (:func:`~pfungst.results.derive`), such as the
    audit's classifier choices-only probe beside each model's on the same benchmark; empty where nothing pairs up.

    Raises:
        ConfigError: an input that is not a result.
    """
    loaded = [as_result(result) for result in results]
    derived = derive((result.data for result in loaded), (result.reference for result in loaded))
    return [section for found in derived for section in found.sections()]


def _overview(loaded: list[LoadedResult]) -> Section:
    overviews = [result.data.overview() for result in loaded]
    board = Board(merge_rows(row for overview in overviews for row in overview.rows))
    rows = tuple(
        (result.source, result.kind, str(overview.benchmark.get("name", "")), overview.model, overview.headline)
        for result, overview in zip(loaded, overviews, strict=True)
    )
    table = Table("Inputs", ("file", "kind", "benchmark", "model", "headline"), rows, text_columns=5)
    return Section("Overview", (board, table))


def merge_rows(rows: Iterable[BoardRow]) -> tuple[BoardRow, ...]:
    """One board row per benchmark and model: an ``info`` row (a summary's "inspected" with its majority answer
    share) folds into the judged row of the same benchmark and model (an audit's), its figure added to that row's
    figures; judged rows stay apart, in first-seen order. Computes nothing.

    Example:
        >>> merge_rows([("toy", "(data)", "inspected", "majority answer share 0.5", "info"),
        ...             ("toy", "(data)", "no evidence", "kappa 0.01 [-0.1, 0.1]", "good")])
        (('toy', '(data)', 'no evidence', 'kappa 0.01 [-0.1, 0.1]; majority answer share 0.5', 'good'),)
    """
    merged: list[BoardRow] = []
    for row in rows:
        at = next((i for i, kept in enumerate(merged) if kept[:2] == row[:2] and "info" in (kept[4], row[4])), None)
        if at is None:
            merged.append(row)
            continue
        judged, info = (merged[at], row) if row[4] == "info" else (row, merged[at])
        figures = "; ".join(dict.fromkeys(figure for figure in (judged[3], info[3]) if figure))
        merged[at] = (*judged[:3], figures, judged[4])
    return tuple(merged)


def _chapters(loaded: list[LoadedResult]) -> list[Section]:
    """The chapters of one report part: results whose chapters open with the same section (a benchmark's summary and
    its audit) share that opening, in first-seen order, each group's results in input order."""
    groups: list[list[Section]] = []
    for result in loaded:
        opening, *rest = result.data.sections()
        group = next((group for group in groups if opening.level == 2 and group[0] == opening), None)
        if group is None:
            groups.append([opening, *rest])
        else:
            group.extend(rest)
    return [section for group in groups for section in group]
