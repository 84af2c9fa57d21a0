"""inspect_ai eval logs (``.eval`` and ``.json``): right or wrong per item, for joining with an audit.

The log is read by :func:`pfungst.integrations.inspect_log.read_inspect_log`. ``metric=`` names the scorer to read
(default: ``pfungst_choice`` where present, else the first); its ``C`` / ``I`` (or 1 / 0) value says right or wrong.
The model is the log's model (``openai-api/llamacpp/smollm2``), the dataset the log's dataset name, else its task.

A plain task: one outcome per sample id. A task expanded by the pfungst extension (samples with ``pfungst``
metadata): one arrangement per original item, as for pfungst's own stress outcomes: ``variant=`` picks a
perturbation or ``perturbation:variant`` (``cyclic:shift 1``); by default each item in its original order (the
``identity`` perturbation where the task has it, else the first perturbation's original-order arrangement). The other
arranged samples are counted as skipped.
"""

from __future__ import annotations

from pathlib import Path

from pfungst.errors import ReaderError
from pfungst.evaluate.outcome import Outcome
from pfungst.integrations.inspect_log import InspectLog, is_inspect_log, read_inspect_log
from pfungst.reliance.outcomes import ModelOutcomes, OutcomeRequest, OutcomesBuilder

__all__ = ["read", "sniff"]


def sniff(path: Path, name: str) -> bool:
    """An inspect ``.eval`` archive, or a ``.json`` log that opens as inspect writes it."""
    return is_inspect_log(path)


def read(path: Path, request: OutcomeRequest, name: str) -> tuple[ModelOutcomes, ...]:
    """One model's outcomes on the log's dataset."""
    log = read_inspect_log(path, scorer=request.metric)
    builder = OutcomesBuilder(path, name, request.name_model(log.model), request.name_dataset(log.dataset))
    builder.n_skipped = log.n_skipped
    builder.n_duplicates = log.n_duplicates
    builder.metadata.update({"task": log.task, "scorer": log.scorer, "status": log.status})
    if not log.outcomes:
        if request.variant is not None:
            raise ReaderError(path, 0, "variant", f"variant={request.variant!r}, but the log holds no arranged samples")
        for line, (sample_id, correct) in enumerate(log.correct.items(), start=1):
            builder.add(sample_id, correct, line, field="id")
        builder.selection = f"scorer {log.scorer}"
        return (builder.build(),)
    chosen, description = _selected(log, request.variant)
    builder.n_skipped += len(log.outcomes) - len(chosen)
    for line, outcome in enumerate(chosen, start=1):
        builder.n_unparsed += outcome.status != "ok"
        builder.add(outcome.item_id, outcome.correct, line, field="metadata.pfungst")
    if not chosen:
        found = sorted({f"{o.perturbation}:{o.variant}" for o in log.outcomes})
        status = "" if log.status == "success" else f" (the run's status is '{log.status}': it stopped early)"
        raise ReaderError(
            path,
            0,
            "variant",
            f"no arranged sample of {description}{status}",
            f"Pass variant= one of: {', '.join(found)}, or leave this log out",
        )
    builder.selection = f"scorer {log.scorer}, {description}"
    return (builder.build(),)


def _selected(log: InspectLog, variant: str | None) -> tuple[list[Outcome], str]:
    """The outcomes of one arrangement per item, and what was chosen in words."""
    if variant is not None:
        perturbation, _, member = (part.strip() for part in variant.partition(":"))
        chosen = [o for o in log.outcomes if o.perturbation == perturbation and member in ("", o.variant)]
        return chosen, f"perturbation {perturbation}" + (f", variant {member}" if member else "")
    names = list(dict.fromkeys(o.perturbation for o in log.outcomes))
    perturbation = "identity" if "identity" in names else names[0]
    chosen = [o for o in log.outcomes if o.perturbation == perturbation and o.order == tuple(range(o.n_options))]
    return chosen, f"perturbation {perturbation}, original order"
