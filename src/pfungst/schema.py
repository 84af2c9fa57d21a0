"""Result schemas in one place: every kind's ``schema_version`` string, and typed reading of result JSON.

A shared module: each result class (``BenchmarkSummary``, ``AuditResult``, ``ScoreResult``, ``StressResult``,
``RelianceResult``, ...) takes its kind's version from :data:`SCHEMA_VERSIONS` and reads its ``to_dict()`` back
with :class:`Fields`, which checks every value's type and names the file and the field path of the first one that
is wrong: ``audit.json: field 'probes[3].kappa.value': expected a number, found 'zero point five'``.

:func:`read_dataclass` reads a plain dataclass field by field from its type hints (str, int, float, bool,
``Estimate``, tuples, dicts, nested dataclasses), so a part with no computed fields needs no reading code.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from pfungst.errors import PfungstError, ReaderError
from pfungst.stats import ConfidenceInterval, Estimate

__all__ = [
    "MAX_DEPTH",
    "MAX_INTEGER",
    "SCHEMA_VERSIONS",
    "Fields",
    "check_depth",
    "kind_of",
    "read_dataclass",
    "read_estimate",
]

SCHEMA_VERSIONS: dict[str, str] = {
    "audit": "pfungst.audit/3",
    "summary": "pfungst.summary/1",
    "stress": "pfungst.stress/1",
    "stress-comparison": "pfungst.stress-comparison/1",
    "rank-stability": "pfungst.rank-stability/1",
    "score": "pfungst.score/2",
    "reliance": "pfungst.reliance/1",
    "validity": "pfungst.validity/2",
    "report": "pfungst.report/1",
    "suite": "pfungst.suite/2",
}
"""Kind of result -> the ``schema_version`` its JSON carries. A changed field meaning bumps the number here."""

MAX_DEPTH = 64
"""The deepest nesting a result file may have (pfungst writes at most about ten levels)."""

MAX_INTEGER = 2**53
"""The largest whole number (in size) a result file may hold: past it a count no longer converts to a float."""

_HINT = "Pass a result file that a pfungst command wrote with --json, unchanged."

_PROPORTIONS = {"level", "alpha", "power", "chance", "coverage", "productivity"}
_PROPORTION_SUFFIXES = ("pvalue", "qvalue", "_share", "_rate", "_fraction")
_PROPORTION_PREFIXES = ("pvalue_", "qvalue_", "share_")
"""Numbers that lie in [0, 1] wherever a result holds them, by key: p- and q-values, interval levels, shares."""


def _is_proportion(key: str) -> bool:
    return key in _PROPORTIONS or key.endswith(_PROPORTION_SUFFIXES) or key.startswith(_PROPORTION_PREFIXES)


def _is_proportion_estimate(key: str) -> bool:
    """An estimate of an accuracy (a share of items; not a chance-corrected one, which may be negative)."""
    return (key == "accuracy" or key.endswith("_accuracy")) and "corrected" not in key


def _is_count(key: str) -> bool:
    return key == "n" or key.startswith("n_")


_BENCHMARK_KEYS: dict[str, Any] = {"name": str, "n_items": int, "option_kind": str, "labels": tuple[str, ...]}
_BENCHMARK_KEYS |= {"option_counts": dict[str, int], "provenance": dict[str, Any]}
_PROVENANCE_KEYS: dict[str, Any] = (
    dict.fromkeys(("source", "sha256", "format", "layout"), str)
    | dict.fromkeys(
        ("rows_read", "rows_kept", "rows_rejected", "duplicate_texts", "conflicting_duplicates", "duplicate_ids"), int
    )
    | dict.fromkeys(("steps", "warnings"), tuple[str, ...])
)
"""The keys of a benchmark's ``to_dict()`` (and its provenance) that reports read, with their types."""

T = TypeVar("T")


