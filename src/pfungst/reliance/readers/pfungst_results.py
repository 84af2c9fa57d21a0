"""pfungst's own results: ``score`` per-item lines and JSON, ``stress`` outcome lines and JSON.

- ``pfungst score --out x.jsonl``: one line per item (``item_id``, ``correct``, ``status``, ...). The file names no
  model or dataset: the model is ``model=`` or else the file's stem; the dataset ``dataset=`` or else ``""``.
- ``ScoreResult.save_json(path, items=True)``: ``model``, ``benchmark.name`` and ``items``.
- ``pfungst stress --items x.jsonl``: one line per outcome (``perturbation``, ``variant``, ``rule``, ``format``,
  ``item_id``, ``correct``, ...); names as for score lines. Only the outcomes of one perturbation are taken:
  ``identity`` (the items as given, the plain pass) unless ``variant=`` names another, as ``perturbation`` or
  ``perturbation:variant`` (``cyclic:shift 1``, ``rules:pmi``), and of the scoring rule ``metric=`` names (every
  rule if None). The rest are counted as skipped.
- ``StressResult.save_json(path, items=True)`` (``schema_version`` ``pfungst.stress/2``) holds the outcomes under
  ``outcomes``; without ``items`` it holds none, which is an error here. A comparison of several models
  (``pfungst.stress-comparison/2``) gives one set of outcomes per model.

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
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pfungst.data.readers.sniffing import first_json_record, head_text
from pfungst.data.records import iter_jsonl, json_value
from pfungst.data.result_bytes import result_bytes
from pfungst.errors import ReaderError
from pfungst.evaluate.outcome import check_outcome_record
from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes, OutcomeRequest, OutcomesBuilder
from pfungst.results import result_class
from pfungst.schema import SCHEMA_VERSIONS, Fields, check_depth, kind_of

__all__ = ["PROBABILITY_RULES", "read", "sniff"]

PROBABILITY_RULES = ("letter", "cloze-raw")
"""Scoring rules whose per-option scores are log-probabilities, so that their softmax over the options is the
model's probability of each option given that one of them is the answer."""

_SCHEMA = re.compile(r'"schema_version"\s*:\s*"pfungst\.(score|stress|stress-comparison)/')
_KINDS = ("score", "stress", "stress-comparison")
"""The result kinds whose JSON holds per-item outcomes."""
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
    """The outcomes of a score or stress file, each record checked by the outcome contract
    (:func:`~pfungst.evaluate.outcome.check_outcome_record`) and a JSON file by its result class, as a report reads it.

    Raises:
        ReaderError: a record or value that breaks the contract, an unknown ``schema_version``, or a JSON file
            written without its per-item outcomes; named by file, line and field.
    """
    stress = name == "pfungst-stress"
    request.warn_unused(name, *(() if stress else ("metric", "variant")))
    if path.suffix.lower() != ".json":
        records = ((record.line, Fields(record.data(), str(path), "", record.line)) for record in iter_jsonl(path))
        return (_collect(path, name, request, records, request.name_model(path.stem), request.name_dataset("")),)
    document = Fields(_document(path), str(path))
    results = document.records("results") if stress and "results" in document.data else [document]
    found = []
    for index, result in enumerate(results):
        key = "outcomes" if stress else "items"
        if not isinstance(result.data.get(key), list):
            raise ReaderError(
                path,
                0,
                _join(result.path, key),
                f"the {name[8:]} JSON holds no per-item {key} (result {index + 1})",
                "Write it with save_json(path, items=True), or read the --items / --out JSONL",
            )
        records = ((0, entry) for entry in result.records(key))
        benchmark = result.sub("benchmark").string("name") if result.has("benchmark") else ""
        model = result.string("model") if result.has("model") else ""
        found.append(_collect(path, name, request, records, request.name_model(model), request.name_dataset(benchmark)))
    return tuple(found)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _document(path: Path) -> dict[str, Any]:
    """The JSON object of a score or stress result file, read by its result class as ``report`` reads it."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReaderError(path, 0, "", f"cannot read it ({exc.strerror or exc})") from None
    document = json_value(result_bytes(path, raw), path)
    if not isinstance(document, dict):
        raise ReaderError(path, 1, "(json)", f"expected a JSON object, found {type(document).__name__}")
    version = document.get("schema_version")
    cls = result_class(kind_of(version) or "") if isinstance(version, str) else None
    if cls is None or cls.KIND not in _KINDS:
        known = ", ".join(SCHEMA_VERSIONS[kind] for kind in _KINDS)
        raise ReaderError(
            path,
            0,
            "schema_version",
            f"expected one of {known}, found {version!r}",
            "Read it with the pfungst version that wrote it, or upgrade pfungst",
        )
    check_depth(document, str(path))
    cls.from_dict(document, str(path))
    return document


def _selection(request: OutcomeRequest) -> tuple[str, str | None]:
    perturbation, _, variant = (request.variant or "identity").partition(":")
    return perturbation.strip(), variant.strip() or None


def _collect(
    path: Path, name: str, request: OutcomeRequest, records: Iterable[tuple[int, Fields]], model: str, dataset: str
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
    for line, fields in records:
        check_outcome_record(fields)
        if stress and (
            _string(fields, "perturbation") != perturbation
            or variant not in (None, _string(fields, "variant"))
            or rule not in (None, _string(fields, "rule"))
        ):
            builder.n_skipped += 1
            continue
        correct = fields.boolean("correct")
        builder.n_unparsed += fields.data.get("status", "ok") != "ok"
        builder.add(fields.string("item_id"), correct, line, answer=_answer(fields.data))
    if stress and not builder.build().correct:
        raise ReaderError(
            path,
            0,
            "perturbation",
            f"no outcome of {chosen} among {builder.n_skipped} outcomes",
            "Pass variant= a perturbation the run made, e.g. 'identity' or 'cyclic:shift 1'",
        )
    return builder.build()


def _string(fields: Fields, key: str) -> str:
    if key not in fields.data:
        raise fields.error(key, "missing. Expected a line written by pfungst score --out or stress --items")
    return fields.string(key)


def _answer(data: Mapping[str, Any]) -> ItemAnswer | None:
    """The chosen and gold option as letters of their original index; None without integer indices."""
    gold, chosen = data.get("gold"), data.get("chosen")
    if not isinstance(gold, int) or not isinstance(chosen, int) or isinstance(gold, bool) or not 0 <= gold < 26:
        return None
    letter = chr(ord("A") + chosen) if 0 <= chosen < 26 else ""
    return ItemAnswer(chosen=letter, gold=chr(ord("A") + gold), probabilities=_probabilities(data))


def _probabilities(data: Mapping[str, Any]) -> dict[str, float]:
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
