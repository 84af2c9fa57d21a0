"""Read result JSON for reports: detect each file's kind by its ``schema_version``, check its shape, wrap it.

Reports render what the CLI's ``--json`` (or a result's ``to_dict()``) wrote; they compute nothing. Every error
names the file, what was expected and what was found.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.errors import ConfigError, ReaderError

__all__ = ["KINDS", "SCHEMAS", "LoadedResult", "as_result", "load_result", "load_results"]

SCHEMAS: dict[str, str] = {
    "pfungst.audit/1": "audit",
    "pfungst.summary/1": "summary",
    "pfungst.stress/1": "stress",
    "pfungst.stress-comparison/1": "stress-comparison",
    "pfungst.score/1": "score",
    "pfungst.reliance/1": "reliance",
}
"""Schema version -> kind of result, for every schema a report can render."""

KINDS: dict[str, tuple[str, ...]] = {
    "audit": ("benchmark", "verdict", "probes", "settings", "environment"),
    "summary": ("benchmark", "gold_counts", "gold_uniformity", "majority"),
    "stress": ("model", "accuracies", "analyses", "benchmark", "settings", "seed", "environment"),
    "stress-comparison": ("results", "rank_stability"),
    "score": ("accuracy", "model", "benchmark", "settings", "seed", "environment"),
    "reliance": ("models", "families"),
    "rank-stability": ("models", "variants", "ranks", "concordance"),
}
"""Kind -> the keys a result of that kind must have."""

_UNVERSIONED = {
    "summary": {"benchmark", "gold_counts", "gold_uniformity", "majority"},
    "rank-stability": {"models", "variants", "ranks", "taus", "concordance"},
}
"""Results written before they carried a ``schema_version``, recognised by their keys."""


@dataclass(frozen=True)
class LoadedResult:
    """One result to render: its kind, its JSON-safe data and where it came from."""

    kind: str
    """``audit``, ``summary``, ``stress``, ``stress-comparison``, ``score``, ``reliance`` or ``rank-stability``."""
    schema_version: str
    """The schema the data follows (``pfungst.summary/0`` for a summary written without one)."""
    data: Mapping[str, Any]
    """The result's ``to_dict()``."""
    source: str
    """The file it was read from, or ``<TypeName>`` for an object passed in Python."""
    sha256: str = ""
    """SHA-256 of the file's bytes; empty for an object passed in Python."""

    def to_dict(self) -> dict[str, Any]:
        """Where the result came from (not its data): source, kind, schema version, file hash."""
        return {"source": self.source, "kind": self.kind, "schema_version": self.schema_version, "sha256": self.sha256}

    def __repr__(self) -> str:
        return f"LoadedResult({self.kind!r}, source={self.source!r})"


def load_result(path: str | Path) -> LoadedResult:
    """Read one result JSON file (as written by ``--json``) and check that a report can render it.

    Raises:
        ConfigError: the file cannot be read, or its ``schema_version`` is not one a report knows.
        ReaderError: the file is not JSON, or a key its kind needs is missing.

    Example:
        >>> import json, tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "s.json"
        >>> _ = path.write_text(json.dumps({"benchmark": {}, "gold_counts": {"A": 2}, "gold_uniformity": {},
        ...                                 "majority": {}}))
        >>> load_result(path).kind
        'summary'
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"cannot read result file {path}: {exc.strerror or exc}. Pass the JSON a pfungst command wrote with --json."
        ) from exc
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ReaderError(
            path,
            0,
            "",
            f"not UTF-8 text ({exc.reason} at byte {exc.start})",
            "Pass the JSON a pfungst command wrote with --json.",
        ) from exc
    except json.JSONDecodeError as exc:
        raise ReaderError(
            path,
            exc.lineno,
            "",
            f"not valid JSON ({exc.msg}, column {exc.colno})",
            "Pass the JSON a pfungst command wrote with --json.",
        ) from exc
    return _checked(data, str(path), hashlib.sha256(raw).hexdigest())


def load_results(paths: Iterable[str | Path]) -> tuple[LoadedResult, ...]:
    """:func:`load_result` for each path, in order.

    Raises:
        ConfigError: no paths; or as :func:`load_result`.
    """
    loaded = tuple(load_result(path) for path in paths)
    if not loaded:
        raise ConfigError(
            "no result files given. Pass one or more JSON files written by pfungst audit, inspect, "
            "stress, score or reliance with --json."
        )
    return loaded


def as_result(value: Any) -> LoadedResult:
    """Wrap what a report is given: a :class:`LoadedResult`, a result dict, or a result object with ``to_dict()``.

    Raises:
        ConfigError: anything else, or a dict of an unknown schema.
        ReaderError: a dict without a key its kind needs.

    Example:
        >>> as_result({"schema_version": "pfungst.reliance/1", "models": [], "families": []}).kind
        'reliance'
    """
    if isinstance(value, LoadedResult):
        return value
    source = f"<{type(value).__name__}>"
    if isinstance(value, Mapping):
        return _checked(_plain(value), source, "")
    to_dict = getattr(value, "to_dict", None)
    if not callable(to_dict):
        raise ConfigError(
            f"cannot report on {source}: expected a result object with to_dict(), a result dict or a "
            f"path to result JSON"
        )
    return _checked(_plain(to_dict()), source, "")


def _checked(data: Any, source: str, sha256: str) -> LoadedResult:
    """Find the kind of ``data`` and check the keys that kind needs."""
    if not isinstance(data, Mapping):
        raise ReaderError(
            source,
            0,
            "",
            f"expected a JSON object (a result), found {type(data).__name__}",
            "Pass the JSON a pfungst command wrote with --json.",
        )
    kind, version = _kind(data, source)
    missing = [key for key in KINDS[kind] if key not in data]
    if missing:
        raise ReaderError(
            source,
            0,
            missing[0],
            f"a {kind} result ({version}) needs the keys {list(KINDS[kind])}; missing: {missing}",
            "Write the file again with the pfungst version that reads it.",
        )
    if kind == "stress-comparison":
        for number, inner in enumerate(data["results"]):
            inner_kind, _ = _kind(inner, f"{source}: results[{number}]") if isinstance(inner, Mapping) else ("", "")
            if inner_kind != "stress":
                raise ReaderError(
                    source,
                    0,
                    f"results[{number}]",
                    "expected a stress result (pfungst.stress/1)",
                    "Write the file again with pfungst stress --json.",
                )
    return LoadedResult(kind=kind, schema_version=version, data=data, source=source, sha256=sha256)


def _kind(data: Mapping[str, Any], source: str) -> tuple[str, str]:
    version = data.get("schema_version")
    if version is None:
        keys = set(data)
        for kind, needed in _UNVERSIONED.items():
            if needed <= keys:
                return kind, f"pfungst.{kind}/0"
        raise ConfigError(
            f"{source}: no 'schema_version' and not a known result. Known schema versions: "
            f"{', '.join(SCHEMAS)}. Pass the JSON a pfungst command wrote with --json."
        )
    if version not in SCHEMAS:
        raise ConfigError(
            f"{source}: unknown schema_version {version!r}. Known: {', '.join(SCHEMAS)}. Render it "
            f"with the pfungst version that wrote it, or upgrade pfungst."
        )
    return SCHEMAS[version], str(version)


def _plain(value: Any) -> Any:
    """A JSON round trip's view of ``value``: dicts, lists, str, int, float, bool, None (NaN becomes None)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if hasattr(value, "item"):  # numpy scalars
        return _plain(value.item())
    return str(value)
