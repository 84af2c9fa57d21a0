"""One typed record of what made a result: its data files, settings, seed, software, and the results it was made from.

A shared module: every result class (:class:`~pfungst.results.Result`) holds a :class:`Provenance` as
``provenance``, writes it with ``to_dict`` under ``"provenance"`` and reads it back with
:meth:`Provenance.from_fields` (a wrong value is named by file and field path, ``provenance.data[0].rows_read``);
the report's provenance chapter renders it with one function (:func:`pfungst.report.provenance.provenance_facts`).

- :class:`DataSource`: a data file a benchmark was read from (path, reader, content hash, rows read, kept, rejected,
  duplicates, the steps applied after reading);
- :class:`ResultReference`: a result another was derived from (kind, file, content hash, schema version);
- :class:`Provenance`: the record itself, with ``data``, ``settings``, ``seed``, ``environment`` and
  ``derived_from``.

Example:
    >>> record = Provenance.current({"alpha": 0.05}, seed=0)
    >>> Provenance.from_fields(Fields(record.to_dict(), "<dict>")) == record
    True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.environment import Environment, environment
from pfungst.schema import Fields, read_dataclass
from pfungst.serialization import to_jsonable

__all__ = ["DataSource", "Provenance", "Rejection", "ResultReference", "file_sha256"]


@dataclass(frozen=True)
class Rejection:
    """A source row that did not become an item, and why."""

    line: int
    """1-based line (or record) number in the source."""
    field: str
    """The field at fault; empty when the whole row is."""
    reason: str
    """What was wrong, as the strict error would have said it."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {"line": self.line, "field": self.field, "reason": self.reason}


@dataclass(frozen=True)
class DataSource:
    """Where a benchmark came from and everything that happened to its rows on the way in.

    ``rows_read = rows_kept + len(rejected)`` holds for every reader. Duplicates are kept and counted, never silently
    dropped; :meth:`~pfungst.data.Benchmark.deduplicate` drops them explicitly and records that in ``steps``.
    """

    source: str
    """Path (or dataset name) the items were read from."""
    format: str
    """Name of the reader that read them."""
    sha256: str = ""
    """SHA-256 of the source file's bytes (of the sorted per-file hashes for a directory); empty if not a file."""
    rows_read: int = 0
    """Data rows (records) seen in the source, header and blank lines excluded."""
    rows_kept: int = 0
    """Rows that became items."""
    rejected: tuple[Rejection, ...] = ()
    """Rows that did not become items, with the reason (only with ``on_error='skip'`` or by a reader's rule)."""
    duplicate_texts: int = 0
    """Items whose text equals an earlier item's text (kept)."""
    conflicting_duplicates: int = 0
    """Of those, items whose gold answer differs from the earlier item's (same text, different answer)."""
    duplicate_ids: int = 0
    """Items whose source id repeated an earlier one; they were renamed ``<id>#2``, ``<id>#3``, ..."""
    warnings: tuple[str, ...] = ()
    """Problems that did not stop loading (duplicate options within an item, ...), each with file, line, field."""
    steps: tuple[str, ...] = ()
    """Operations applied after reading (slices, filters, deduplication), in order."""
    layout: str = ""
    """The common table layout that mapped the columns (``sciq``, ``question-option-columns``, ...), with why it was
    chosen where several fit and how an ambiguous answer column was read; empty when a reader or a mapping read it."""

    @property
    def rows_rejected(self) -> int:
        """Rows that did not become items."""
        return len(self.rejected)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "source": self.source,
            "format": self.format,
            "sha256": self.sha256,
            "rows_read": self.rows_read,
            "rows_kept": self.rows_kept,
            "rows_rejected": self.rows_rejected,
            "rejected": [r.to_dict() for r in self.rejected],
            "duplicate_texts": self.duplicate_texts,
            "conflicting_duplicates": self.conflicting_duplicates,
            "duplicate_ids": self.duplicate_ids,
            "warnings": list(self.warnings),
            "steps": list(self.steps),
            "layout": self.layout,
        }

    @classmethod
    def from_fields(cls, fields: Fields) -> DataSource:
        """Read :meth:`to_dict` back; ``rows_rejected`` must count the rejected rows listed.

        Raises:
            ReaderError: a value of the wrong type, a negative count, or a count that disagrees with the list.
        """
        source = read_dataclass(cls, fields)
        if fields.has("rows_rejected") and fields.integer("rows_rejected") != source.rows_rejected:
            raise fields.error(
                "rows_rejected", f"{fields.integer('rows_rejected')} disagrees with {source.rows_rejected} 'rejected'"
            )
        for name in ("rows_read", "rows_kept", "duplicate_texts", "conflicting_duplicates", "duplicate_ids"):
            if getattr(source, name) < 0:
                raise fields.error(name, f"a count cannot be negative, found {getattr(source, name)}")
        return source


