"""pfungst's own results: ``score`` per-item lines and JSON, ``stress`` outcome lines and JSON.

- ``pfungst score --out x.jsonl``: one line per item (``item_id``, ``correct``, ``status``, ...). The file names no
  model or dataset: the model is ``model=`` or else the file's stem; the dataset ``dataset=`` or else ``""``.
- ``ScoreResult.save_json(path, items=True)``: ``model``, ``benchmark.name`` and ``items``.
- ``pfungst stress --items x.jsonl``: one line per outcome (``perturbation``, ``variant``, ``rule``, ``format``,
  ``item_id``, ``correct``, ...); names as for score lines. Only the outcomes of one perturbation are taken:
  ``identity`` (the items as given, the plain pass) unless ``variant=`` names another, as ``perturbation`` or
  ``perturbation:variant`` (``cyclic:shift 1``, ``rules:pmi``), and of the scoring rule ``metric=`` names (every
  rule if None). The rest are counted as skipped.
- ``StressResult.save_json(path, items=True)`` (``schema_version`` ``pfungst.stress/1``) holds the outcomes under
  ``outcomes``; without ``items`` it holds none, which is an error here. A comparison of several models
  (``pfungst.stress-comparison/1``) gives one set of outcomes per model.

Answers whose ``status`` is not ``ok`` (refused, unparseable) count as wrong and as unparsed. Lines with integer
``gold`` and ``chosen`` (original option indices) keep each item's answer, lettered A, B, ... by original index.
Under the rules whose scores are log-probabilities of the options (:data:`PROBABILITY_RULES`: ``letter``, the label
token's; ``cloze-raw``, the option text's) the answer also carries the option probabilities, the softmax of the
scores over the options (what the validity screen's cleanlab score needs); the other rules' scores are normalised
or differenced (``cloze-byte``, ``cloze-token``, ``pmi``) or absent (``generate``) and give none.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pfungst.data.readers.sniffing import first_json_record, head_text
from pfungst.data.records import Record, iter_jsonl, json_value
from pfungst.errors import ReaderError
from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes, OutcomeRequest, OutcomesBuilder

__all__ = ["PROBABILITY_RULES", "read", "sniff"]

PROBABILITY_RULES = ("letter", "cloze-raw")
"""Scoring rules whose per-option scores are log-probabilities, so that their softmax over the options is the
model's probability of each option given that one of them is the answer."""

_SCHEMA = re.compile(r'"schema_version"\s*:\s*"pfungst\.(score|stress|stress-comparison)/')
_STRESS_FIELDS = {"item_id", "perturbation", "variant", "rule", "format", "correct"}
_SCORE_FIELDS = {"item_id", "correct", "chosen", "status"}


