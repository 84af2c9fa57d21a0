"""OpenAI ``evals`` record logs (Pacchiardi et al. 2024): the items a model was asked, and what it answered.

A log is JSON lines: a ``spec`` line (``completion_fns`` names the model, ``base_eval`` the task), then per sample
a ``sampling`` event (``data.prompt``: the system and user messages; ``data.sampled``: the completions) and a
``match`` event (``data.expected``, ``data.correct``, ...), both keyed by ``sample_id``, and somewhere a
``final_report`` line. Other lines (``final_report``, other event types) are not samples and are passed over.

Items join the two events of each sample: ``id`` is the ``sample_id``, ``text`` the user message alone (what
differs between items), ``fields`` hold ``system`` and ``user``. Logs of completion models (``text-*``) store the
prompt rendered as one string, ``"{system}\\nUser: {user}\\nAssistant: "`` (evals' ``chat_prompt_to_text_prompt``);
it is split back, which gives the same fields as the chat models' logs of the same task. The gold label is
``expected`` stripped and lower-cased, as Pacchiardi et al. used it; the label set is the sorted distinct labels.
Items keep the order of the sampling events, which differs between the logs of different models (evals writes
events as requests complete): join models by item id. Duplicated prompts (2 in causal_judgment, both with
conflicting labels; 8 in neubaroco) are kept and counted in provenance.

A sampling event without its match event, or the reverse, is an error naming the orphan's line.

Model answers (:func:`read_model_answers`) and the correctness rule: evals' own ``match.correct`` is
``sampled.startswith(expected)`` on the raw completion, so ``"yes"`` against ``"Yes"``, or ``"\\n\\nYes"``, counts
as wrong. Here the completion is stripped and lower-cased and its first line taken; if that line, without
surrounding punctuation and quotes, is a label it is the answer, else its first word without surrounding
punctuation and quotes is, if that is a label. Otherwise ``parsed`` is ``""`` (unparseable, counted as wrong). An
answer is ``correct`` when ``parsed`` equals the item's label. On the 56 real logs this differs from
``match.correct`` only where evals said wrong and the completion, once leading whitespace and case are ignored,
starts with the expected answer.
"""

from __future__ import annotations

import re
import string
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_json_record
from pfungst.data.records import iter_jsonl
from pfungst.errors import ReaderError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ModelAnswer", "ModelAnswers", "OpenAIEvalsReader", "read_model_answers"]

_TEXT_PROMPT = re.compile(r"\A(?:(?P<system>.*?)\n)??User: (?P<user>.*)\nAssistant: \Z", re.DOTALL)
_STRIP = string.punctuation + string.whitespace + "\u201c\u201d\u2018\u2019\u00ab\u00bb"


class OpenAIEvalsReader:
    """OpenAI ``evals`` record logs: one item per sample, the gold label from the match event."""

    name = "openai-evals"
    description = "OpenAI evals record log (spec line, sampling + match events per sample); Pacchiardi et al. logs"

    def sniff(self, path: Path) -> bool:
        record = first_json_record(path)
        spec = record.get("spec") if record else None
        return isinstance(spec, dict) and "completion_fns" in spec and "run_id" in spec

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options, labels=())
        log = _scan(path, builder)
        for sample in log.samples:
            with builder.row(sample.line):
                joined = _join(builder, sample)
                builder.add(
                    line=sample.line,
                    id=sample.sample_id,
                    text=joined.user,
                    gold=joined.expected.strip().lower(),
                    fields={"system": joined.system, "user": joined.user},
                    metadata={
                        "task": log.task,
                        "model": log.model,
                        "expected": joined.expected,
                        "match_line": sample.match_line,
                    },
                    text_field="data.prompt",
                    options_field="data.expected",
                )
        return builder.build(log.task)


@dataclass(frozen=True)
class ModelAnswer:
    """One model's answer to one item, parsed and scored by the rule in the module docstring."""

    item_id: str
    """The item's id (the log's ``sample_id``), as in the benchmark read from the same log."""
    sampled: str
    """The raw completion."""
    expected: str
    """The gold label, normalised (stripped, lower-cased) as the benchmark's label."""
    parsed: str
    """The label the completion gives, or ``""`` when it gives none (unparseable)."""
    correct: bool
    """Whether ``parsed`` equals ``expected`` (our rule)."""
    evals_correct: bool
    """The log's own ``match.correct`` (``sampled.startswith(expected)``, case- and whitespace-sensitive)."""