@dataclass(frozen=True)
class ResultReference:
    """A result another was derived from: what it is, where it was read, and the hash that pins its content."""

    kind: str
    """Its kind (``audit``, ``stress``, ...; for an input no pfungst command wrote, the reader that read it)."""
    source: str
    """The file it was read from; for a result passed in Python, ``<kind: what it is about>``."""
    sha256: str
    """SHA-256 of the file's bytes; for a result passed in Python, of its ``to_dict()`` as canonical JSON (sorted
    keys); empty where neither is known."""
    schema_version: str = ""
    """Its ``schema_version``; empty for an input no pfungst command wrote."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {"kind": self.kind, "source": self.source, "sha256": self.sha256, "schema_version": self.schema_version}

    @classmethod
    def from_fields(cls, fields: Fields) -> ResultReference:
        """Read :meth:`to_dict` back, checking each value's type."""
        return read_dataclass(cls, fields)

    @classmethod
    def of(cls, result: Any, source: str = "", sha256: str = "") -> ResultReference:
        """The reference to a result object: read from ``source`` with file hash ``sha256``, or, without them, the
        object itself (its content hash).

        Example:
            >>> from pfungst.data import Benchmark, Item
            >>> from pfungst.data.summary import summarize
            >>> reference = ResultReference.of(summarize(Benchmark("toy", [Item("a", "q", ("x", "y"), 0)])))
            >>> reference.kind, reference.source, len(reference.sha256)
            ('summary', '<summary: toy>', 64)
        """
        kind = str(result.KIND)
        if not source:
            about = result.overview().name
            source = f"<{kind}: {about}>" if about else f"<{kind}>"
        return cls(kind, source, sha256 or content_sha256(result.to_dict()), str(result.SCHEMA_VERSION))

    @classmethod
    def of_file(cls, path: str | Path, kind: str, schema_version: str = "") -> ResultReference:
        """The reference to an input file: its path and the hash of its bytes (empty when it cannot be read)."""
        return cls(kind, str(path), file_sha256(path), schema_version)


@dataclass(frozen=True)
class Provenance:
    """What made a result: the data files it read, its settings and seed, the software, and its inputs."""

    settings: dict[str, Any]
    """Every setting (the config's ``to_dict()``), as the run used it."""
    seed: int | None
    """The seed of everything drawn at random; None for a result that draws nothing (a benchmark's summary)."""
    environment: Environment
    """Package versions, git revision, platform and time (:func:`pfungst.environment.environment`)."""
    data: tuple[DataSource, ...] = ()
    """The data files read to make it, one per benchmark; empty for a result made from other results only."""
    derived_from: tuple[ResultReference, ...] = ()
    """The results it was made from (a reliance analysis: its audit and outcome files), in input order."""

    @classmethod
    def current(
        cls,
        settings: Mapping[str, Any],
        seed: int | None,
        data: tuple[DataSource, ...] = (),
        derived_from: tuple[ResultReference, ...] = (),
    ) -> Provenance:
        """The record of a result made now, in this process's environment."""
        return cls(to_jsonable(dict(settings), default=str), seed, environment(), data, derived_from)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "data": [source.to_dict() for source in self.data],
            "settings": to_jsonable(self.settings, default=str),
            "seed": self.seed,
            "environment": self.environment.to_dict(),
            "derived_from": [reference.to_dict() for reference in self.derived_from],
        }

    @classmethod
    def from_fields(cls, fields: Fields) -> Provenance:
        """Read :meth:`to_dict` back, every value's type checked.

        Raises:
            ReaderError: a value of the wrong type or a missing key, named by file and field path
                (``audit.json: field 'provenance.data[0].rows_read': expected a whole number, found '12'``).
        """
        return cls(
            settings=fields.mapping("settings"),
            seed=fields.typed("seed", int | None),
            environment=read_dataclass(Environment, fields.sub("environment")),
            data=tuple(DataSource.from_fields(entry) for entry in fields.records("data")),
            derived_from=tuple(ResultReference.from_fields(entry) for entry in fields.records("derived_from")),
        )


def content_sha256(data: Any) -> str:
    """SHA-256 of ``data`` as canonical JSON (sorted keys, no spaces): the same content, the same hash."""
    text = json.dumps(to_jsonable(data, default=str), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes; empty when it is not a readable file."""
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return ""
    return digest.hexdigest()