def sniff(path: Path, name: str) -> bool:
    """Score or stress JSON lines (by their fields) or JSON (by ``schema_version``)."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        match = _SCHEMA.search(head_text(path, 4096))
        return match is not None and (match.group(1) == "score") == (name == "pfungst-score")
    record = first_json_record(path) if suffix == ".jsonl" else None
    if record is None:
        return False
    if name == "pfungst-stress":
        return record.keys() >= _STRESS_FIELDS
    return record.keys() >= _SCORE_FIELDS and "perturbation" not in record


def read(path: Path, request: OutcomeRequest, name: str) -> tuple[ModelOutcomes, ...]:
    """The outcomes of a score or stress file."""
    stress = name == "pfungst-stress"
    request.warn_unused(name, *(() if stress else ("metric", "variant")))
    if path.suffix.lower() != ".json":
        records = iter_jsonl(path)
        return (_collect(path, name, request, records, request.name_model(path.stem), request.name_dataset("")),)
    document = _document(path)
    results = document.get("results") if stress and "results" in document else [document]
    if not isinstance(results, list):
        raise ReaderError(path, 0, "results", f"expected a list of stress results, found {type(results).__name__}")
    found = []
    for index, result in enumerate(results):
        key = "outcomes" if stress else "items"
        entries = result.get(key) if isinstance(result, dict) else None
        if not isinstance(entries, list):
            raise ReaderError(
                path,
                0,
                key,
                f"the {name[8:]} JSON holds no per-item {key} (result {index + 1})",
                "Write it with save_json(path, items=True), or read the --items / --out JSONL",
            )
        records = (Record(number, entry) for number, entry in enumerate(entries, start=1))
        benchmark = result.get("benchmark") or {}
        found.append(
            _collect(
                path,
                name,
                request,
                records,
                request.name_model(str(result.get("model", ""))),
                request.name_dataset(str(benchmark.get("name", ""))),
            )
        )
    return tuple(found)


def _document(path: Path) -> dict[str, Any]:
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise ReaderError(path, 0, "", f"cannot read it ({exc.strerror or exc})") from None
    document = json_value(text, path)
    if not isinstance(document, dict):
        raise ReaderError(path, 1, "(json)", f"expected a JSON object, found {type(document).__name__}")
    return document


def _selection(request: OutcomeRequest) -> tuple[str, str | None]:
    perturbation, _, variant = (request.variant or "identity").partition(":")
    return perturbation.strip(), variant.strip() or None


def _collect(
    path: Path, name: str, request: OutcomeRequest, records: Iterable[Record], model: str, dataset: str
) -> ModelOutcomes:
    stress = name == "pfungst-stress"
    perturbation, variant = _selection(request)
    rule = request.metric if stress else None
    chosen = (
        f"perturbation {perturbation}"
        + (f", variant {variant}" if variant else "")
        + (f", rule {rule}" if rule else "")
    )
    builder = OutcomesBuilder(path, name, model, dataset, chosen if stress else "scored items")
    for record in records:
        data = record.data()
        if not isinstance(data, dict):
            raise ReaderError(path, record.line, "(record)", f"expected an object, found {type(data).__name__}")
        if stress and (
            _field(path, record.line, data, "perturbation") != perturbation
            or variant not in (None, _field(path, record.line, data, "variant"))
            or rule not in (None, _field(path, record.line, data, "rule"))
        ):
            builder.n_skipped += 1
            continue
        correct = _field(path, record.line, data, "correct")
        if not isinstance(correct, bool):
            raise ReaderError(path, record.line, "correct", f"expected true or false, found {correct!r}")
        builder.n_unparsed += data.get("status", "ok") != "ok"
        builder.add(str(_field(path, record.line, data, "item_id")), correct, record.line, answer=_answer(data))
    if stress and not builder.build().correct:
        raise ReaderError(
            path,
            0,
            "perturbation",
            f"no outcome of {chosen} among {builder.n_skipped} outcomes",
            "Pass variant= a perturbation the run made, e.g. 'identity' or 'cyclic:shift 1'",
        )
    return builder.build()


def _field(path: Path, line: int, data: dict[str, Any], key: str) -> Any:
    if key not in data:
        raise ReaderError(
            path, line, key, "missing", "Expected a line written by pfungst score --out or stress --items"
        )
    return data[key]


def _answer(data: dict[str, Any]) -> ItemAnswer | None:
    """The chosen and gold option as letters of their original index; None without integer indices."""
    gold, chosen = data.get("gold"), data.get("chosen")
    if not isinstance(gold, int) or not isinstance(chosen, int) or isinstance(gold, bool) or not 0 <= gold < 26:
        return None
    letter = chr(ord("A") + chosen) if 0 <= chosen < 26 else ""
    return ItemAnswer(chosen=letter, gold=chr(ord("A") + gold), probabilities=_probabilities(data))


def _probabilities(data: dict[str, Any]) -> dict[str, float]:
    """Original option letter -> softmax of the scores, for a rule of :data:`PROBABILITY_RULES` with a finite score
    per shown option (scores are per shown position; ``order`` maps each to its original index); else empty."""
    scores, order = data.get("scores"), data.get("order")
    if data.get("rule") not in PROBABILITY_RULES or not isinstance(scores, list) or not isinstance(order, list):
        return {}
    numbers = [s for s in scores if isinstance(s, int | float) and not isinstance(s, bool) and math.isfinite(s)]
    indices = [i for i in order if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 26]
    if not scores or len(numbers) != len(scores) or len(indices) != len(order) or len(scores) != len(order):
        return {}
    top = max(numbers)
    weights = [math.exp(score - top) for score in numbers]
    total = sum(weights)
    return {chr(ord("A") + index): weight / total for index, weight in zip(indices, weights, strict=True)}
