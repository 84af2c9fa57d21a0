"""ARC (Clark et al. 2018): AI2's JSON lines ``{id, question: {stem, choices: [{text, label}]}, answerKey}``.

The gold option is the choice whose ``label`` equals ``answerKey`` (labels are ``A``-``E`` or ``1``-``5``),
never a position; the original labels are kept in each item's metadata. CommonsenseQA files share this shape and
reuse :func:`parse_question` (its reader claims the files whose question has a ``question_concept``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_json_record
from pfungst.data.records import iter_jsonl

__all__ = ["read_choice_questions", "ArcReader", "ChoiceQuestion", "is_choice_question", "parse_question"]


class ChoiceQuestion(NamedTuple):
    """One AI2-style question record, validated: options in source order and the gold index."""

    id: str
    stem: str
    options: list[str]
    gold: int
    labels: list[str]
    answer_key: str
    question: dict[str, Any]
    """The raw ``question`` object, for readers that keep more of it (CommonsenseQA's concept)."""


class ArcReader:
    """ARC-Challenge / ARC-Easy JSON lines as AI2 publishes them."""

    name = "arc"
    description = "ARC JSON lines {id, question: {stem, choices: [{text, label}]}, answerKey}"

    def sniff(self, path: Path) -> bool:
        record = first_json_record(path)
        if record is None or not is_choice_question(record):
            return False
        return "question_concept" not in record["question"]

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        return read_choice_questions(path, BenchmarkBuilder(path, self.name, options))


def read_choice_questions(path: Path, builder: BenchmarkBuilder, extra_metadata: tuple[str, ...] = ()) -> Benchmark:
    """Read AI2-style question records into ``builder``; ``extra_metadata`` names ``question`` keys to keep."""
    for record in iter_jsonl(path):
        with builder.row(record.line):
            parsed = parse_question(builder, record.line, record.data())
            extra = {
                key: "" if parsed.question.get(key) is None else str(parsed.question[key]) for key in extra_metadata
            }
            builder.add(
                line=record.line,
                id=parsed.id,
                text=parsed.stem,
                options=parsed.options,
                gold=parsed.gold,
                fields={"question": parsed.stem},
                metadata={**extra, "labels": parsed.labels, "answer_key": parsed.answer_key},
                text_field="question.stem",
                options_field="question.choices",
            )
    return builder.build(path.stem)


def is_choice_question(record: dict[str, Any] | None) -> bool:
    """Whether a parsed first record looks like an AI2 question record (for ``sniff``; never raises)."""
    if not isinstance(record, dict) or not {"id", "question", "answerKey"} <= set(record):
        return False
    question = record["question"]
    return (
        isinstance(question, dict)
        and isinstance(question.get("stem"), str)
        and isinstance(question.get("choices"), list)
    )


def parse_question(builder: BenchmarkBuilder, line: int, data: dict[str, Any]) -> ChoiceQuestion:
    """Validate one ``{id, question: {stem, choices}, answerKey}`` record; find the gold option by its label.

    Raises:
        ReaderError: a field is missing or has the wrong type, or ``answerKey`` names no label (or several).
    """
    for key in ("question", "answerKey"):
        if key not in data:
            raise builder.error(line, key, f"missing field '{key}'")
    question = data["question"]
    if not isinstance(question, dict):
        found = type(question).__name__
        raise builder.error(line, "question", f"expected an object {{stem, choices}}, found {found}")
    stem = question.get("stem")
    if not isinstance(stem, str):
        found = "nothing" if stem is None else type(stem).__name__
        raise builder.error(line, "question.stem", f"expected the question text, found {found}")
    options, labels = _choices(builder, line, question.get("choices"))
    answer_key = str(data["answerKey"]).strip()
    matches = [i for i, label in enumerate(labels) if label == answer_key]
    if len(matches) != 1:
        problem = "matches several choice labels" if matches else "is not the label of any choice"
        raise builder.error(
            line,
            "answerKey",
            f"{answer_key!r} {problem} ({', '.join(labels)})",
            "The answer key must equal exactly one choice's label",
        )
    item_id = data.get("id")
    return ChoiceQuestion(
        id="" if item_id is None else str(item_id),
        stem=stem,
        options=options,
        gold=matches[0],
        labels=labels,
        answer_key=answer_key,
        question=question,
    )


def _choices(builder: BenchmarkBuilder, line: int, choices: Any) -> tuple[list[str], list[str]]:
    """The option texts and their labels, in source order."""
    if not isinstance(choices, list):
        found = "nothing" if choices is None else type(choices).__name__
        raise builder.error(line, "question.choices", f"expected a list of {{text, label}}, found {found}")
    options, labels = [], []
    for position, choice in enumerate(choices):
        field = f"question.choices[{position}]"
        if not isinstance(choice, dict):
            found = type(choice).__name__
            raise builder.error(line, field, f"expected an object {{text, label}}, found {found}")
        for key in ("text", "label"):
            if not isinstance(choice.get(key), str | int) or isinstance(choice.get(key), bool):
                raise builder.error(line, f"{field}.{key}", f"missing or not a string: {choice.get(key)!r}")
        options.append(str(choice["text"]))
        labels.append(str(choice["label"]).strip())
    return options, labels
