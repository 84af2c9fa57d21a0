"""HELM run folders: ``per_instance_stats.json`` beside ``run_spec.json``, in a folder named after the run.

``per_instance_stats.json`` is a list with one entry per (instance, train trial, perturbation):
``{"instance_id": "id123", "train_trial_index": 0, "perturbation": null | {...}, "stats": [{"name": {"name":
"exact_match", "split": "test", ...}, "count": 1, "sum": 1.0, "mean": 1.0, ...}]}`` (HELM's ``PerInstanceStats``
and ``Stat`` / ``MetricName`` dataclasses, serialised). An instance is correct where the chosen stat
(``metric=``, default ``exact_match``) has mean 1 and wrong where it is 0; other values are an error. Only
unperturbed entries of train trial 0 are taken (HELM's robustness and fairness perturbations, and further trials
with other in-context examples, are counted as skipped); a stat whose name carries a perturbation is passed over.

The model is ``model=``, else ``run_spec.json``'s ``adapter_spec.model`` (``openai/gpt2``), else the ``model=``
argument of the run name (``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2``). The dataset is
``dataset=``, else the run name without its ``model=`` argument (``mmlu:subject=anatomy,method=...``). The run name
is ``run_spec.json``'s ``name``, else the folder's name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.readers.sniffing import first_array_element
from pfungst.data.records import iter_json_array, json_value
from pfungst.errors import ReaderError
from pfungst.reliance.outcomes import ModelOutcomes, OutcomeRequest, OutcomesBuilder, item_id

__all__ = ["read", "run_names", "sniff"]

_DEFAULT_METRIC = "exact_match"


def sniff(path: Path, name: str) -> bool:
    """``per_instance_stats.json``, or a JSON array whose first entry has ``instance_id`` and ``stats``."""
    if path.name == "per_instance_stats.json":
        return True
    first = first_array_element(path)
    return isinstance(first, dict) and "instance_id" in first and "stats" in first


def run_names(run: str) -> tuple[str, str]:
    """(dataset, model) from a HELM run name: the name without its ``model=`` argument, and that argument.

    Example:
        >>> run_names("mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2")
        ('mmlu:subject=anatomy,method=multiple_choice_joint', 'openai_gpt2')
    """
    scenario, _, arguments = run.partition(":")
    kept, model = [], ""
    for argument in arguments.split(",") if arguments else []:
        key, _, value = argument.partition("=")
        if key == "model":
            model = value
        else:
            kept.append(argument)
    return (f"{scenario}:{','.join(kept)}" if kept else scenario), model


def read(path: Path, request: OutcomeRequest, name: str) -> tuple[ModelOutcomes, ...]:
    """One model's outcomes on one HELM run."""
    request.warn_unused(name, "variant")
    metric = request.metric or _DEFAULT_METRIC
    spec = _run_spec(path.parent / "run_spec.json")
    dataset, model = run_names(str(spec.get("name") or path.parent.name))
    adapter = spec.get("adapter_spec")
    model = str(adapter.get("model") or model) if isinstance(adapter, dict) else model
    builder = OutcomesBuilder(
        path,
        name,
        request.name_model(model),
        request.name_dataset(dataset),
        f"stat {metric} == 1, unperturbed, train trial 0",
    )
    for record in iter_json_array(path):
        entry = record.data()
        if not isinstance(entry, dict):
            raise ReaderError(path, record.line, "(entry)", f"expected an object, found {type(entry).__name__}")
        if entry.get("perturbation") or entry.get("train_trial_index", 0) != 0:
            builder.n_skipped += 1
            continue
        if "instance_id" not in entry:
            raise ReaderError(path, record.line, "instance_id", "missing", "Expected HELM per-instance stats")
        builder.add(
            item_id(entry["instance_id"], path, record.line, "instance_id"),
            _correct(path, record.line, entry, metric),
            record.line,
            field="instance_id",
        )
    return (builder.build(),)


def _run_spec(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise ReaderError(path, 0, "", f"cannot read it ({exc.strerror or exc})") from None
    spec = json_value(text, path)
    return spec if isinstance(spec, dict) else {}


def _correct(path: Path, line: int, entry: dict[str, Any], metric: str) -> bool:
    stats = entry.get("stats")
    if not isinstance(stats, list):
        raise ReaderError(path, line, "stats", f"expected a list of stats, found {type(stats).__name__}")
    found = []
    for stat in stats:
        label = stat.get("name") if isinstance(stat, dict) else None
        if not isinstance(label, dict):
            continue
        found.append(str(label.get("name")))
        if label.get("name") == metric and not label.get("perturbation"):
            value = stat.get("mean")
            if isinstance(value, int | float) and not isinstance(value, bool) and value in (0, 1):
                return bool(value)
            raise ReaderError(
                path,
                line,
                f"stats.{metric}.mean",
                f"expected 0 or 1, found {value!r}",
                "Reliance needs a right/wrong stat such as exact_match",
            )
    raise ReaderError(
        path,
        line,
        f"stats.{metric}",
        f"no such stat for instance {entry.get('instance_id')!r}; found: {', '.join(sorted(set(found)))}",
        "Pass metric= one of those",
    )