def kind_of(version: str) -> str | None:
    """The kind whose schema is ``version`` (``pfungst.audit/3`` -> ``audit``); None for a version no kind has.

    Example:
        >>> kind_of("pfungst.audit/3"), kind_of("pfungst.audit/9")
        ('audit', None)
    """
    return next((kind for kind, known in SCHEMA_VERSIONS.items() if known == version), None)


def check_depth(data: Any, source: str, limit: int = MAX_DEPTH) -> None:
    """Refuse JSON nested deeper than ``limit`` levels (walked without recursion).

    Raises:
        ReaderError: naming the file and the path to the first value that is too deep.
    """
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if depth > limit:
            raise ReaderError(source, 0, path, f"nested deeper than {limit} levels", _HINT)
        if isinstance(value, Mapping):
            stack.extend((item, _join(path, str(key)), depth + 1) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _digits(value: int) -> str:
    return f"about {int(value.bit_length() * math.log10(2)) + 1} digits"


def _describe(value: Any) -> str:
    """What was found, for a message: a short repr of a scalar, the JSON type of a container."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Fields:
    """A JSON object of a result file with typed, checked access; errors name the file and the field path.

    Example:
        >>> fields = Fields({"probes": [{"kappa": {"value": "zero point five"}}]}, "audit.json")
        >>> fields.records("probes")[0].sub("kappa").number("value")
        Traceback (most recent call last):
        ...
        pfungst.errors.ReaderError: audit.json: field 'probes[0].kappa.value': expected a number, found 'zero \
point five'. Pass a result file that a pfungst command wrote with --json, unchanged.
    """

    def __init__(self, data: Any, source: str, path: str = "", line: int = 0) -> None:
        self.source = source
        """The file the data came from (or ``<dict>``)."""
        self.path = path
        """Where this object sits in the file (``probes[3].kappa``); empty at the top."""
        self.line = line
        """The line of a JSON Lines file the object is on; 0 for a JSON document."""
        if not isinstance(data, Mapping):
            raise self._error("", f"expected an object, found {_describe(data)}")
        self.data: Mapping[str, Any] = data

    def _error(self, key: str, reason: str) -> ReaderError:
        return ReaderError(self.source, self.line, _join(self.path, key) if key else self.path, reason, _HINT)

    def error(self, key: str, reason: str) -> ReaderError:
        """A :class:`ReaderError` at ``key`` of this object (for checks beyond types)."""
        return self._error(key, reason)

    def check_schema(self, version: str) -> None:
        """Raise a :class:`ReaderError` at ``schema_version`` unless it is ``version`` (a file of another schema)."""
        if self.string("schema_version") != version:
            raise self._error("schema_version", f"expected {version!r}")

    def has(self, key: str) -> bool:
        """Whether ``key`` is present and not null."""
        return self.data.get(key) is not None

    def raw(self, key: str) -> Any:
        """The value at ``key``; a missing key is an error."""
        if key not in self.data:
            raise self._error(key, "missing")
        return self.data[key]

    def string(self, key: str) -> str:
        """A string."""
        value = self.raw(key)
        if not isinstance(value, str):
            raise self._error(key, f"expected a string, found {_describe(value)}")
        return value

    def integer(self, key: str) -> int:
        """An integer (not a boolean) of at most :data:`MAX_INTEGER` in size; a count (``n``, ``n_*``) is not
        negative."""
        value = self.raw(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._error(key, f"expected a whole number, found {_describe(value)}")
        if abs(value) > MAX_INTEGER:
            raise self._error(key, f"a whole number of {_digits(value)} is out of range (at most 2^53 in size)")
        if value < 0 and _is_count(key):
            raise self._error(key, f"a count cannot be negative, found {value}")
        return value

    def number(self, key: str) -> float:
        """A finite number; null (how NaN is written) reads as NaN. A p- or q-value, level or share lies in [0, 1].

        Raises:
            ReaderError: not a number, ``NaN`` or ``Infinity`` written as such (pfungst writes null), or a
                proportion outside [0, 1].
        """
        value = self.raw(key)
        if value is None:
            return math.nan
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._error(key, f"expected a number, found {_describe(value)}")
        try:
            number = float(value)
        except OverflowError:  # a whole number past 1.8e308
            raise self._error(key, f"expected a finite number, found one of {_digits(int(value))}") from None
        if not math.isfinite(number):
            raise self._error(key, f"expected a finite number or null, found {value}")
        if _is_proportion(key) and not 0 <= number <= 1:
            raise self._error(key, f"{number:g} is outside [0, 1]")
        return number

    def boolean(self, key: str) -> bool:
        """True or false."""
        value = self.raw(key)
        if not isinstance(value, bool):
            raise self._error(key, f"expected true or false, found {_describe(value)}")
        return value

    def mapping(self, key: str) -> dict[str, Any]:
        """An object, as a dict (its values unchecked)."""
        value = self.raw(key)
        if not isinstance(value, Mapping):
            raise self._error(key, f"expected an object, found {_describe(value)}")
        return dict(value)

    def sub(self, key: str) -> Fields:
        """The object at ``key``, for checked access."""
        return Fields(self.mapping(key), self.source, _join(self.path, key), self.line)

    def items(self, key: str) -> list[Any]:
        """A list (its entries unchecked)."""
        value = self.raw(key)
        if not isinstance(value, list):
            raise self._error(key, f"expected a list, found {_describe(value)}")
        return value

    def records(self, key: str) -> list[Fields]:
        """A list of objects, each for checked access."""
        return [
            Fields(entry, self.source, f"{_join(self.path, key)}[{index}]", self.line)
            for index, entry in enumerate(self.items(key))
        ]

    def estimate(self, key: str) -> Estimate:
        """An :class:`~pfungst.stats.Estimate` (``value``, ``ci``, ``pvalue``, ``baseline``, ``method``, ``n``)."""
        return read_estimate(self.sub(key), proportion=_is_proportion_estimate(key))

    def benchmark(self, key: str = "benchmark") -> dict[str, Any]:
        """A ``Benchmark.to_dict()``: the keys reports read are checked (name, counts, labels, provenance)."""
        fields = self.sub(key)
        for name, hint in _BENCHMARK_KEYS.items():
            if fields.has(name):
                fields.typed(name, hint)
        provenance = fields.sub("provenance") if fields.has("provenance") else Fields({}, self.source)
        for name, hint in _PROVENANCE_KEYS.items():
            if provenance.has(name):
                provenance.typed(name, hint)
        for record in provenance.records("rejected") if provenance.has("rejected") else ():
            record.string("reason")
        return dict(fields.data)

    def typed(self, key: str, hint: Any) -> Any:
        """The value at ``key`` read as the type ``hint`` (see :func:`read_dataclass`)."""
        value = self.raw(key)
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if hint is Any:
            return value
        if origin in (typing.Union, types.UnionType):
            if value is None and type(None) in args:
                return None
            return self.typed(key, next(arg for arg in args if arg is not type(None)))
        if origin is typing.Literal:
            found = self.string(key) if isinstance(args[0], str) else self.integer(key)
            if found not in args:
                raise self._error(key, f"expected one of {', '.join(map(repr, args))}, found {_describe(found)}")
            return found
        if hint is str:
            return self.string(key)
        if hint is bool:
            return self.boolean(key)
        if hint is int:
            return self.integer(key)
        if hint is float:
            return self.number(key)
        if hint is Estimate:
            return self.estimate(key)
        if origin is tuple:
            return self._tuple(key, args)
        if origin in (dict, Mapping) or hint is dict:
            return self._dict(key, args)
        if dataclasses.is_dataclass(hint):
            reader = getattr(hint, "from_fields", None)
            return reader(self.sub(key)) if reader else read_dataclass(hint, self.sub(key))  # type: ignore[arg-type]
        raise TypeError(f"no reader for {hint!r}")  # a bug in a result class, not in the file

    def _tuple(self, key: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
        entries = self.items(key)
        if len(args) == 2 and args[1] is Ellipsis:
            hints = [args[0]] * len(entries)
        elif len(entries) != len(args):
            raise self._error(key, f"expected a list of {len(args)}, found {len(entries)} entries")
        else:
            hints = list(args)
        name = _join(self.path, key)
        return tuple(
            _entry(self, name, index, entry, hint)
            for index, (entry, hint) in enumerate(zip(entries, hints, strict=True))
        )

    def _dict(self, key: str, args: tuple[Any, ...]) -> dict[str, Any]:
        value = self.mapping(key)
        if len(args) != 2 or args[1] is Any:
            return value
        name = _join(self.path, key)
        return {str(k): _entry(self, name, k, v, args[1]) for k, v in value.items()}


def _entry(fields: Fields, name: str, index: Any, value: Any, hint: Any) -> Any:
    """One entry of a list or dict at ``name``, read as ``hint``, with errors at ``name[index]``."""
    where = f"{name}[{index}]" if isinstance(index, int) else _join(name, str(index))
    holder = Fields({"_": value}, fields.source, "", fields.line)
    try:
        return holder.typed("_", hint)
    except ReaderError as error:
        inner = error.field[1:].lstrip(".")
        raise ReaderError(
            fields.source, fields.line, where + ("." + inner if inner else ""), error.reason, _HINT
        ) from None


def read_estimate(fields: Fields, proportion: bool = False) -> Estimate:
    """The :class:`~pfungst.stats.Estimate` that ``Estimate.to_dict()`` wrote, every value's type checked; with
    ``proportion``, the value and interval must lie in [0, 1] (an accuracy).

    Raises:
        ReaderError: a value of the wrong type, a missing key, an interval whose low is above its high.
    """
    ci = None
    if fields.has("ci"):
        bounds = fields.sub("ci")
        low, high = bounds.number("low"), bounds.number("high")
        if low > high:  # False when either is NaN (an interval that could not be computed)
            raise bounds.error("", f"low {low:g} is above high {high:g}")
        ci = ConfidenceInterval(low, high, bounds.number("level"))
    value = fields.number("value")
    if proportion:
        for name, number in (("value", value), ("ci.low", ci.low if ci else 0), ("ci.high", ci.high if ci else 0)):
            if not 0 <= number <= 1 and not math.isnan(number):
                raise fields.error(name, f"an accuracy of {number:g} is outside [0, 1]")
    return Estimate(
        value=value,
        method=fields.string("method"),
        n=fields.integer("n"),
        ci=ci,
        pvalue=fields.number("pvalue") if "pvalue" in fields.data else math.nan,
        baseline=fields.number("baseline") if "baseline" in fields.data else math.nan,
    )


def read_dataclass(cls: type[T], fields: Fields, renames: Mapping[str, str] | None = None) -> T:
    """An instance of the dataclass ``cls`` read from ``fields`` by its type hints; a missing key takes the
    field's default where it has one.

    Args:
        cls: A dataclass whose fields are str, int, float, bool, ``Estimate``, ``Literal``, ``X | None``, tuples,
            dicts or other dataclasses (read with their ``from_fields`` classmethod if they have one).
        fields: The JSON object.
        renames: Field name -> key, where the JSON key differs (``class_name`` -> ``class``).

    Raises:
        ReaderError: a value of the wrong type, or a required key missing.
    """
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not field.init:
            continue
        key = (renames or {}).get(field.name, field.name)
        has_default = field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
        if key not in fields.data and has_default:
            continue
        values[field.name] = fields.typed(key, hints[field.name])
    try:
        return cls(**values)
    except PfungstError as error:  # a value of the right type that the class refuses (a setting out of range)
        raise ReaderError(fields.source, 0, fields.path, str(error), _HINT) from None
