"""Read result JSON: find each file's class by its ``kind`` (or ``schema_version``) and read it into that object.

:func:`read_result` is ``pfungst.read_result``: any file a pfungst command (or an installed plugin) wrote with
``--json`` back as the object that wrote it, every value's type checked (a wrong one is named by file and field
path). The classes are those of :data:`pfungst.results.RESULTS`. Reports render what it returns; they compute nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.data.records import parse_json
from pfungst.data.result_bytes import result_bytes
from pfungst.errors import ConfigError, ReaderError
from pfungst.provenance import ResultReference
from pfungst.results import RESULTS, is_top_level, result_class
from pfungst.schema import SCHEMA_VERSIONS, check_depth, kind_of
from pfungst.serialization import to_jsonable

__all__ = ["LoadedResult", "as_result", "load_result", "load_results", "read_result"]

_HINT = "Pass the JSON a pfungst command wrote with --json."


@dataclass(frozen=True)
class LoadedResult:
    """One result to render: its kind, the result object (or checked dict) and where it came from."""

    kind: str
    """The result's ``KIND`` (``audit``, ``summary``, ``stress``, ... or a plugin's ``mypkg.thing``)."""
    schema_version: str
    """The schema the data follows (its class's ``SCHEMA_VERSION``)."""
    data: Any
    """The typed result (``AuditResult``, ``BenchmarkSummary``, ...): a :class:`~pfungst.results.Result`."""
    source: str
    """The file it was read from; for an object passed in Python, its benchmark's name and kind."""
    sha256: str = ""
    """SHA-256 of the file's bytes; empty for an object passed in Python."""

    def to_dict(self) -> dict[str, Any]:
        """Where the result came from (not its data): source, kind, schema version, file hash."""
        return {"source": self.source, "kind": self.kind, "schema_version": self.schema_version, "sha256": self.sha256}

    @property
    def reference(self) -> ResultReference:
        """The reference a result derived from this one records: the file and its hash, or, for an object passed in
        Python, the object's content hash."""
        if self.sha256:
            return ResultReference(self.kind, self.source, self.sha256, self.schema_version)
        return ResultReference.of(self.data)

    def __repr__(self) -> str:
        return f"LoadedResult({self.kind!r}, source={self.source!r})"


def read_result(path: str | Path) -> Any:
    """Read any result JSON a pfungst command wrote (summary, audit, score, stress, stress comparison, reliance)
    back into its typed result object, checking every value's type.

    Raises:
        ConfigError: the file cannot be read, or its ``schema_version`` is unknown (an old or newer pfungst).
        ReaderError: not JSON, nested too deep, or a value of the wrong type; names the file and the field.

    Example:
        >>> import tempfile, pathlib
        >>> from pfungst.data import Benchmark, Item
        >>> from pfungst.data.summary import summarize
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "summary.json"
        >>> _ = path.write_text(json.dumps(summarize(Benchmark("toy", [Item("a", "q", ("x", "y"), 0)])).to_dict()))
        >>> read_result(path)
        BenchmarkSummary(name='toy', items=1)
    """
    return load_result(path).data


def load_result(path: str | Path) -> LoadedResult:
    """Read one result JSON file (as written by ``--json``) with :func:`read_result`'s checks, and its hash.

    Raises:
        ConfigError: the file cannot be read, or its ``schema_version`` is not one a report knows.
        ReaderError: the file is not JSON, nests too deep, or a value has the wrong type or is missing.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read result file {path}: {exc.strerror or exc}. {_HINT}") from exc
    try:
        data = parse_json(result_bytes(path, raw).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ReaderError(path, 0, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})", _HINT) from exc
    except json.JSONDecodeError as exc:
        raise ReaderError(path, exc.lineno, "", f"not valid JSON ({exc.msg}, column {exc.colno})", _HINT) from exc
    return _checked(data, str(path), hashlib.sha256(raw).hexdigest(), str(path))


def load_results(paths: Iterable[str | Path]) -> tuple[LoadedResult, ...]:
    """:func:`load_result` for each path, in order.

    Raises:
        ConfigError: no paths; two files with the same content (one file given twice: the report would show
            its figures twice); or as :func:`load_result`.
    """
    loaded = tuple(load_result(path) for path in paths)
    if not loaded:
        raise ConfigError(
            "no result files given. Pass one or more JSON files written by pfungst audit, inspect, "
            "stress, score or reliance with --json."
        )
    seen: dict[str, str] = {}
    for result in loaded:
        if result.sha256 in seen:
            raise ConfigError(
                f"{result.source}: same content as {seen[result.sha256]} (SHA-256 {result.sha256[:12]}); the report "
                "would show its figures twice. Pass each file once."
            )
        seen[result.sha256] = result.source
    return loaded


def as_result(value: Any) -> LoadedResult:
    """Wrap what a report is given: a :class:`LoadedResult`, a result object, or a result dict (``to_dict()``).

    Raises:
        ConfigError: anything else, or a dict of an unknown schema.
        ReaderError: a dict with a value of the wrong type or without a key its kind needs.

    Example:
        >>> record = {"data": [], "settings": {}, "seed": 0, "environment": {}, "derived_from": []}
        >>> as_result({"schema_version": "pfungst.reliance/2", "models": [], "families": [], "provenance": record}).kind
        'reliance'
    """
    if isinstance(value, LoadedResult):
        return value
    cls = result_class(getattr(type(value), "KIND", ""))
    if cls is not None and is_top_level(cls) and isinstance(value, cls):
        return LoadedResult(cls.KIND, cls.SCHEMA_VERSION, value, _label(value))
    if isinstance(value, Mapping):
        check_depth(value, "<dict>")
        return _checked(to_jsonable(value, default=str), "<dict>", "", None)
    to_dict = getattr(value, "to_dict", None)
    if not callable(to_dict):
        raise ConfigError(
            f"cannot report on <{type(value).__name__}>: expected a result object with to_dict(), a result dict or "
            f"a path to result JSON"
        )
    return _checked(to_jsonable(to_dict(), default=str), f"<{type(value).__name__}>", "", None)


def _checked(data: Any, source: str, sha256: str, label: str | None) -> LoadedResult:
    """Find the class of ``data`` and read it with that class's ``from_dict``."""
    if not isinstance(data, Mapping):
        raise ReaderError(source, 0, "", f"expected a JSON object (a result), found {type(data).__name__}", _HINT)
    check_depth(data, source)
    cls = _class(data, source)
    typed = cls.from_dict(data, source)
    return LoadedResult(cls.KIND, cls.SCHEMA_VERSION, typed, label or _label(typed), sha256)


def _class(data: Mapping[str, Any], source: str) -> Any:
    """The result class of a file: by its ``kind``, else (a file that names only its schema) by ``schema_version``;
    its ``schema_version`` must be the class's."""
    version, kind = data.get("schema_version"), data.get("kind")
    if version is None:
        raise ConfigError(
            f"{source}: no 'schema_version' and not a known result. Known schema versions: "
            f"{', '.join(_known())}. {_HINT}"
        )
    if not isinstance(kind, str):
        kind = kind_of(version) if isinstance(version, str) else None
    cls = result_class(kind) if isinstance(kind, str) else None
    if cls is None or not is_top_level(cls) or version != cls.SCHEMA_VERSION:
        raise ConfigError(
            f"{source}: unknown schema_version {version!r}. Known: {', '.join(_known())}. Read it "
            f"with the pfungst version (or install the plugin) that wrote it, or upgrade pfungst."
        )
    return cls


def _known() -> list[str]:
    """The schema versions of every top-level result kind a report reads: pfungst's, then installed plugins'."""
    plugins = (result_class(kind) for kind in RESULTS if RESULTS.is_plugin(kind))
    known = [version for kind, version in SCHEMA_VERSIONS.items() if kind != "report"]
    return known + [cls.SCHEMA_VERSION for cls in plugins if cls is not None and is_top_level(cls)]


def _label(result: Any) -> str:
    """What the report calls a result passed in Python: what it is about (its benchmark's name) and its kind."""
    name = result.overview().name
    return f"{name} ({result.KIND})" if name else f"({result.KIND})"
