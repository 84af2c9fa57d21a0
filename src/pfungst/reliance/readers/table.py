"""A plain table of outcomes: CSV (``.csv``) or TSV (``.tsv``) with a header.

Columns: ``item_id`` and ``correct`` (required), ``model`` (required unless ``model=`` names the one model),
``dataset`` (optional; ``dataset=`` replaces it, and without either it is ``""``). Where the table also has
``answer`` (the label the model chose) and ``gold`` (the keyed label), each row's answer is kept for the validity
screen, with ``text`` (the item's text) if present. Other columns are ignored.
``correct`` reads ``true`` / ``false``, ``1`` / ``0``, ``yes`` / ``no`` (any case, surrounding space ignored);
anything else is an error naming the file, line and field. One :class:`ModelOutcomes` per (model, dataset), in
the order first seen.
"""

from __future__ import annotations

from pathlib import Path

from pfungst.data.readers.sniffing import head_lines
from pfungst.data.records import iter_csv
from pfungst.errors import ConfigError, ReaderError
from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes, OutcomeRequest, OutcomesBuilder

__all__ = ["parse_correct", "read", "sniff"]

_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no"}


def parse_correct(text: str) -> bool | None:
    """``True`` / ``False`` for the accepted spellings, ``None`` for anything else.

    Example:
        >>> parse_correct(" Yes "), parse_correct("0"), parse_correct("maybe")
        (True, False, None)
    """
    value = text.strip().lower()
    return True if value in _TRUE else False if value in _FALSE else None


def _delimiter(path: Path) -> str:
    return "\t" if path.suffix.lower() == ".tsv" else ","


def sniff(path: Path, name: str) -> bool:
    """A ``.csv`` / ``.tsv`` file whose header has ``item_id`` and ``correct``."""
    if path.suffix.lower() not in (".csv", ".tsv"):
        return False
    lines = head_lines(path, 1)
    columns = {c.strip().strip('"') for c in lines[0].split(_delimiter(path))} if lines else set()
    return {"item_id", "correct"} <= columns


def read(path: Path, request: OutcomeRequest, name: str) -> tuple[ModelOutcomes, ...]:
    """One :class:`ModelOutcomes` per (model, dataset) in the table."""
    request.warn_unused(name, "metric", "variant")
    builders: dict[tuple[str, str], OutcomesBuilder] = {}
    for record in iter_csv(path, delimiter=_delimiter(path)):
        row = record.data()
        for column in ("item_id", "correct") + (() if request.model is not None else ("model",)):
            if column not in row:
                raise ReaderError(
                    path,
                    record.line,
                    column,
                    "no such column",
                    "The table needs item_id, correct and model (or pass model=)",
                )
        if request.model is not None and "model" in row:
            raise ConfigError(f"{path}: model={request.model!r} applies only to a table without a model column")
        correct = parse_correct(row["correct"])
        if correct is None:
            raise ReaderError(
                path, record.line, "correct", f"expected true/false, 1/0 or yes/no, found {row['correct']!r}"
            )
        key = (request.name_model(row.get("model", "")), request.name_dataset(row.get("dataset", "")))
        if key not in builders:
            builders[key] = OutcomesBuilder(path, name, *key, selection="column correct")
        answer = None
        if "answer" in row and "gold" in row:
            answer = ItemAnswer(chosen=row["answer"].strip(), gold=row["gold"].strip(), text=row.get("text", ""))
        builders[key].add(row["item_id"].strip(), correct, record.line, answer=answer)
    if not builders:
        raise ReaderError(path, 0, "", "the table has no rows")
    return tuple(builder.build() for builder in builders.values())
