"""Read the parts of an audit's JSON back into typed objects: heuristics and cues (see ``AuditResult.from_dict``).

A heuristic keeps its per-item predictions when the file was written with ``items=True``; otherwise it keeps its
item count only.
"""

from __future__ import annotations

from pfungst.audit.cues import CueTable
from pfungst.audit.heuristics import GoldPositionResult, HansCount, HeuristicConfig, HeuristicResult, HeuristicsReport
from pfungst.schema import Fields, read_dataclass

__all__ = ["read_cues", "read_heuristics"]


def read_heuristics(fields: Fields) -> HeuristicsReport:
    """A :class:`HeuristicsReport` from its ``to_dict()``.

    Raises:
        ReaderError: a value of the wrong type or a missing key, naming the file and the field.
    """
    return HeuristicsReport(
        benchmark=fields.string("benchmark"),
        results=tuple(_heuristic(entry) for entry in fields.records("results")),
        hans_counts=tuple(read_dataclass(HansCount, entry) for entry in fields.records("hans_counts")),
        config=read_dataclass(HeuristicConfig, fields.sub("config")),
    )


def _heuristic(fields: Fields) -> HeuristicResult:
    rows = fields.records("items") if fields.has("items") else []  # written with items=True
    for row in rows:
        _check_row(row)
    common = HeuristicResult(
        name=fields.string("name"),
        description=fields.string("description"),
        item_ids=tuple(row.string("item_id") for row in rows),
        gold=tuple(row.integer("gold") for row in rows),
        predictions=tuple(row.integer("prediction") for row in rows),
        accuracy=fields.estimate("accuracy"),
        kappa=fields.estimate("kappa"),
        chance_corrected_accuracy=fields.estimate("chance_corrected_accuracy"),
        coverage=fields.number("coverage"),
        tie_rate=fields.number("tie_rate"),
        file_n_items=fields.integer("n_items"),
    )
    if not fields.has("uniformity"):
        return common
    return GoldPositionResult(
        **vars(common),
        uniformity=fields.estimate("uniformity"),
        position_counts=fields.typed("position_counts", tuple[int, ...]),
        expected_counts=fields.typed("expected_counts", tuple[float, ...]),
    )


def _check_row(row: Fields) -> None:
    """A heuristic's per-item row: ``gold`` an option index, ``prediction`` one or -1 (abstained), ``correct``
    (null when abstained) whether they agree."""
    gold, prediction = row.integer("gold"), row.integer("prediction")
    if gold < 0:
        raise row.error("gold", f"{gold} is not an option index")
    if prediction < -1:
        raise row.error("prediction", f"{prediction} is neither an option index nor -1 (abstained)")
    if row.has("correct") and (prediction < 0 or row.boolean("correct") != (prediction == gold)):
        raise row.error("correct", f"disagrees with prediction {prediction} and gold {gold}")


def read_cues(fields: Fields) -> CueTable:
    """A :class:`CueTable` from its ``to_dict()``.

    Raises:
        ReaderError: a value of the wrong type or a missing key, naming the file and the field.
    """
    return read_dataclass(CueTable, fields)
