"""lm-evaluation-harness ``--log_samples`` files: ``<output>/<model>/samples_<task>_<date>.jsonl``.

Each line is one document: ``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``, ``filtered_resps``,
``filter``, ``metrics`` (the metric names) and one key per metric (``"acc": 1.0``). An item is correct where the
chosen metric (``metric=``, default ``acc``; ``exact_match`` for generation tasks) is 1 and wrong where it is 0;
any other value is an error, since reliance needs right or wrong. The item id is ``doc["id"]`` when the document
has one, else ``str(doc_id)``.

The file names no model: ``model=``, else the parent folder's name as lm-eval wrote it (``/`` in a model name
becomes ``__``). The dataset is ``dataset=``, else the task from the file name. A task logged under several filters
(``strict-match`` and ``flexible-extract``) has one line per filter and document: the filter is ``variant=``, else
the first in the file; lines of other filters are counted as skipped.

For multiple-choice lines read by ``acc`` (``filtered_resps`` one ``[log-likelihood, is_greedy]`` pair per option,
an integer ``target``), each item's answer is kept: options are lettered A, B, ... in document order, the chosen
one is the largest log-likelihood (what ``acc`` scores), the probabilities are their softmax, and the text is the
document's ``question`` (or ``query``) if it has one.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from pfungst.data.readers.sniffing import first_json_record
from pfungst.data.records import iter_jsonl
from pfungst.errors import ReaderError
from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes, OutcomeRequest, OutcomesBuilder, item_id

__all__ = ["read", "sniff", "task_name"]

_FILE = re.compile(r"\Asamples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.:\-]+)\.jsonl\Z")
_DEFAULT_METRIC = "acc"


def task_name(path: Path) -> str:
    """The task in ``samples_<task>_<date>.jsonl``; the stem without ``samples_`` for other names.

    Example:
        >>> task_name(Path("out/m/samples_arc_easy_2024-05-01T12-00-00.123456.jsonl"))
        'arc_easy'
    """
    match = _FILE.match(path.name)
    return match["task"] if match else path.stem.removeprefix("samples_")


def sniff(path: Path, name: str) -> bool:
    """A JSON-lines file whose first line has ``doc_id`` and ``resps`` or ``filtered_resps``."""
    record = first_json_record(path) if path.suffix.lower() == ".jsonl" else None
    return record is not None and "doc_id" in record and ("resps" in record or "filtered_resps" in record)


def read(path: Path, request: OutcomeRequest, name: str) -> tuple[ModelOutcomes, ...]:
    """One model's outcomes on one task, under one filter."""
    metric = request.metric or _DEFAULT_METRIC
    wanted = request.variant
    builder = OutcomesBuilder(path, name, request.name_model(path.parent.name), request.name_dataset(task_name(path)))
    for record in iter_jsonl(path):
        data = record.data()
        line_filter = str(data.get("filter", "none"))
        wanted = line_filter if wanted is None else wanted
        if line_filter != wanted:
            builder.n_skipped += 1
            continue
        answer = _answer(data) if metric == _DEFAULT_METRIC else None
        builder.add(
            _item_id(path, record.line, data), _correct(path, record.line, data, metric), record.line, answer=answer
        )
    if not builder.build().correct:
        raise ReaderError(
            path, 0, "filter", f"no line has filter {wanted!r}", "Pass variant= one of the filters in the file"
        )
    builder.selection = f"metric {metric} == 1, filter {wanted}"
    return (builder.build(),)


def _item_id(path: Path, line: int, data: dict[str, Any]) -> str:
    doc = data.get("doc")
    if isinstance(doc, dict) and doc.get("id") not in (None, ""):
        return item_id(doc["id"], path, line, "doc.id")
    if "doc_id" not in data:
        raise ReaderError(path, line, "doc_id", "missing", "Expected a line written by lm-eval --log_samples")
    return item_id(data["doc_id"], path, line, "doc_id")


def _correct(path: Path, line: int, data: dict[str, Any], metric: str) -> bool:
    if metric not in data:
        present = data.get("metrics") or sorted(k for k, v in data.items() if isinstance(v, int | float))
        raise ReaderError(
            path,
            line,
            metric,
            f"no such metric on the line; found: {', '.join(map(str, present))}",
            "Pass metric= one of those",
        )
    value = data[metric]
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise ReaderError(
        path,
        line,
        metric,
        f"expected 0 or 1, found {value!r}",
        "Reliance needs a right/wrong metric such as acc or exact_match",
    )


def _answer(data: dict[str, Any]) -> ItemAnswer | None:
    """The chosen option, key and option probabilities of a multiple-choice line; None for other lines."""
    responses, target = data.get("filtered_resps"), data.get("target")
    if isinstance(target, str) and target.isdigit():
        target = int(target)
    if not isinstance(responses, list) or len(responses) < 2 or isinstance(target, bool) or not isinstance(target, int):
        return None
    try:
        loglikelihoods = [float(r[0] if isinstance(r, list | tuple) else r) for r in responses]
    except (TypeError, ValueError, IndexError):
        return None
    if not 0 <= target < len(loglikelihoods) or len(loglikelihoods) > 26:
        return None
    top = max(loglikelihoods)
    weights = [math.exp(value - top) for value in loglikelihoods]
    labels = [chr(ord("A") + index) for index in range(len(loglikelihoods))]
    doc = data.get("doc")
    doc = doc if isinstance(doc, dict) else {}
    text = next((str(doc[key]) for key in ("question", "query") if isinstance(doc.get(key), str)), "")
    return ItemAnswer(
        chosen=labels[loglikelihoods.index(top)],
        gold=labels[target],
        text=text,
        probabilities={label: weight / sum(weights) for label, weight in zip(labels, weights, strict=True)},
    )
