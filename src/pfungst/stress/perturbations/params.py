"""Perturbation parameters: parsed from ``name:key=value,key=value``, checked against the perturbation's constructor,
converted to its annotated types, and recorded as a ``{"name", "params"}`` spec (STYLE rule 24).

A perturbation with parameters is a frozen dataclass whose fields are its parameters (``PridePerturbation(fraction=
0.05)``); it checks their values at construction (:func:`check_param`). A perturbation without parameters may be any
class with a constructor that takes none.

Example:
    >>> parse_spec("pride:fraction=0.1")
    ('pride', {'fraction': '0.1'})
    >>> parse_spec("cyclic")
    ('cyclic', {})
    >>> parse_spec('instructions:texts="Answer, briefly."')
    ('instructions', {'texts': 'Answer, briefly.'})
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import shlex
import types
import typing
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pfungst.errors import ConfigError

__all__ = [
    "check_count_param",
    "check_param",
    "coerce_params",
    "is_count",
    "param_names",
    "parse_spec",
    "perturbation_spec",
    "spec_text",
]

_NONE = ("none", "null")
_BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def parse_spec(text: str) -> tuple[str, dict[str, str]]:
    """The name and the parameters (as text) of a perturbation written ``name`` or ``name:key=value,key=value``.

    A value holding commas is written in double quotes (``instructions:texts="Answer, briefly."``).

    Raises:
        ConfigError: a parameter without ``=``, an empty key or name, a key given twice, an unclosed quote, a
            control character (a line break, a tab) anywhere, or a name or key holding a space: the spec is read
            whole or not at all.
    """
    control = next((char for char in text if unicodedata.category(char) in ("Cc", "Cf")), None)
    if control is not None:
        raise ConfigError(
            f"perturbation {text!r}: holds the control character {control!r} at position {text.index(control)}; "
            "write the spec on one line, name:key=value,key=value (a paraphrase with line breaks goes in a file: "
            "-p instructions:file=paraphrases.txt)"
        )
    name, _, rest = (part.strip() for part in text.partition(":"))
    if not name:
        raise ConfigError(f"perturbation {text!r}: no name; write name or name:key=value,key=value (-p pride)")
    if any(char.isspace() for char in name):
        raise ConfigError(f"perturbation {text!r}: the name {name!r} holds a space; write name:key=value")
    params: dict[str, str] = {}
    for entry in _entries(text, rest):
        key, equals, value = (part.strip() for part in entry.partition("="))
        if not name or not equals or not key or key in params:
            problem = f"'{key}' is given twice" if key in params else f"'{entry}' is not key=value"
            raise ConfigError(
                f"perturbation {text!r}: {problem if name else 'no name'}; write name or name:key=value,key=value "
                "(-p pride:fraction=0.1)"
            )
        if any(char.isspace() for char in key):
            raise ConfigError(f"perturbation {text!r}: the parameter name {key!r} holds a space; write key=value")
        params[key] = value
    return name, params


def _entries(text: str, rest: str) -> list[str]:
    """``rest`` split at commas outside double quotes, the quotes removed (``texts="Answer, briefly."``)."""
    lexer = shlex.shlex(rest, posix=True)
    lexer.whitespace, lexer.whitespace_split, lexer.commenters = ",", True, ""
    lexer.quotes, lexer.escape = '"', ""  # apostrophes and backslashes (Windows paths) are literal
    try:
        return [entry.strip() for entry in lexer]
    except ValueError:
        raise ConfigError(
            f'perturbation {text!r}: a double quote is not closed; quote a value with commas as key="a, b"'
        ) from None


def param_names(target: Callable[..., Any]) -> tuple[str, ...]:
    """The keyword parameters a perturbation class (or factory) takes, in order."""
    if dataclasses.is_dataclass(target):
        return tuple(f.name for f in dataclasses.fields(target) if f.init)
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in signature.parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def coerce_params(name: str, target: Callable[..., Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` checked against what ``target`` takes; a value given as text (from the command line) converted to
    the parameter's annotated type (``int``, ``float``, ``bool``, ``str``, a ``Literal``, ``Path``, ``None`` written
    ``none``, and unions of them).

    Raises:
        ConfigError: an unknown parameter (the message lists the perturbation's parameters), or text that is not of
            the parameter's type.
    """
    known = param_names(target)
    for key in params:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=3, cutoff=0.6)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            listed = ", ".join(known) if known else "none"
            raise ConfigError(f"perturbation '{name}' has no parameter '{key}'.{hint} Its parameters: {listed}")
    hints = _hints(target)
    return {
        key: _convert(name, key, value, hints[key]) if isinstance(value, str) and key in hints else value
        for key, value in params.items()
    }


