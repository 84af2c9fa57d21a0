"""CommonsenseQA (Talmor et al. 2019): ARC-shaped JSON lines whose question also names a ``question_concept``.

Each record is ``{id, question: {question_concept, stem, choices: [{label, text}]}, answerKey}``; parsing and
the rule for the gold option (the choice whose label equals ``answerKey``) are ARC's. Options repeated within an
item (24 items in the dev split) are kept and reported as warnings in provenance, not errors (unless ``strict``).
"""

from __future__ import annotations

from pathlib import Path

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.arc import is_choice_question, read_choice_questions
from pfungst.data.readers.sniffing import first_json_record

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
        return read_choice_questions(path, builder, extra_metadata=("question_concept",))
