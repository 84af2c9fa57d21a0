"""Column mapping for generic tables: which columns hold the text, the options, the answer and the named fields.

Used by the generic JSONL / CSV / TSV / Parquet readers and the Hugging Face reader. Every key has a sensible
default (the first of the usual column names that is present), so a table with ``question``, ``choices`` and
``answer`` columns needs no mapping at all. A table in one of the common
:data:`~pfungst.data.layouts.LAYOUTS` is mapped by :func:`~pfungst.data.layouts.choose_layout`, and is then found
without ``--reader`` too.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pfungst.data.answers import ANSWER_FORMATS, AnswerError, resolve_answer
from pfungst.data.builder import BenchmarkBuilder, not_text
from pfungst.errors import ConfigError, ReaderError

__all__ = ["MAPPING_KEYS", "ColumnMapping", "choice_labels", "parse_cell"]

MAPPING_KEYS: tuple[str, ...] = (
    "question",
    "text_template",
    "options",
    "option_columns",
    "answer",
    "answer_format",
    "label",
    "labels",
    "id",
    "fields",
    "metadata",
    "layout",
)
_QUESTION_DEFAULTS = ("question", "query", "text", "input", "prompt", "stem", "sentence")
_OPTIONS_DEFAULTS = ("options", "choices", "endings")
_ANSWER_DEFAULTS = ("answer", "gold", "answerKey", "answer_key", "target", "correct", "label")
_ID_DEFAULTS = ("id", "idx", "uid", "question_id")


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [str(part) for part in value]


@dataclass(frozen=True)
class ColumnMapping:
    """Where a table keeps each part of an item. Empty means: use the default column names."""

    question: str = ""
    """Column with the question / input text."""
    text_template: str = ""
    """A ``str.format`` template over columns (``"Premise: {premise}\\nHypothesis: {hypothesis}"``) instead."""
    options: str = ""
    """Column holding the options as a list (or a JSON list in a CSV cell)."""
    option_columns: tuple[str, ...] = ()
    """Columns holding one option each, in order (``A,B,C,D``)."""
    answer: str = ""
    """Column with the answer (per-item choices): index, 1-based index, letter or option text."""
    answer_format: str = "auto"
    """How to read ``answer``: ``auto``, ``index``, ``index1``, ``letter`` or ``text``."""
    label: str = ""
    """Column with the gold label of a shared-label task (no options column)."""
    labels: tuple[str, ...] = ()
    """The label set in canonical order; default: the sorted distinct labels found."""
    id: str = ""
    """Column with the item id; default: ``id`` if present, else ``<file>-<line>``."""
    fields: tuple[str, ...] = ()
    """Columns kept as named fields (partial-input baselines), as ``name`` or ``name=column``."""
    metadata: tuple[str, ...] = ()
    """Columns kept as metadata; default: every column not used otherwise."""

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> ColumnMapping:
        """Build from CLI / API keyword settings (comma-separated strings accepted for list keys)."""
        unknown = sorted(set(settings) - set(MAPPING_KEYS))
        if unknown:
            raise ConfigError(f"Unknown mapping key(s) {', '.join(unknown)}. Available: {', '.join(MAPPING_KEYS)}")
        values = dict(settings)
        values.pop("layout", None)  # a common layout by name: the table reader applies it (layout_catalog)
        for key in ("option_columns", "labels", "fields", "metadata"):
            values[key] = tuple(_as_list(values.get(key)))
        if values.get("answer_format", "auto") not in ANSWER_FORMATS:
            raise ConfigError(
                f"Unknown answer format {values['answer_format']!r}. Available: {', '.join(ANSWER_FORMATS)}"
            )
        if values.get("text_template"):
            _check_template(str(values["text_template"]))
        return cls(**{k: v for k, v in values.items() if v not in (None, "")})

    @property
    def shared_labels(self) -> bool:
        return bool(self.label) and not (self.options or self.option_columns)

    def resolve(self, columns: Sequence[str], where: tuple[str, int]) -> ColumnMapping:
        """Fill defaults from the table's columns and check that every named column exists.

        Raises:
            ReaderError: a named column is missing (names the file, the first data line and the column).
        """
        present = set(columns)
        pick = _first_present(present)
        filled = {
            "question": self.question or ("" if self.text_template else pick(_QUESTION_DEFAULTS)),
            "options": self.options or ("" if self.option_columns or self.label else pick(_OPTIONS_DEFAULTS)),
            "id": self.id or pick(_ID_DEFAULTS),
        }
        shared = bool(self.label) and not (filled["options"] or self.option_columns)
        filled["answer"] = "" if shared else self.answer or pick(_ANSWER_DEFAULTS)
        resolved = ColumnMapping(**{**self.__dict__, **filled})
        resolved._check(present, columns, where, shared)
        return resolved

    def _check(self, present: set[str], columns: Sequence[str], where: tuple[str, int], shared: bool) -> None:
        path, line = where
        available = ", ".join(columns)
        template_columns = _template_columns(self.text_template)
        needed = [
            self.question,
            self.options,
            *self.option_columns,
            self.answer,
            self.label,
            self.id,
            *(spec.partition("=")[2] or spec for spec in self.fields),
            *self.metadata,
            *template_columns,
        ]
        for column in filter(None, needed):
            if column not in present:
                used = f" (text_template {self.text_template!r} uses it)" if column in template_columns else ""
                raise ReaderError(
                    path,
                    line,
                    column,
                    f"no column '{column}' in the file{used} (columns: {available})",
                    "Fix the mapping",
                )
        if not (self.question or self.text_template):
            raise ReaderError(
                path,
                line,
                "question",
                f"no question column found (columns: {available})",
                "Name it with question=COLUMN or text_template=...",
            )
        if not shared and not (self.options or self.option_columns):
            raise ReaderError(
                path,
                line,
                "options",
                f"no options column found (columns: {available})",
                "Name them with options=COLUMN, option_columns=A,B,C,D or label=COLUMN",
            )
        if not shared and not self.answer:
            raise ReaderError(
                path, line, "answer", f"no answer column found (columns: {available})", "Name it with answer=COLUMN"
            )

    def add_row(self, builder: BenchmarkBuilder, line: int, row: Mapping[str, Any]) -> None:
        """Map one row and add it to ``builder`` (raises :class:`ReaderError` naming the field at fault)."""
        text = self._text(builder, line, row)
        fields = {}
        for spec in self.fields:
            name, _, column = spec.partition("=")
            fields[name] = builder.text(line, column or name, row[column or name])
        used = {
            self.question,
            self.options,
            *self.option_columns,
            self.answer,
            self.label,
            self.id,
            *_template_columns(self.text_template),
        }
        meta_columns = self.metadata or [c for c in row if c not in used and _scalar(row[c])]
        metadata = {c: row[c] for c in meta_columns}
        item_id = str(row[self.id]) if self.id and row[self.id] not in (None, "") else ""
        if self.label and not (self.options or self.option_columns):
            builder.add(
                line=line,
                id=item_id,
                text=text,
                gold=builder.text(line, self.label, row[self.label]).strip(),
                fields=fields,
                metadata=metadata,
                text_field=self.question or "text_template",
                options_field=self.label,
            )
            return
        options = self._options(builder, line, row)
        builder.check_options(line, options, self.options or "options")
        builder.add(
            line=line,
            id=item_id,
            text=text,
            options=options,
            gold=self._gold(builder, line, row, options),
            fields=fields,
            metadata=metadata,
            text_field=self.question or "text_template",
            options_field=self.options or "options",
        )

    def _gold(self, builder: BenchmarkBuilder, line: int, row: Mapping[str, Any], options: list[str]) -> int:
        """The gold index from the answer column: an index, a letter, an option's text or its choice label."""
        labels = choice_labels(row[self.options]) if self.options else []
        answer = row[self.answer]
        found = not_text(answer)
        if found:
            raise builder.error(line, self.answer, f"expected an answer (index, letter or option text), found {found}")
        try:
            return labels.index(answer) if answer in labels else resolve_answer(answer, options, self.answer_format)
        except AnswerError as error:
            raise builder.error(line, self.answer, error.reason, error.hint) from None

    def _text(self, builder: BenchmarkBuilder, line: int, row: Mapping[str, Any]) -> str:
        if self.text_template:
            columns = _template_columns(self.text_template)
            return self.text_template.format(**{c: builder.text(line, c, row[c]) for c in columns})
        return builder.text(line, self.question, row[self.question])

    def _options(self, builder: BenchmarkBuilder, line: int, row: Mapping[str, Any]) -> list[str]:
        if self.option_columns:  # an empty cell, null or NaN: the item has no option in that column
            return [builder.text(line, c, row[c]) for c in self.option_columns if not _missing(row[c])]
        value = row[self.options]
        if isinstance(value, str):
            value = parse_cell(value)
            if value is None:
                raise builder.error(
                    line,
                    self.options,
                    "expected a list of options (a JSON list in a cell)",
                    "Or name one column per option with option_columns=A,B,C,D",
                )
        if hasattr(value, "tolist"):
            value = value.tolist()
        if isinstance(value, dict) and "text" in value:  # Hugging Face (ARC) {label: [...], text: [...]} choices
            value = value["text"]
        if not isinstance(value, list | tuple):
            raise builder.error(line, self.options, f"expected a list of options, found {type(value).__name__}")
        return [builder.text(line, f"{self.options}[{i}]", option) for i, option in enumerate(value)]


