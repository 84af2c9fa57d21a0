"""Read result JSON: find each file's kind by its ``schema_version`` and read it into its typed result object.

:func:`read_result` is ``pfungst.read_result``: any file a pfungst command wrote with ``--json`` back as the object
that wrote it, every value's type checked (a wrong one is named by file and field path). Reports render what it
returns; they compute nothing. Kinds whose class cannot read its JSON yet stay checked dicts.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pfungst.data.records import parse_json
from pfungst.errors import ConfigError, ReaderError
from pfungst.registry import Registry
from pfungst.report.result_bytes import result_bytes
from pfungst.schema import SCHEMA_VERSIONS, check_depth, kind_of
from pfungst.serialization import to_jsonable

__all__ = ["RESULT_CLASSES", "LoadedResult", "as_mapping", "as_result", "load_result", "load_results", "read_result"]

RESULT_CLASSES: Registry[Any] = Registry(
    "result kind",
    {
        "summary": "pfungst.data.summary:BenchmarkSummary",
        "audit": "pfungst.audit.result:AuditResult",
        "score": "pfungst.evaluate.score_result:ScoreResult",
        "stress": "pfungst.stress.stress_result:StressResult",
        "stress-comparison": "pfungst.stress.comparison:StressComparison",
        "reliance": "pfungst.reliance.result:RelianceResult",
        "validity": "pfungst.reliance.validity.result:ValidityResult",
        "suite": "pfungst.audit.suite.result:SuiteResult",
    },
    group=None,
)
"""Kind -> the result class whose ``from_dict`` reads it (``schema_version`` strings: :data:`SCHEMA_VERSIONS`)."""

_DICT_KEYS: dict[str, tuple[str, ...]] = {
    "stress": ("model", "accuracies", "analyses", "benchmark", "settings", "seed", "environment"),
    "stress-comparison": ("results", "rank_stability"),
    "rank-stability": ("models", "variants", "ranks", "concordance"),
}
"""Kinds still read as dicts (their class has no ``from_dict`` yet) -> the keys a report needs."""

_UNVERSIONED = {
    "summary": {"benchmark", "gold_counts", "gold_uniformity", "majority"},
    "rank-stability": {"models", "variants", "ranks", "taus", "concordance"},
}
"""Results written before they carried a ``schema_version``, recognised by their keys."""

_HINT = "Pass the JSON a pfungst command wrote with --json."


@dataclass(frozen=True)
class LoadedResult:
    """One result to render: its kind, the result object (or checked dict) and where it came from."""

    kind: str
    """``audit``, ``summary``, ``stress``, ``stress-comparison``, ``score``, ``reliance`` or ``rank-stability``."""
    schema_version: str
    """The schema the data follows (``pfungst.summary/0`` for a summary written without one)."""
    data: Any
    """The typed result (``AuditResult``, ``BenchmarkSummary``, ...), or the checked dict for a kind still read
    as one."""
    source: str
    """The file it was read from; for an object passed in Python, its benchmark's name and kind."""
    sha256: str = ""
    """SHA-256 of the file's bytes; empty for an object passed in Python."""

    def to_dict(self) -> dict[str, Any]:
        """Where the result came from (not its data): source, kind, schema version, file hash."""
        return {"source": self.source, "kind": self.kind, "schema_version": self.schema_version, "sha256": self.sha256}

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
        >>> as_result({"schema_version": "pfungst.reliance/1", "models": [], "families": []}).kind
        'reliance'
    """
    if isinstance(value, LoadedResult):
        return value
    kind = getattr(type(value), "KIND", "")
    if isinstance(kind, str) and kind in RESULT_CLASSES and isinstance(value, RESULT_CLASSES.resolve(kind)):
        return LoadedResult(kind, SCHEMA_VERSIONS[kind], value, _label(kind, value))
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


def as_mapping(data: Any) -> Mapping[str, Any]:
    """The dict view of a result for the renderers that still read dicts (stress runs and comparisons): the data
    itself if it is one, else the JSON view of its ``to_dict()``."""
    return data if isinstance(data, Mapping) else to_jsonable(data.to_dict(), default=str)


def _checked(data: Any, source: str, sha256: str, label: str | None) -> LoadedResult:
    """Find the kind of ``data`` and read it: typed where its class reads JSON, else a dict with its keys checked."""
    if not isinstance(data, Mapping):
        raise ReaderError(source, 0, "", f"expected a JSON object (a result), found {type(data).__name__}", _HINT)
    check_depth(data, source)
    kind, version = _kind(data, source)
    reader = getattr(RESULT_CLASSES.resolve(kind), "from_dict", None) if kind in RESULT_CLASSES else None
    if reader is not None:
        # from_dict(data, source) names the file in its errors; a reader without ``source`` still reads the data
        typed = reader(data, source) if len(inspect.signature(reader).parameters) >= 2 else reader(data)
        return LoadedResult(kind, version, typed, label or _label(kind, typed), sha256)
    missing = [key for key in _DICT_KEYS[kind] if key not in data]
    if missing:
        raise ReaderError(
            source,
            0,
            missing[0],
            f"a {kind} result ({version}) needs the keys {list(_DICT_KEYS[kind])}; missing: {missing}",
            "Write the file again with the pfungst version that reads it.",
        )
    if kind == "stress-comparison":
        for number, inner in enumerate(data["results"]):
            inner_kind = _kind(inner, f"{source}: results[{number}]")[0] if isinstance(inner, Mapping) else ""
            if inner_kind != "stress":
                raise ReaderError(source, 0, f"results[{number}]", "expected a stress result (pfungst.stress/1)", _HINT)
    return LoadedResult(kind, version, data, label or _label(kind, data), sha256)


def _kind(data: Mapping[str, Any], source: str) -> tuple[str, str]:
    version = data.get("schema_version")
    if version is None:
        keys = set(data)
        for kind, needed in _UNVERSIONED.items():
            if needed <= keys:
                return kind, f"pfungst.{kind}/0"
        raise ConfigError(
            f"{source}: no 'schema_version' and not a known result. Known schema versions: "
            f"{', '.join(_known())}. {_HINT}"
        )
    found = kind_of(version) if isinstance(version, str) else None
    if found is None or found == "report":
        raise ConfigError(
            f"{source}: unknown schema_version {version!r}. Known: {', '.join(_known())}. Read it "
            f"with the pfungst version that wrote it, or upgrade pfungst."
        )
    return found, version


def _known() -> list[str]:
    return [version for kind, version in SCHEMA_VERSIONS.items() if kind != "report"]


def _label(kind: str, result: Any) -> str:
    """What the report calls a result passed in Python: its benchmark's name and its kind."""
    benchmark = result.get("benchmark") if isinstance(result, Mapping) else getattr(result, "benchmark", None)
    if kind == "stress-comparison" and isinstance(result, Mapping) and result.get("results"):
        benchmark = result["results"][0].get("benchmark")
    name = benchmark.get("name") if isinstance(benchmark, Mapping) else None
    if kind == "reliance" and not isinstance(result, Mapping):
        name = ", ".join(dict.fromkeys(model.dataset for model in result.models)) or None
    if kind == "validity" and not isinstance(result, Mapping):
        name = ", ".join(screen.dataset for screen in result.datasets) or None
    return f"{name} ({kind})" if name else f"({kind})"