def _hints(target: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(target)
    except Exception:  # an annotation that does not resolve: values stay as given and the constructor checks them
        return {}


def _convert(name: str, key: str, text: str, annotation: Any) -> Any:
    """``text`` as a value of ``annotation``: each member of a union tried in turn."""
    options = typing.get_args(annotation) if _is_union(annotation) else (annotation,)
    for option in options:
        found, value = _convert_one(text, option)
        if found:
            return value
    expected = " or ".join(_type_name(option) for option in options)
    raise ConfigError(f"perturbation '{name}': parameter '{key}' must be {expected}, got {text!r}")


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _convert_one(text: str, option: Any) -> tuple[bool, Any]:
    """Whether ``text`` reads as a value of the type ``option``, and that value."""
    lowered = text.strip().lower()
    if option is type(None):
        return lowered in _NONE, None
    if typing.get_origin(option) is Literal:
        return text in typing.get_args(option), text
    if option is bool:
        return lowered in _BOOLEANS, _BOOLEANS.get(lowered)
    if option in (int, float):
        try:
            return True, option(text)
        except ValueError:
            return False, None
    if option in (str, Path, Any):
        return True, text if option is not Path else Path(text)
    if typing.get_origin(option) is tuple and typing.get_args(option)[1:] == (Ellipsis,):
        found, value = _convert_one(text, typing.get_args(option)[0])  # one value on the command line: a 1-tuple
        return found, (value,) if found else None
    return False, None


def _type_name(option: Any) -> str:
    if option is type(None):
        return "none"
    if typing.get_origin(option) is Literal:
        return " or ".join(repr(value) for value in typing.get_args(option))
    names = {int: "a whole number", float: "a number", bool: "true or false"}
    return names.get(option, getattr(option, "__name__", "?"))


def check_param(perturbation: str, param: str, value: Any, ok: bool, expected: str) -> None:
    """Raise unless ``ok``: the message names the perturbation, the parameter, what it must be and what it is.

    Raises:
        ConfigError: ``perturbation 'pride': parameter 'fraction' must be in (0, 1], got 0``.

    Example:
        >>> check_param("formats", "n", 8, True, "a whole number of at least 1")
    """
    if not ok:
        raise ConfigError(f"perturbation '{perturbation}': parameter '{param}' must be {expected}, got {value!r}")


def is_count(value: Any, minimum: int = 1) -> bool:
    """Whether ``value`` is a whole number (not a bool) of at least ``minimum``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def check_count_param(perturbation: str, param: str, value: Any, minimum: int = 1) -> None:
    """:func:`check_param` for a whole-number parameter of at least ``minimum``.

    Raises:
        ConfigError: ``perturbation 'formats': parameter 'n' must be a whole number of at least 1, got 0``.
    """
    check_param(perturbation, param, value, is_count(value, minimum), f"a whole number of at least {minimum}")


def perturbation_spec(perturbation: Any) -> dict[str, Any]:
    """``{"name": ..., "params": {...}}``: the perturbation's name and, for a dataclass, its fields (JSON-safe)."""
    params = (
        {f.name: _jsonable(getattr(perturbation, f.name)) for f in dataclasses.fields(perturbation) if f.init}
        if dataclasses.is_dataclass(perturbation)
        else {}
    )
    return {"name": perturbation.name, "params": params}


def spec_text(spec: Any) -> str:
    """A recorded spec as a reader sees it: ``pride(fraction=0.05)``, ``cyclic``; anything else as its ``str``.

    Example:
        >>> spec_text({"name": "formats", "params": {"n": 8}})
        'formats(n=8)'
    """
    if not isinstance(spec, Mapping) or "name" not in spec:
        return str(spec)
    params = spec.get("params") or {}
    inner = ", ".join(f"{key}={value!r}" for key, value in params.items()) if isinstance(params, Mapping) else ""
    return f"{spec['name']}({inner})" if inner else str(spec["name"])


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(entry) for entry in value]
    if isinstance(value, Path):
        return str(value)
    return value
