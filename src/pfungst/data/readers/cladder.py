"""CLadder (Jin et al. 2023): causal yes / no questions over a story's causal graph, one JSON list per file.

Each element is ``{question_id, desc_id, given_info, question, answer, meta, reasoning}`` with ``answer`` ``yes``
or ``no`` (the shared labels, in that order). The text a model sees is ``given_info + " " + question`` (just
``question`` when ``given_info`` is empty); ``fields`` hold ``given_info`` and ``question``. Item ids are
``question_id``; ``metadata`` keeps ``desc_id`` and, from ``meta``, ``rung``, ``query_type``, ``story_id``,
``graph_id``, ``model_id`` and ``polarity`` where present. The worked ``reasoning`` is not kept (it spells out the
answer and is not needed to audit the questions).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_array_element
from pfungst.data.records import iter_json_array

__all__ = ["CLadderReader"]

_HINT = "CLadder records have given_info, question, answer"

_LABELS = ("yes", "no")
_KEYS = {"question_id", "desc_id", "given_info", "question", "answer", "meta"}
_META_KEYS = ("rung", "query_type", "story_id", "graph_id", "model_id", "polarity")


class CLadderReader:
    """CLadder JSON lists (``cladder-v1-*.json``, ``test-generate-*.json``)."""

    name = "cladder"
    description = "CLadder JSON list {question_id, desc_id, given_info, question, answer: yes|no, meta}"

    def sniff(self, path: Path) -> bool:
        first = first_array_element(path)
        return isinstance(first, dict) and set(first) >= _KEYS

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        """Read one CLadder JSON file; raises :class:`~pfungst.errors.ReaderError` naming record line and key."""
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options, labels=_LABELS)
        builder.add_records(iter_json_array(path), _add)
        return builder.build(f"cladder-{path.stem}")


def _add(builder: BenchmarkBuilder, line: int, data: dict[str, Any]) -> None:
    given_info = builder.string(line, data, "given_info", allow_empty=True, hint=_HINT)
    question = builder.string(line, data, "question", hint=_HINT)
    answer = builder.string(line, data, "answer", hint=_HINT).strip()
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise builder.error(line, "meta", f"expected a JSON object, found a {type(meta).__name__}")
    metadata: dict[str, Any] = {"desc_id": data.get("desc_id", "")}
    metadata.update({key: meta[key] for key in _META_KEYS if key in meta})
    question_id = data.get("question_id")
    builder.add(
        line=line,
        id="" if question_id is None else str(question_id),
        text=f"{given_info} {question}" if given_info.strip() else question,
        gold=answer,
        fields={"given_info": given_info, "question": question},
        metadata=metadata,
        text_field="question",
        options_field="answer",
    )
