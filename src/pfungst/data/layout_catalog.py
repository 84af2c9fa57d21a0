"""The common layouts read without ``--map``, and the choice among those a table fits.

Published layouts (:data:`LAYOUTS`) come first, most specific first; the generic ones (a list column of options, or
one column per option such as ``A..D``, ``option_a..``, ``choice1..``, ``opa..``) are used only when none of the
published ones fits. When two layouts of the same rank fit and would read the file differently, the first is
chosen and :func:`choose_layout` says which, why and how to pick the other (``--map layout=NAME``); provenance
records the layout.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pfungst.data.layouts import Layout, LayoutRowError, OptionColumnsLayout, Reading
from pfungst.errors import ConfigError, unknown_name_message

__all__ = ["COPA_QUESTIONS", "LAYOUTS", "LayoutChoice", "choose_layout", "detect_layout", "layout_rows", "map_line"]

COPA_QUESTIONS = {"cause": "What was the CAUSE of this?", "effect": "What happened as a RESULT?"}
"""COPA's question for each ``asks-for`` value, written after the premise (by the XML reader and the layout)."""
_READING_KEYS = ("question", "text_template", "options", "option_columns", "answer", "answer_format", "label")
_YES_NO = {"true": "yes", "false": "no", "1": "yes", "0": "no", "yes": "yes", "no": "no"}


def _copa_text(row: Mapping[str, Any]) -> str:
    asks_for, premise = row.get("question"), row.get("premise")
    if asks_for not in COPA_QUESTIONS:
        raise LayoutRowError("question", f"{asks_for!r} is not 'cause' or 'effect'")
    if not isinstance(premise, str):
        raise LayoutRowError("premise", f"expected text, found {type(premise).__name__}")
    return f"{premise.strip()} {COPA_QUESTIONS[asks_for]}"


def _yes_no(column: str) -> Callable[[Mapping[str, Any]], str]:
    def derive(row: Mapping[str, Any]) -> str:
        value = row.get(column)
        key = str(value).strip().lower() if isinstance(value, bool | str | int) else ""
        if key not in _YES_NO:
            raise LayoutRowError(column, f"expected true / false or 1 / 0, found {value!r}")
        return _YES_NO[key]

    return derive


def _columns(*names: str) -> str:
    return ",".join(names)


_QA = {"question": "question", "options": "choices", "answer": "answer"}
_LABELLED = {"question": "question", "options": "choices", "answer": "answerKey"}
_BOOLQ = {"text_template": "{passage}\nQuestion: {question}?", "fields": "passage,question"}

LAYOUTS: tuple[Layout, ...] = (
    Layout(
        "mmlu-hf",
        ("question", "subject", "choices", "answer"),
        {**_QA, "answer_format": "index"},
        description="MMLU on the Hugging Face hub: options choices, answer an index from 0; subject kept",
    ),
    Layout(
        "commonsenseqa-hf",
        ("question", "question_concept", "choices", "answerKey"),
        _LABELLED,
        "labelled",
        description="CommonsenseQA on the hub: choices: {label, text}, answerKey matched against the labels",
    ),
    Layout(
        "arc-hf",
        ("question", "choices", "answerKey"),
        _LABELLED,
        "labelled",
        description="ARC on the hub: choices: {label, text}, answerKey (A-E or 1-5) matched to the labels",
    ),
    Layout(
        "openbookqa-hf",
        ("question_stem", "choices", "answerKey"),
        {**_LABELLED, "question": "question_stem"},
        "labelled",
        description="OpenBookQA on the hub: text question_stem, choices: {label, text}, answerKey",
    ),
    Layout(
        "hellaswag",
        ("ctx", "endings", "label"),
        {"question": "ctx", "options": "endings", "answer": "label", "answer_format": "index"},
        description="HellaSwag (hub and release): text ctx, options endings, label an index from 0",
    ),
    Layout(
        "race",
        ("article", "question", "options", "answer"),
        {
            "text_template": "{article}\n\n{question}",
            "fields": "passage=article,question",
            "options": "options",
            "answer": "answer",
        },
        description="RACE on the hub: text = article, blank line, question; answer a letter; fields passage, question",
    ),
    Layout(
        "mmlu-pro",
        ("question", "options", "answer_index"),
        {"question": "question", "options": "options", "answer": "answer_index", "answer_format": "index"},
        description="MMLU-Pro: options (up to 10), gold answer_index (the letter answer is kept in metadata)",
    ),
    Layout(
        "medmcqa",
        ("question", "opa", "opb", "opc", "opd", "cop"),
        {"question": "question", "option_columns": _columns("opa", "opb", "opc", "opd"), "answer": "cop"},
        "columns",
        description="MedMCQA: options opa-opd, cop an index counted from 0 (hub) or 1 (release), told by the data",
    ),
    Layout(
        "piqa",
        ("goal", "sol1", "sol2", "label"),
        {"question": "goal", "option_columns": "sol1,sol2", "answer": "label", "answer_format": "index"},
        "columns",
        description="PIQA on the hub: text goal, options sol1, sol2, label 0 or 1",
    ),
    Layout(
        "winogrande",
        ("sentence", "option1", "option2", "answer"),
        {"question": "sentence", "option_columns": "option1,option2", "answer": "answer", "answer_format": "index1"},
        "columns",
        description="Winogrande (hub and release): text sentence (with its _), options option1, option2, answer 1 or 2",
    ),
    Layout(
        "sciq",
        ("question", "distractor1", "distractor2", "distractor3", "correct_answer"),
        {
            "question": "question",
            "option_columns": _columns("distractor1", "distractor2", "distractor3", "correct_answer"),
            "answer": "correct_answer",
            "answer_format": "text",
        },
        "columns",
        description="SciQ: options distractor1-3 then correct_answer, in that order (the gold is always last)",
    ),
    Layout(
        "copa-hf",
        ("premise", "choice1", "choice2", "question", "label"),
        {
            "question": "copa_text",
            "option_columns": "choice1,choice2",
            "answer": "label",
            "answer_format": "index",
            "fields": "premise,asks_for=question",
        },
        "columns",
        derived={"copa_text": _copa_text},
        description="COPA on the hub (SuperGLUE, Balanced COPA): text as the XML reader writes it, label 0 or 1",
    ),
    Layout(
        "boolq",
        ("question", "passage", "answer"),
        {**_BOOLQ, "label": "boolq_answer"},
        "",
        {"boolq_answer": _yes_no("answer")},
        description="BoolQ (hub google/boolq and release): answer true / false read as the labels yes / no",
    ),
    Layout(
        "boolq-superglue",
        ("question", "passage", "label"),
        {**_BOOLQ, "label": "boolq_answer"},
        "",
        {"boolq_answer": _yes_no("label")},
        description="BoolQ in SuperGLUE: label 1 / 0 read as yes / no; text passage, then Question: question?",
    ),
    Layout(
        "premise-hypothesis",
        ("premise", "hypothesis", "label"),
        {
            "text_template": "Premise: {premise}\nHypothesis: {hypothesis}",
            "label": "label",
            "fields": "premise,hypothesis",
        },
        "",
        description="NLI pairs: shared labels from label as written; fields premise, hypothesis",
    ),
    Layout(
        "question-choices-answer",
        ("question", "choices", "answer"),
        _QA,
        generic=True,
        description="generic: a list column choices; answer an index (from 0 or 1, told by the data), letter or text",
    ),
    Layout(
        "question-options-answer",
        ("question", "options", "answer"),
        {**_QA, "options": "options"},
        generic=True,
        description="generic: the same with a list column options",
    ),
    OptionColumnsLayout(),
)
"""Layouts detected without a mapping, published ones first (most specific first), then the generic ones."""


