"""CommonsenseQA 2.0 (Talmor et al. 2021): gzipped JSON lines of yes / no questions.

Each record is ``{id, question, answer, confidence, date, relational_prompt, topic_prompt, ...}``. Every item
chooses between the shared labels ``yes`` and ``no`` (in that order); ``answer`` must be one of them exactly.
The other fields (annotator confidence, the prompts that seeded the question, the validators' answers) are kept
as metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_json_record
from pfungst.data.records import iter_jsonl

__all__ = ["CommonsenseQa2Reader"]

_LABELS = ("yes", "no")
_PROVENANCE_KEYS = ("confidence", "relational_prompt", "topic_prompt", "validations")


class CommonsenseQa2Reader:
    """CommonsenseQA 2.0 JSON lines (``CSQA2_{train,dev}.json[.gz]``)."""

    name = "csqa2"
    description = "CommonsenseQA 2.0 JSON lines {id, question, answer: yes|no, confidence, ...}, maybe gzipped"

    def sniff(self, path: Path) -> bool:
        record = first_json_record(path)
        return (
            record is not None
            and isinstance(record.get("question"), str)
            and record.get("answer") in _LABELS
            and "id" in record
            and any(key in record for key in _PROVENANCE_KEYS)
        )

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options, labels=_LABELS)
        builder.add_records(iter_jsonl(path), _add)
        name = path.name.removesuffix(".gz").removesuffix(".json").removesuffix(".jsonl")
        return builder.build(name)


def _add(builder: BenchmarkBuilder, line: int, data: dict[str, Any]) -> None:
    for key in ("question", "answer"):
        if key not in data:
            raise builder.error(line, key, f"missing field '{key}'")
    question, answer = data["question"], data["answer"]
    if not isinstance(question, str):
        raise builder.error(line, "question", f"expected the question text, found {type(question).__name__}")
    if answer not in _LABELS:
        raise builder.error(
            line, "answer", f"{answer!r} is not 'yes' or 'no'", "CommonsenseQA 2.0 answers are lower-case yes / no"
        )
    metadata = {key: value for key, value in data.items() if key not in ("id", "question", "answer")}
    item_id = data.get("id")
    builder.add(
        line=line,
        id="" if item_id is None else str(item_id),
        text=question,
        gold=answer,
        fields={"question": question},
        metadata=metadata,
        text_field="question",
        options_field="answer",
    )
