"""Each setting declared once: a config dataclass field carries its type, default, check and help in its metadata.

A field that users may set from the command line says so with :func:`setting`::

    n_splits: int = field(default=5, metadata=setting("Folds of the cross-fitting.", bounds=(2, MAX_SPLITS)))

The command line's options are generated from those fields (:mod:`pfungst.cli.settings_options`): the option's name
(``--n-splits``, or ``flags``), its help, its default (the config's own), its choices and its check all come from
here, and :func:`check_settings` runs the same checks on a config built in Python. This module imports nothing of
the command line, so data, audit and stress code may use it.

Example:
    >>> from dataclasses import dataclass, field
    >>> @dataclass(frozen=True)
    ... class Toy:
    ...     folds: int = field(default=5, metadata=setting("Folds.", bounds=(2, 10)))
    ...     def __post_init__(self) -> None:
    ...         check_settings(self)
    >>> Toy(folds=20)
    Traceback (most recent call last):
    ...
    pfungst.errors.ConfigError: folds (--folds) must be at most 10, not 20
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pfungst.errors import ConfigError

__all__ = ["Setting", "check_setting", "check_settings", "comma_list", "comma_text", "setting", "setting_of"]

_KEY = "pfungst.setting"


@dataclass(frozen=True)
class Setting:
    """How a config field is set by users: help, option names, choices, bounds, and how its text is read."""

    help: str
    """The option's help text (one or two sentences)."""
    flags: tuple[str, ...] = ()
    """The option's names (``("--perturbation", "-p")``); empty: ``--`` and the field name with dashes."""
    choices: tuple[str, ...] = ()
    """The values allowed (empty: any value of the field's type)."""
    bounds: tuple[float | None, float | None] = (None, None)
    """Smallest and largest value allowed, both included (None: no bound)."""
    check: Callable[[str, Any], None] | None = None
    """A further check ``check(label, value)`` raising :class:`~pfungst.errors.ConfigError` (``label`` names the
    field and its option)."""
    parse: Callable[[str], Any] | None = None
    """Reads the option's text into the field's value (``"0.1,1"`` -> ``(0.1, 1.0)``; a name -> an object); None:
    the option has the field's type."""
    show: Callable[[Any], str] = str
    """Writes a value as the option's text (the default shown by ``--help``); the inverse of ``parse``."""
    repeat: bool = False
    """The option is repeatable, each occurrence one element of the field's tuple (none given: the default)."""

    def option(self, name: str) -> str:
        """The option's main name for the field ``name``."""
        return self.flags[0] if self.flags else "--" + name.replace("_", "-")


def setting(
    help: str,
    *,
    flags: tuple[str, ...] = (),
    choices: tuple[str, ...] = (),
    bounds: tuple[float | None, float | None] = (None, None),
    check: Callable[[str, Any], None] | None = None,
    parse: Callable[[str], Any] | None = None,
    show: Callable[[Any], str] = str,
    repeat: bool = False,
) -> Mapping[str, Setting]:
    """The field metadata that declares a setting (``field(default=..., metadata=setting(...))``): see
    :class:`Setting` for each argument."""
    return {_KEY: Setting(help, flags, choices, bounds, check, parse, show, repeat)}


def setting_of(field: dataclasses.Field[Any]) -> Setting | None:
    """The :class:`Setting` a dataclass field declares, or None for a field users do not set."""
    found = field.metadata.get(_KEY)
    return found if isinstance(found, Setting) else None


def check_setting(name: str, declared: Setting, value: Any, choices: bool = True) -> None:
    """Raise :class:`ConfigError` when ``value`` is not a choice (unless ``choices`` is False), lies outside the
    bounds or fails the check of the setting ``declared`` for the field ``name``; the message names the field, its
    option and what is allowed."""
    label = f"{name} ({declared.option(name)})"
    values = value if declared.repeat and isinstance(value, tuple | list) else (value,)
    for one in values:
        if choices and declared.choices and isinstance(one, str) and one not in declared.choices:
            raise ConfigError(f"{label} must be {_alternatives(declared.choices)}, not {one!r}")
        _check_bounds(label, declared.bounds, one)
    if declared.check is not None:
        declared.check(label, value)


def _alternatives(choices: tuple[str, ...]) -> str:
    """``'a' or 'b'``; ``one of a, b, c`` for more."""
    if len(choices) <= 2:
        return " or ".join(repr(choice) for choice in choices)
    return "one of " + ", ".join(choices)


def _check_bounds(label: str, bounds: tuple[float | None, float | None], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    low, high = bounds
    if low is not None and not value >= low:  # `not >=` refuses NaN too
        raise ConfigError(f"{label} must be at least {low}, not {value}")
    if high is not None and not value <= high:
        raise ConfigError(f"{label} must be at most {high}, not {value}")


def check_settings(config: object, choices: bool = True) -> None:
    """Check every declared setting of the dataclass instance ``config`` (:func:`check_setting`); ``choices``:
    whether a value must also be one of its setting's choices (False where only :meth:`validate` checks names).

    Raises:
        ConfigError: the first value out of its choices or bounds, or failing its check.
    """
    for field in dataclasses.fields(config):  # type: ignore[arg-type]
        declared = setting_of(field)
        if declared is not None:
            check_setting(field.name, declared, getattr(config, field.name), choices)


def comma_list(text: str) -> tuple[str, ...]:
    """The names of a comma-separated list, blanks dropped (``"a, b,"`` -> ``("a", "b")``): the ``parse`` of a
    tuple-of-names setting, written back by :func:`comma_text`."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def comma_text(names: tuple[str, ...]) -> str:
    """The names as one comma-separated text (``("a", "b")`` -> ``"a,b"``): the ``show`` of a tuple-of-names
    setting."""
    return ",".join(names)
