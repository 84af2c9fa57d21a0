"""Chat-prompt JSON lines with an ``ideal`` answer, as in the "kinds of reasoning" collection of Pacchiardi et al.

Each line holds ``input``, a list of chat messages (a system instruction and one user message), and ``ideal``, the
gold answer (a string, or a list of acceptable strings that must all name one label). This is the samples format of
OpenAI ``evals``; the files cover fantasy_reasoning, metaphor_boolean, anli, space_nli, babi_task_16, alpha_nli,
copa and cosmos_qa.

Every task answers from one small label set, even where the options are spelled out in the prompt (alpha_nli,
copa and cosmos_qa ask for a letter or number; babi_task_16 for one of four colours), so the items are
shared-label items, as Pacchiardi et al. used them. A label is ``ideal`` stripped, without one trailing full stop
(fantasy_reasoning writes ``"Yes."``) and lower-cased, as they did; the label set is the sorted distinct labels,
and the original spelling stays in ``metadata["ideal"]``.

``text`` is the user message (the system instruction is the same for every item of a task). ``fields`` hold
``system``, ``user`` and, for partial-input baselines, the headed parts of the user message (``context``,
``premise``, ``hypothesis``, ``question``, ``fact``) and its option lines (``A. ...`` or ``1. ...``) as
``option_A``, ``option_1``, .... Other keys of a line (``id``, ``genre``, ``tag``, ...) go into metadata; ``id``,
where present, is the item id.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_json_record
from pfungst.data.records import iter_jsonl

__all__ = ["KindsOfReasoningReader"]

_HEADING = re.compile(r"^(Context|Premise|Hypothesis|Question|Fact):\s*(.*)$")
_OPTION = re.compile(r"^([A-H]|[1-9])\.\s+(.*)$")
_EVALS_LOG_KEYS = {"spec", "sample_id", "run_id", "type", "final_report"}


class KindsOfReasoningReader:
    """Chat JSON lines ``{"input": [messages], "ideal": answer}``: one shared-label item per line."""

    name = "kinds-of-reasoning"
    description = "chat JSON lines {input: [system, user messages], ideal} (evals samples; Pacchiardi et al. tasks)"

    def sniff(self, path: Path) -> bool:
        record = first_json_record(path)
        if record is None or "ideal" not in record or _EVALS_LOG_KEYS & set(record):
            return False
        messages = record.get("input")
        return (
            isinstance(messages, list)
            and bool(messages)
            and all(isinstance(m, dict) and {"role", "content"} <= set(m) for m in messages)
        )

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options, labels=())
        builder.add_records(iter_jsonl(path), _add)
        return builder.build(path.name.split(".")[0])


def _normalise_label(value: str) -> str:
    """The label an ``ideal`` answer stands for: stripped, without one trailing full stop, lower-cased."""
    label = value.strip()
    return label[:-1].rstrip().lower() if label.endswith(".") and len(label) > 1 else label.lower()


def _add(builder: BenchmarkBuilder, line: int, data: dict[str, Any]) -> None:
    system, user = _messages(builder, line, data)
    ideal = data.get("ideal")
    builder.add(
        line=line,
        id=str(data["id"]) if isinstance(data.get("id"), str | int) else "",
        text=user,
        gold=_label(builder, line, ideal),
        fields={"system": system, "user": user, **_parts(user)},
        metadata={
            "ideal": ideal,
            **{k: v for k, v in data.items() if k not in ("input", "ideal", "id") and _scalar(v)},
        },
        text_field="input",
        options_field="ideal",
    )


def _messages(builder: BenchmarkBuilder, line: int, data: dict[str, Any]) -> tuple[str, str]:
    """(system, user) from the ``input`` messages; exactly one user message is expected."""
    if "input" not in data:
        raise builder.error(line, "input", "missing field 'input'", "Each line needs the chat messages")
    messages = data["input"]
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise builder.error(line, "input", f"expected a list of chat messages, found {type(messages).__name__}")
    users = [m.get("content") for m in messages if m.get("role") == "user"]
    if len(users) != 1:
        raise builder.error(line, "input", f"expected one user message, found {len(users)}")
    if not isinstance(users[0], str):
        raise builder.error(line, "input", f"the user message's content is a {type(users[0]).__name__}, not text")
    systems = [str(m.get("content", "")) for m in messages if m.get("role") == "system"]
    return "\n".join(systems), users[0]


def _label(builder: BenchmarkBuilder, line: int, ideal: Any) -> str:
    """The one label that ``ideal`` names (a list of acceptable answers must all normalise to it)."""
    if ideal is None:
        raise builder.error(line, "ideal", "missing field 'ideal'", "Each line needs the gold answer")
    answers = ideal if isinstance(ideal, list) else [ideal]
    if not answers or not all(isinstance(a, str) for a in answers):
        raise builder.error(line, "ideal", f"expected a string or a list of strings, found {ideal!r}")
    labels = {_normalise_label(a) for a in answers}
    if len(labels) > 1:
        raise builder.error(
            line,
            "ideal",
            f"the acceptable answers {ideal!r} name {len(labels)} different labels",
            "A shared-label item needs one gold label",
        )
    label = labels.pop()
    if not label:
        raise builder.error(line, "ideal", "the gold answer is empty")
    return label


def _parts(user: str) -> dict[str, str]:
    """The headed parts (``Context: ...``) and option lines (``A. ...``) of a user message, by name."""
    parts: dict[str, str] = {}
    current = ""
    for text in user.split("\n"):
        heading, option = _HEADING.match(text), _OPTION.match(text)
        if heading:
            current = heading[1].lower()
            parts[current] = heading[2]
        elif option:
            current = ""
            parts[f"option_{option[1]}"] = option[2].strip()
        elif current:
            parts[current] += "\n" + text
    return {name: value.strip() for name, value in parts.items()}


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