def _first_present(present: set[str]):
    def pick(candidates: Sequence[str]) -> str:
        return next((c for c in candidates if c in present), "")

    return pick


def _template_columns(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def _check_template(template: str) -> None:
    """Refuse a ``text_template`` that cannot fill from columns, before any data is read.

    Raises:
        ConfigError: an unbalanced brace, a placeholder that names no column (``{}``, ``{0}``, ``{a.b}``,
            ``{a[0]}``), or a conversion or format that text cannot take (``{a!x}``, ``{a:d}``).
    """
    where = f"--map text_template={template!r}"
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise ConfigError(f"{where}: {error}. Write a literal brace as {{{{ or }}}}") from None
    for _, name, _, _ in parsed:
        if name is not None and (not name.strip() or name.isdigit() or any(c in name for c in ".[]")):
            raise ConfigError(
                f"{where}: the placeholder {{{name}}} names no column. Name one column per placeholder, "
                "e.g. {premise}; write a literal brace as {{ or }}"
            )
    try:
        template.format(**{name: "text" for _, name, _, _ in parsed if name})
    except (ValueError, KeyError, IndexError) as error:
        raise ConfigError(f"{where}: it cannot be filled with text ({error})") from None


def _missing(value: Any) -> bool:
    """An empty cell, a null or a NaN (a missing value in a Parquet or pandas column)."""
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def parse_cell(value: str) -> Any:
    """A JSON list or object written in a CSV cell, parsed; None for any other text."""
    if not value.strip().startswith(("[", "{")):
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return None


def choice_labels(value: Any) -> list[Any]:
    """The ``label`` list of Hugging Face ``{text, label}`` choices (ARC: ``A``-``E`` or ``1``-``5``), else []."""
    value = parse_cell(value) if isinstance(value, str) else value
    labels = value.get("label") if isinstance(value, dict) else None
    return list(labels) if isinstance(labels, list | tuple) and "text" in value else []