@dataclass(frozen=True)
class ModelAnswers:
    """Every answer one model gave in one evals log, for reliance analyses (which cues predict success)."""

    model: str
    """The model, from ``spec.completion_fns``."""
    task: str
    """The task, from ``spec.base_eval``."""
    source: str
    """The log's path."""
    labels: tuple[str, ...]
    """The task's label set (sorted distinct normalised expected answers) that completions are parsed against."""
    answers: tuple[ModelAnswer, ...]
    """One answer per item, in log order."""

    def __len__(self) -> int:
        return len(self.answers)

    def __repr__(self) -> str:
        return f"ModelAnswers(model={self.model!r}, task={self.task!r}, n={len(self)}, accuracy={self.accuracy:.3f})"

    @property
    def accuracy(self) -> float:
        """Share of answers correct by our rule (0 when there are none)."""
        return sum(a.correct for a in self.answers) / len(self.answers) if self.answers else 0.0

    @property
    def unparsed(self) -> int:
        """How many completions gave none of the labels."""
        return sum(not a.parsed for a in self.answers)

    def to_frame(self) -> pd.DataFrame:
        """One row per item: model, item_id, sampled, expected, parsed, correct, evals_correct."""
        columns = ["model", "item_id", "sampled", "expected", "parsed", "correct", "evals_correct"]
        rows = [
            (self.model, a.item_id, a.sampled, a.expected, a.parsed, a.correct, a.evals_correct) for a in self.answers
        ]
        import pandas as pd  # here, not at the top: reading logs does not need pandas

        return pd.DataFrame(rows, columns=columns)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe summary with stable keys (counts, not the answers)."""
        return {
            "model": self.model,
            "task": self.task,
            "source": self.source,
            "labels": list(self.labels),
            "n": len(self),
            "accuracy": self.accuracy,
            "evals_accuracy": sum(a.evals_correct for a in self.answers) / len(self) if self.answers else 0.0,
            "unparsed": self.unparsed,
        }


def read_model_answers(path: str | Path) -> ModelAnswers:
    """Read what the model of an evals log answered to each item, and whether it was right.

    Args:
        path: An OpenAI ``evals`` record log (``pacchiardi/<task>/<model>.jsonl``).

    Raises:
        ReaderError: the log is malformed (names the file, line and field).

    Example:
        >>> import json, pathlib, tempfile
        >>> log = pathlib.Path(tempfile.mkdtemp()) / "m.jsonl"
        >>> events = [{"spec": {"completion_fns": ["m"], "base_eval": "t", "run_id": "r"}},
        ...     {"sample_id": "t.0", "type": "sampling", "data": {"prompt": [{"role": "user", "content": "Q?"}],
        ...      "sampled": ["\\n\\nYes."]}},
        ...     {"sample_id": "t.0", "type": "match", "data": {"expected": "yes", "correct": False}}]
        >>> _ = log.write_text("\\n".join(json.dumps(e) for e in events))
        >>> answer = read_model_answers(log).answers[0]
        >>> answer.parsed, answer.correct, answer.evals_correct
        ('yes', True, False)
    """
    path = Path(path)
    builder = BenchmarkBuilder(path, OpenAIEvalsReader.name, ReadOptions())
    log = _scan(path, builder)
    joined = []
    for sample in log.samples:
        with builder.row(sample.line):
            joined.append((sample.sample_id, _join(builder, sample)))
    labels = tuple(sorted({j.expected.strip().lower() for _, j in joined}))
    answers = []
    for item_id, j in joined:
        expected = j.expected.strip().lower()
        parsed = _parse(j.sampled, labels)
        answers.append(
            ModelAnswer(
                item_id=item_id,
                sampled=j.sampled,
                expected=expected,
                parsed=parsed,
                correct=parsed == expected,
                evals_correct=j.evals_correct,
            )
        )
    return ModelAnswers(model=log.model, task=log.task, source=str(path), labels=labels, answers=tuple(answers))


def _parse(completion: str, labels: Collection[str]) -> str:
    """The label a completion gives by the rule in the module docstring, or ``""``."""
    first_line = completion.strip().lower().split("\n", 1)[0]
    if first_line.strip(_STRIP) in labels:
        return first_line.strip(_STRIP)
    words = first_line.split()
    word = words[0].strip(_STRIP) if words else ""
    return word if word in labels else ""


@dataclass(frozen=True)
class _Sample:
    sample_id: str
    line: int
    sampling: dict[str, Any]
    match: dict[str, Any]
    match_line: int


@dataclass(frozen=True)
class _Log:
    model: str
    task: str
    samples: list[_Sample]


@dataclass(frozen=True)
class _Joined:
    system: str
    user: str
    sampled: str
    expected: str
    evals_correct: bool


def _scan(path: Path, builder: BenchmarkBuilder) -> _Log:
    """Pair each sampling event with its match event; every bad or orphan event goes through the error policy."""
    spec: dict[str, Any] | None = None
    events: dict[str, dict[str, tuple[int, dict[str, Any]]]] = {"sampling": {}, "match": {}}
    for record in iter_jsonl(path):
        if record.error is not None:
            _fail(builder, record.line, record.error)
            continue
        data = record.raw
        if "spec" in data and spec is None:
            spec = data["spec"] if isinstance(data["spec"], dict) else {}
        kind = data.get("type")
        if kind not in events:
            continue  # the spec, the final report, and event types that carry no sample
        sample_id = data.get("sample_id")
        if not isinstance(sample_id, str) or not sample_id:
            _fail(builder, record.line, builder.error(record.line, "sample_id", f"missing in a {kind} event"))
        elif sample_id in events[kind]:
            first = events[kind][sample_id][0]
            _fail(
                builder,
                record.line,
                builder.error(
                    record.line, "sample_id", f"a second {kind} event for {sample_id!r} (the first is on line {first})"
                ),
            )
        else:
            events[kind][sample_id] = (record.line, data)
    if spec is None:
        raise builder.error(1, "spec", "the log has no spec line", "Is this an OpenAI evals record log?")
    return _Log(model=_model(spec), task=_task(spec, path), samples=_pair(events, builder))


def _pair(events: dict[str, dict[str, tuple[int, dict[str, Any]]]], builder: BenchmarkBuilder) -> list[_Sample]:
    """Each sampling event with its match event, in log order; an orphan of either kind goes through the error
    policy."""
    samples = []
    orphan = "the {} event for {!r} has no {} event"
    for sample_id, (line, sampling) in events["sampling"].items():
        if sample_id not in events["match"]:
            message = orphan.format("sampling", sample_id, "match")
            _fail(builder, line, builder.error(line, "sample_id", message, "The log is truncated or was edited"))
            continue
        match_line, match = events["match"].pop(sample_id)
        samples.append(_Sample(sample_id, line, sampling, match, match_line))
    for sample_id, (line, _) in events["match"].items():
        message = orphan.format("match", sample_id, "sampling")
        _fail(builder, line, builder.error(line, "sample_id", message, "The log is truncated or was edited"))
    return samples


def _fail(builder: BenchmarkBuilder, line: int, error: ReaderError) -> None:
    """Count one bad source row and raise or reject it by the error policy."""
    with builder.row(line):
        raise error


def _model(spec: dict[str, Any]) -> str:
    functions = spec.get("completion_fns")
    if isinstance(functions, list) and functions:
        return ",".join(str(f) for f in functions)
    return ""


def _task(spec: dict[str, Any], path: Path) -> str:
    task = spec.get("base_eval") or str(spec.get("eval_name", "")).split(".")[0]
    return str(task) if task else path.parent.name


def _join(builder: BenchmarkBuilder, sample: _Sample) -> _Joined:
    """The parts of one sample, checked; errors name the line of the event that holds the bad field."""
    sampling, match = sample.sampling.get("data"), sample.match.get("data")
    if not isinstance(sampling, dict):
        raise builder.error(sample.line, "data", "the sampling event has no data object")
    if not isinstance(match, dict):
        raise builder.error(sample.match_line, "data", "the match event has no data object")
    system, user = _prompt(builder, sample.line, sampling.get("prompt"))
    sampled = sampling.get("sampled")
    if isinstance(sampled, list) and sampled and isinstance(sampled[0], str):
        sampled = sampled[0]
    if not isinstance(sampled, str):
        raise builder.error(sample.line, "data.sampled", f"expected a list of completions, found {sampled!r}")
    expected = match.get("expected")
    if isinstance(expected, list) and len(expected) == 1:
        expected = expected[0]
    if not isinstance(expected, str) or not expected.strip():
        raise builder.error(sample.match_line, "data.expected", f"expected one answer string, found {expected!r}")
    correct = match.get("correct")
    if not isinstance(correct, bool):
        raise builder.error(sample.match_line, "data.correct", f"expected true or false, found {correct!r}")
    return _Joined(system=system, user=user, sampled=sampled, expected=expected, evals_correct=correct)


def _prompt(builder: BenchmarkBuilder, line: int, prompt: Any) -> tuple[str, str]:
    """(system, user) from a chat prompt, or from a chat prompt rendered as text for a completion model."""
    if isinstance(prompt, str):
        match = _TEXT_PROMPT.match(prompt)
        if match is None:
            raise builder.error(
                line,
                "data.prompt",
                "a text prompt without 'User: ... Assistant: ' turns",
                "Expected evals' rendering of a system + user chat prompt",
            )
        return match["system"] or "", match["user"]
    if not isinstance(prompt, list) or not all(isinstance(m, dict) for m in prompt):
        raise builder.error(line, "data.prompt", f"expected a list of chat messages, found {type(prompt).__name__}")
    users = [m.get("content") for m in prompt if m.get("role") == "user"]
    if len(users) != 1 or not isinstance(users[0], str):
        raise builder.error(line, "data.prompt", f"expected one user message, found {len(users)}")
    systems = [str(m.get("content", "")) for m in prompt if m.get("role") == "system"]
    return "\n".join(systems), users[0]
