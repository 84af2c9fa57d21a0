"""llm-foundry's normalised in-context-learning JSON lines, in its two multiple-choice layouts.

* ``multiple_choice``: ``{query, choices, gold}``. The text is ``query`` as the file writes it (with
  llm-foundry's ``Question:`` / ``Passage:`` prefixes), the options are ``choices``, ``gold`` a 0-based index.
* ``schema`` (WinoGrande): ``{context_options, continuation, gold}``. Here the *contexts* differ and the
  continuation is shared, scored after each context. The options are the context options and the text is the
  continuation; ``gold`` indexes the context options. ``metadata["layout"]`` names the item's layout. Twin
  sentences share a continuation, so in this layout equal texts (``duplicate_texts``) are expected.

Items carry no ids in these files; an item's id is ``<file stem>/<line>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pfungst.data.answers import AnswerError, resolve_answer
from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import BenchmarkBuilder, ReadOptions
from pfungst.data.readers.sniffing import first_json_record
from pfungst.data.records import iter_jsonl

__all__ = ["LlmFoundryReader"]

# layout name -> (text key, options key)
_LAYOUTS = {"multiple_choice": ("query", "choices"), "schema": ("continuation", "context_options")}


class LlmFoundryReader:
    """llm-foundry ``{query, choices, gold}`` and ``{context_options, continuation, gold}`` JSON lines."""

    name = "llm-foundry"
    description = "llm-foundry JSON lines {query, choices, gold} or {context_options, continuation, gold}"

    def sniff(self, path: Path) -> bool:
        record = first_json_record(path)
        if record is None or not isinstance(record.get("gold"), int) or isinstance(record.get("gold"), bool):
            return False
        text_key, options_key = _LAYOUTS[_layout(record)]
        return isinstance(record.get(text_key), str) and isinstance(record.get(options_key), list)

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [])
        builder = BenchmarkBuilder(path, self.name, options)
        builder.add_records(iter_jsonl(path), _add, path.stem)
        return builder.build(path.stem)


def _layout(record: dict[str, Any]) -> str:
    """The layout a record is meant to be in: ``schema`` when it has a schema key, else ``multiple_choice``."""
    return "schema" if "context_options" in record or "continuation" in record else "multiple_choice"


def _add(builder: BenchmarkBuilder, line: int, data: dict[str, Any], stem: str) -> None:
    layout = _layout(data)
    text_key, options_key = _LAYOUTS[layout]
    for key in (text_key, options_key, "gold"):
        if key not in data:
            raise builder.error(
                line,
                key,
                f"missing field '{key}'",
                "Records need {query, choices, gold} or {context_options, continuation, gold}",
            )
    text, choices = data[text_key], data[options_key]
    if not isinstance(text, str):
        raise builder.error(line, text_key, f"expected a string, found {type(text).__name__}")
    if not isinstance(choices, list):
        raise builder.error(line, options_key, f"expected a list of options, found {type(choices).__name__}")
    for position, choice in enumerate(choices):
        if not isinstance(choice, str):
            raise builder.error(line, f"{options_key}[{position}]", f"expected a string, found {choice!r}")
    builder.check_options(line, choices, options_key)
    try:
        gold = resolve_answer(data["gold"], choices, "index")
    except AnswerError as error:
        raise builder.error(line, "gold", error.reason, "llm-foundry's gold is a 0-based index") from None
    builder.add(
        line=line,
        id=f"{stem}/{line}",
        text=text,
        options=choices,
        gold=gold,
        fields={text_key: text},
        metadata={"layout": layout},
        text_field=text_key,
        options_field=options_key,
    )