@dataclass(frozen=True)
class LayoutChoice:
    """The layout chosen for a table, its reading, and what the user is told about the choice."""

    layout: Layout
    reading: Reading
    notes: tuple[str, ...] = ()
    """Why it was chosen over other fitting layouts, how an ambiguous answer column was read (for stderr)."""

    @property
    def provenance(self) -> str:
        """The layout's name, with the notes, for provenance."""
        return "; ".join((self.layout.name, *self.notes))


def layout_rows() -> list[tuple[str, str]]:
    """``(name, columns: description)`` for each layout, in the order they are tried (for ``pfungst formats``)."""
    return [
        (layout.name, f"{', '.join(layout.columns) or 'question, option columns, answer'}: {layout.description}")
        for layout in LAYOUTS
    ]


def detect_layout(row: Mapping[str, Any]) -> Layout | None:
    """The layout a table whose first row is ``row`` is read with, or None (cheap: for sniffing)."""
    fitting = [layout for layout in LAYOUTS if layout.fits(row)]
    return next((layout for layout in fitting if not layout.generic), fitting[0] if fitting else None)


def choose_layout(rows: Sequence[Mapping[str, Any]], name: str = "") -> LayoutChoice | None:
    """The layout for a table with these well-formed rows (the one called ``name`` when given), or None.

    Raises:
        ConfigError: ``name`` is no layout, or the table lacks its columns.
    """
    if name:
        layout = _named(name, rows[0] if rows else {})
        return LayoutChoice(layout, layout.read(rows) if rows else Reading(dict(layout.settings)))
    if not rows:
        return None
    fitting = [layout for layout in LAYOUTS if layout.fits(rows[0])]
    pool = [layout for layout in fitting if not layout.generic] or fitting
    if not pool:
        return None
    chosen, reading = pool[0], pool[0].read(rows)
    notes = [reading.note] if reading.note else []
    others = [layout for layout in pool[1:] if _differs(layout.read(rows).settings, reading.settings)]
    if others:
        names = ", ".join(f"'{layout.name}'" for layout in others)
        notes.insert(
            0,
            f"the columns also fit the layout(s) {names}; read as '{chosen.name}' ({map_line(reading.settings)}), "
            f"the first in pfungst's order (most specific first). To read it the other way pass --map layout=NAME",
        )
    return LayoutChoice(chosen, reading, tuple(notes))


def _named(name: str, row: Mapping[str, Any]) -> Layout:
    layouts = {layout.name: layout for layout in LAYOUTS}
    if name not in layouts:
        raise ConfigError(unknown_name_message("layout", name, layouts))
    layout = layouts[name]
    if row and not layout.fits(row):
        needed = ", ".join(layout.columns) or "a question, option columns and an answer column"
        raise ConfigError(f"--map layout={name}: the table does not fit it (it needs {needed}; found {', '.join(row)})")
    return layout


def _differs(one: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    return any(one.get(key) != other.get(key) for key in _READING_KEYS)


def map_line(settings: Mapping[str, Any]) -> str:
    """The settings as ``--map KEY=VALUE`` options, quoted for a shell."""
    parts = []
    for key, value in settings.items():
        text = ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        parts.append(f"--map {shlex.quote(f'{key}={text}')}")
    return " ".join(parts)
