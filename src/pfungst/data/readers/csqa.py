"""CommonsenseQA (Talmor et al. 2019): ARC-shaped JSON lines whose question also names a ``question_concept``.

Each record is ``{id, question: {question_concept, stem, choices: [{label, text}]}, answerKey}``; parsing and
the rule for the gold option (the choice whose label equals ``answerKey``) are ARC's. Options repeated within an
item (24 items in the dev split) are kept and reported as warnings in provenance, not errors (unless ``strict``).
"""

from __future__ import annotations

from pathlib import Path

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.arc import is_choice_question, parse_question
from pfungst.data.readers.sniffing import first_json_record
from pfungst.data.records import iter_jsonl

__all__ = ["CommonsenseQaReader"]


class CommonsenseQaReader:
    """CommonsenseQA JSON lines (train / dev splits, which carry ``answerKey``)."""

    name = "csqa"
    description = "CommonsenseQA JSON lines {id, question: {question_concept, stem, choices}, answerKey}"

    def sniff(self, path: Path) -> bool:
        record = first_json_record(path)
        return record is not None and is_choice_question(record) and "question_concept" in record["question"]

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options)
        for record in iter_jsonl(path):
            with builder.row(record.line):
                parsed = parse_question(builder, record.line, record.data())
                concept = parsed.question.get("question_concept")
                builder.add(
                    line=record.line,
                    id=parsed.id,
                    text=parsed.stem,
                    options=parsed.options,
                    gold=parsed.gold,
                    fields={"question": parsed.stem},
                    metadata={"question_concept": "" if concept is None else str(concept),
                              "labels": parsed.labels, "answer_key": parsed.answer_key},
                    text_field="question.stem",
                    options_field="question.choices",
                )
        return builder.build(path.stem)
