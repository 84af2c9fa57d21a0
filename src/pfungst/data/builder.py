"""Turns validated rows into a :class:`Benchmark`, counting duplicates and rejections as it goes.

Every reader funnels its rows through :class:`BenchmarkBuilder`, so the rules (at least two non-empty options,
gold in range, duplicate options reported, duplicate ids renamed, nothing dropped without a count) live here once.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pfungst.data.benchmark import Benchmark, DataSource, Rejection
from pfungst.data.item import Item
from pfungst.data.option_kind import OptionKind
from pfungst.errors import ConfigError, ReaderError
from pfungst.folder_walk import walk_files

if TYPE_CHECKING:
    from pfungst.data.records import Record

__all__ = ["BenchmarkBuilder", "ReadOptions", "file_sha256", "not_text"]

OnError = Literal["raise", "skip"]


@dataclass(frozen=True)
class ReadOptions:
    """How to read a source: the error policy and the reader-specific mapping (column names and the like)."""

    on_error: OnError = "raise"
    """``raise``: stop at the first malformed row; ``skip``: reject it, record why in provenance, go on."""
    strict: bool = False
    """Also raise on problems that are only warnings by default (duplicate options within an item)."""
    name: str = ""
    """Benchmark name; the reader derives one from the path when empty."""
    mapping: Mapping[str, Any] = field(default_factory=dict)
    """Reader-specific settings, e.g. ``question='stem'`` or ``subset='mc1'``; each reader lists its keys."""

    def __post_init__(self) -> None:
        if self.on_error not in ("raise", "skip"):
            raise ConfigError(f"on_error must be 'raise' or 'skip', not {self.on_error!r}")

    def setting(self, key: str, default: Any = None) -> Any:
        """The mapping's value for ``key``, or ``default``."""
        return self.mapping.get(key, default)

    def check_keys(self, reader: str, allowed: Sequence[str]) -> None:
        """Raise :class:`ConfigError` when the mapping holds a key the reader does not understand."""
        unknown = sorted(set(self.mapping) - set(allowed))
        if unknown:
            accepted = ", ".join(sorted(allowed)) or "none"
            raise ConfigError(
                f"The '{reader}' reader does not understand {', '.join(repr(k) for k in unknown)}. "
                f"It accepts: {accepted}"
            )


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, or of the sorted ``name:hash`` lines of every file under a directory."""
    if path.is_dir():
        lines = sorted(f"{p.relative_to(path)}:{file_sha256(p)}" for p in walk_files(path).files)
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def not_text(value: Any) -> str:
    """What ``value`` is when it cannot stand for a question, an option or a label ('' when it can).

    Text and numbers can (an option ``42`` reads as ``"42"``); an object, an array, null, a boolean, NaN and an
    infinity cannot: written as text they would become ``"{'a': 1}"``, ``"None"``, ``"True"`` or ``"nan"``.

    Example:
        >>> [not_text(value) for value in ("x", 42, None, {"a": 1}, float("nan"))]
        ['', '', 'null', 'an object', 'NaN']
    """
    if isinstance(value, str):
        return ""
    if value is None:
        return "null"
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, numbers.Real):
        if math.isnan(value):
            return "NaN"
        return "" if math.isfinite(value) else "an infinite number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple) or hasattr(value, "tolist"):
        return "an array"
    return f"a {type(value).__name__}"


class BenchmarkBuilder:
    """Collects items row by row under one error policy and builds the benchmark with its provenance.

    Use :meth:`row` around the parsing of each source row: a :class:`ReaderError` raised inside either propagates
    (``on_error='raise'``) or becomes a recorded rejection (``'skip'``).

    Args:
        path: The source being read (for messages and the hash).
        format: Name of the reader.
        options: The read options (error policy, strictness, name).
        labels: For shared-label tasks, the label set in canonical order; ``None`` for per-item choices.
            Pass an empty tuple to collect labels from the data (sorted) when the source does not list them.
    """

    def __init__(
        self,
        path: str | Path,
        format: str,
        options: ReadOptions,
        *,
        labels: Sequence[str] | None = None,
    ) -> None:
        self.path = Path(path)
        self.format = format
        self.options = options
        self._labels = tuple(labels) if labels is not None else None
        self._pending: list[tuple[int, dict[str, Any]]] = []  # (line, item kwargs) with gold as text for labels
        self._rejected: list[Rejection] = []
        self._warnings: list[str] = []
        self._rows = 0
        self._file = self.path

    @property
    def shared_labels(self) -> bool:
        return self._labels is not None

    @contextmanager
    def row(self, line: int, file: Path | None = None) -> Iterator[None]:
        """Count one source row; turn a :class:`ReaderError` inside into a rejection when skipping.

        ``file`` names the file the row is in when a reader reads several (a directory of MMLU subjects).
        """
        self._rows += 1
        self._file = file or self.path
        try:
            yield
        except ReaderError as error:
            if self.options.on_error == "raise":
                raise
            self._rejected.append(Rejection(line=error.line or line, field=error.field, reason=str(error)))
        finally:
            self._file = self.path

    def add_records(self, records: Iterable[Record], add: Callable[..., None], *extra: Any) -> None:
        """Pass every record's JSON object to ``add(builder, line, data, *extra)``, one counted :meth:`row` each.

        A record that is not a JSON object (an element of a JSON list) is an error naming its line.
        """
        for record in records:
            with self.row(record.line):
                data = record.data()
                if not isinstance(data, dict):
                    raise self.error(record.line, "(json)", f"expected a JSON object, found a {type(data).__name__}")
                add(self, record.line, data, *extra)

    def reject(self, line: int, field: str, reason: str) -> None:
        """Record a row the reader skips by rule (not an error), e.g. SNLI's ``-`` gold label."""
        self._rejected.append(Rejection(line=line, field=field, reason=f"{self._file}:{line}: {reason}"))

    def warn(self, line: int, field: str, reason: str, hint: str = "") -> None:
        """Record a problem that does not stop loading (a dropped empty option); raise it when strict."""
        if self.options.strict:
            raise self.error(line, field, reason, hint)
        self._warnings.append(f"{self._file}:{line}: field '{field}': {reason}")

    def error(self, line: int, field: str, reason: str, hint: str = "") -> ReaderError:
        """A :class:`ReaderError` located in the row being read (raise it)."""
        return ReaderError(self._file, line, field, reason, hint)

    def string(self, line: int, data: Mapping[str, Any], key: str, *, allow_empty: bool = False, hint: str = "") -> str:
        """``data[key]`` as a string; a missing key, another type or (unless allowed) an empty value is an error."""
        if key not in data:
            raise self.error(line, key, f"missing field '{key}'", hint)
        value = data[key]
        if not isinstance(value, str):
            raise self.error(line, key, f"expected text, found {not_text(value) or type(value).__name__}", hint)
        if not allow_empty and not value.strip():
            raise self.error(line, key, "the value is empty")
        return value

    def text(self, line: int, field: str, value: Any) -> str:
        """``value`` as text: a string as it is, a finite number written out (``42`` -> ``"42"``).

        Raises:
            ReaderError: ``value`` is an object, an array, null, a boolean, NaN or infinite (see :func:`not_text`);
                nothing is turned into text such as ``"None"`` or ``"nan"``.
        """
        found = not_text(value)
        if found:
            raise self.error(line, field, f"expected text, found {found}")
        return value if isinstance(value, str) else str(value)

    def add(
        self,
        *,
        line: int,
        text: str,
        gold: int | str,
        options: Sequence[str] = (),
        id: str = "",
        fields: Mapping[str, str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        text_field: str = "text",
        options_field: str = "options",
    ) -> None:
        """Validate one item and keep it.

        For per-item choices pass ``options`` and a 0-based ``gold`` index. For shared labels pass the gold label
        text as ``gold`` and no options; the label set becomes every item's options.
        """
        if not isinstance(text, str):
            raise self.error(line, text_field, f"expected text, found {not_text(text) or type(text).__name__}")
        if not text.strip():
            raise self.error(line, text_field, "the text is empty", "Every item needs a question or input text")
        if self.shared_labels:
            if not isinstance(gold, str) or not gold.strip():
                raise self.error(line, options_field, f"the label {gold!r} is empty")
            if self._labels and gold not in self._labels:
                allowed = ", ".join(repr(label) for label in self._labels)
                raise self.error(line, options_field, f"label {gold!r} is not one of {allowed}")
        else:
            self._check_options(line, tuple(options), gold, options_field)
        meta = {**(metadata or {}), "source_line": line}
        if self._file != self.path:
            meta["source_file"] = self._file.name
        self._pending.append(
            (
                line,
                {
                    "id": str(id),
                    "text": text,
                    "options": tuple(options),
                    "gold": gold,
                    "fields": dict(fields or {}),
                    "metadata": meta,
                },
            )
        )

    def check_options(self, line: int, options: Sequence[str], field: str = "options") -> None:
        """Raise unless there are at least two non-empty options; record (or, when strict, raise on) duplicates.

        Readers call it before resolving an answer against the options, so that an empty option list is reported
        as such rather than as an answer out of range.
        """
        if not options:
            raise self.error(line, field, "the item has no options", "A multiple-choice item needs at least two")
        if len(options) == 1:
            raise self.error(
                line,
                field,
                f"the item has a single option ({options[0]!r})",
                "A multiple-choice item needs at least two",
            )
        seen: dict[str, int] = {}
        for position, option in enumerate(options):
            if not isinstance(option, str):
                found = not_text(option) or type(option).__name__
                raise self.error(line, field, f"option {position}: expected text, found {found}")
            if not option.strip():
                raise self.error(line, field, f"option {position} is empty")
            if option in seen:
                reason = f"duplicate option {option!r} at positions {seen[option]} and {position}"
                warning = f"{self._file}:{line}: field '{field}': {reason}"
                if warning not in self._warnings:  # readers may check before add() checks again
                    self.warn(line, field, reason, "Remove the repeated option")
            seen.setdefault(option, position)

    def _check_options(self, line: int, options: tuple[str, ...], gold: int | str, field: str) -> None:
        self.check_options(line, options, field)
        if not isinstance(gold, int) or isinstance(gold, bool) or not 0 <= gold < len(options):
            raise self.error(line, field, f"gold index {gold!r} is out of range for {len(options)} options")

    def build(self, name: str = "") -> Benchmark:
        """The benchmark of every item kept so far, with provenance; raises if no item was kept."""
        name = self.options.name or name or self.path.stem
        if not self._pending:
            reason = "no items could be read" if self._rows else "the file holds no data rows"
            raise ReaderError(self.path, 0, "", reason, self._empty_hint())
        labels = self._final_labels()
        items, duplicates = self._make_items(labels)
        provenance = DataSource(
            source=str(self.path),
            format=self.format,
            sha256=file_sha256(self.path) if self.path.exists() else "",
            rows_read=self._rows,
            rows_kept=len(items),
            rejected=tuple(self._rejected),
            warnings=tuple(self._warnings),
            duplicate_texts=duplicates["texts"],
            conflicting_duplicates=duplicates["conflicting"],
            duplicate_ids=duplicates["ids"],
        )
        kind = OptionKind.SHARED_LABELS if labels is not None else OptionKind.PER_ITEM
        return Benchmark(name=name, items=tuple(items), option_kind=kind, labels=labels or (), provenance=provenance)

    def _empty_hint(self) -> str:
        if self._rejected:
            return f"All {len(self._rejected)} rows were rejected; the first: {self._rejected[0].reason}"
        return "Check the file and the --format"

    def _final_labels(self) -> tuple[str, ...] | None:
        if self._labels is None:
            return None
        if self._labels:
            return self._labels
        return tuple(sorted({str(kwargs["gold"]) for _, kwargs in self._pending}))

    def _make_items(self, labels: tuple[str, ...] | None) -> tuple[list[Item], dict[str, int]]:
        items: list[Item] = []
        ids: dict[str, int] = {}
        first_gold: dict[str, str] = {}
        counts = {"texts": 0, "conflicting": 0, "ids": 0}
        for line, kwargs in self._pending:
            if labels is not None:
                kwargs["options"] = labels
                kwargs["gold"] = labels.index(kwargs["gold"])
            base_id = kwargs["id"] or f"{kwargs['metadata'].get('source_file', self.path.name)}:{line}"
            ids[base_id] = ids.get(base_id, 0) + 1
            if ids[base_id] > 1:
                counts["ids"] += 1
                base_id = f"{base_id}#{ids[base_id]}"
            kwargs["id"] = base_id
            item = Item(**kwargs)
            if item.text in first_gold:
                counts["texts"] += 1
                counts["conflicting"] += first_gold[item.text] != item.answer
            else:
                first_gold[item.text] = item.answer
            items.append(item)
        return items, counts
