"""OpenAI ``evals`` record logs: model and task from the spec line, correctness by pfungst's parse rule.

:func:`pfungst.data.read_model_answers` does the reading; its rule (first line or first word of the stripped,
lower-cased completion must be a label) replaces evals' own ``match.correct`` (a case-sensitive prefix test), which
marks ``"\\n\\nYes"`` against ``"Yes"`` wrong. Unparseable completions count as wrong and are counted. Each item's
answer (the parsed label, the key, and the user message as text) is kept in ``ModelOutcomes.answers``.
"""

from __future__ import annotations

from pathlib import Path

from pfungst.data.builder import ReadOptions
from pfungst.data.readers.openai_evals import OpenAIEvalsReader, read_model_answers
from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes, OutcomeRequest, OutcomesBuilder

__all__ = ["read", "sniff"]


def sniff(path: Path, name: str) -> bool:
    """True for a JSON-lines file whose first line is an evals spec."""
    return path.suffix.lower() == ".jsonl" and OpenAIEvalsReader().sniff(path)


def read(path: Path, request: OutcomeRequest, name: str) -> tuple[ModelOutcomes, ...]:
    """One model's outcomes on one task."""
    request.warn_unused(name, "metric", "variant")
    answers = read_model_answers(path)
    texts = _texts(path)
    builder = OutcomesBuilder(
        path,
        name,
        request.name_model(answers.model),
        request.name_dataset(answers.task),
        "pfungst's parse rule (first line or word of the completion is the label)",
    )
    for line, answer in enumerate(answers.answers, start=1):
        chosen = ItemAnswer(chosen=answer.parsed, gold=answer.expected, text=texts.get(answer.item_id, ""))
        builder.add(answer.item_id, answer.correct, line, answer=chosen)
    builder.n_unparsed = answers.unparsed
    builder.metadata["evals_accuracy"] = answers.to_dict()["evals_accuracy"]
    builder.metadata["labels"] = list(answers.labels)
    return (builder.build(),)


def _texts(path: Path) -> dict[str, str]:
    """Item id -> the user message, read by the benchmark reader of the same log."""
    return {item.id: item.text for item in OpenAIEvalsReader().read(path, ReadOptions())}
