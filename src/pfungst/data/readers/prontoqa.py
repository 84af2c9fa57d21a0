"""ProntoQA (Saparov & He 2023) as distributed by Logic-LM: a JSON list of true / false questions.

Each element is ``{id, context, question, options: ["A) True", "B) False"], answer: "A"|"B", explanation}``.
Every item's options are the same two, so the benchmark uses the shared labels ``True`` and ``False`` (in that
order): the ``A) `` / ``B) `` prefixes are stripped, the stripped options must be exactly ``True``, ``False`` (an
error naming ``options`` otherwise), and the answer letter picks the label. The text a model sees is
``context + "\\n" + question``; ``fields`` hold ``context`` and ``question``; ``metadata`` keeps ``explanation``
(the chain of reasoning steps). Item ids are the source's ``id``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pfungst.data.answers import AnswerError, resolve_answer
from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_array_element
from pfungst.data.records import iter_json_array

__all__ = ["ProntoQaReader"]

_LABELS = ("True", "False")
_PREFIX = re.compile(r"^\s*[A-Z]\)\s*")
_KEYS = {"id", "context", "question", "options", "answer"}


class ProntoQaReader:
    """ProntoQA ``dev.json`` (Logic-LM layout), read as a True / False task."""

    name = "prontoqa"
    description = "ProntoQA JSON list {id, context, question, options: ['A) True', 'B) False'], answer}"

    def sniff(self, path: Path) -> bool:
        first = first_array_element(path)
        if not isinstance(first, dict) or not set(first) >= _KEYS or not isinstance(first["options"], list):
            return False
        return tuple(_PREFIX.sub("", str(option)) for option in first["options"]) == _LABELS

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        """Read one ProntoQA JSON file; raises :class:`~pfungst.errors.ReaderError` naming record line and key."""
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options, labels=_LABELS)
        builder.add_records(iter_json_array(path), _add)
        return builder.build(f"prontoqa-{path.stem}")


def _add(builder: BenchmarkBuilder, line: int, data: dict[str, Any]) -> None:
    context = builder.string(line, data, "context")
    question = builder.string(line, data, "question")
    options = data.get("options")
    if not isinstance(options, list) or not all(isinstance(option, str) for option in options):
        raise builder.error(line, "options", f"expected a list of strings, found {options!r}")
    stripped = tuple(_PREFIX.sub("", option) for option in options)
    if stripped != _LABELS:
        raise builder.error(
            line,
            "options",
            f"expected ['A) True', 'B) False'], found {options!r}",
            "ProntoQA items choose between True and False",
        )
    if "answer" not in data:
        raise builder.error(line, "answer", "missing field 'answer'")
    try:
        gold = resolve_answer(data["answer"], stripped, "letter")
    except AnswerError as error:
        raise builder.error(line, "answer", error.reason, "ProntoQA answers are the letters A or B") from None
    builder.add(
        line=line,
        id=str(data.get("id") or ""),
        text=f"{context}\n{question}",
        gold=_LABELS[gold],
        fields={"context": context, "question": question},
        metadata={"explanation": data.get("explanation", [])},
        text_field="question",
        options_field="options",
    )
