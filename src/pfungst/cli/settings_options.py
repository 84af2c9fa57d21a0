"""Command-line options generated from a config dataclass's declared settings (:mod:`pfungst.settings`).

A command takes a config as one parameter (``settings: AuditConfig``, or ``Annotated[StressConfig, Settings(...)]``
for other defaults or fewer options); :func:`~pfungst.cli.option_groups.with_option_groups` lays out one option
per declared field (nested configs included: ``StressConfig.run.rule`` is ``--rule``) and hands the command the
config built from them. The option's name, help, default, choices and check are the field's: nothing about a setting
is written twice. An option's text that cannot be read (``parse``) is refused as it is read; the values are checked
by the config itself when it is built (:func:`~pfungst.settings.check_settings` and its own checks), and a value it
refuses ends the command with exit 2 and one message naming the option and what is allowed.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from pfungst.errors import ConfigError
from pfungst.settings import Setting, setting_of

__all__ = ["ConfigOption", "Settings", "build_config", "config_options", "settings_marker"]


@dataclass(frozen=True)
class Settings:
    """Marks a command parameter as a config whose options are generated: ``Annotated[StressConfig, Settings(...)]``.

    A bare config type (``settings: AuditConfig``) is the same as ``Settings()``.
    """

    default: Callable[[], Any] | None = None
    """Builds the config whose values are the options' defaults (None: the config type's own defaults)."""
    exclude: tuple[str, ...] = ()
    """Fields (by name, at any depth) offered as no option: the command keeps their default."""


@dataclass(frozen=True)
class ConfigOption:
    """One generated option: the config field it sets (``path``: ``("run", "rule")``), its declaration and the
    keyword parameter typer reads."""

    path: tuple[str, ...]
    declared: Setting
    default: Any
    """The field's value in the default config."""
    parameter: inspect.Parameter

    @property
    def name(self) -> str:
        """The field's (and the parameter's) name."""
        return self.path[-1]

    def value(self, given: Any) -> Any:
        """The field's value for the option's parsed command-line value ``given``."""
        read = self.declared.parse or (lambda text: text)
        if self.declared.repeat:
            return tuple(read(item) for item in given) if given else self.default
        if self.declared.parse is not None and given is not None:
            return read(given)
        return given


def settings_marker(hint: Any) -> tuple[type, Settings] | None:
    """``(config type, marker)`` when a command parameter's annotation ``hint`` is a config to generate options
    from: a dataclass type with declared settings, bare or ``Annotated`` with :class:`Settings`; else None."""
    marker = Settings()
    if typing.get_origin(hint) is Annotated:
        hint, *extras = typing.get_args(hint)
        found = [extra for extra in extras if isinstance(extra, Settings)]
        if not found:
            return None
        marker = found[0]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and _declares_settings(hint):
        return hint, marker
    return None


def _declares_settings(config_type: type) -> bool:
    return any(setting_of(field) is not None for field in dataclasses.fields(config_type))


def config_options(config_type: type, marker: Settings) -> list[ConfigOption]:
    """The options generated from ``config_type``'s declared settings (those of its nested configs included), in
    field order, with the defaults of ``marker.default()`` (or of ``config_type()``)."""
    default = marker.default() if marker.default is not None else config_type()
    return [option for option in _walk(default, ()) if option.name not in marker.exclude]


def build_config(config_type: type, marker: Settings, options: dict[str, Any]) -> Any:
    """The config built from the command's ``options`` (each generated option popped from it), its fields not
    offered at their defaults.

    Raises:
        ConfigError: a value the config's own checks refuse.
    """
    default = marker.default() if marker.default is not None else config_type()
    values = {option.path: option.value(options.pop(option.name)) for option in config_options(config_type, marker)}
    return _replaced(default, (), values)


def _replaced(config: Any, path: tuple[str, ...], values: dict[tuple[str, ...], Any]) -> Any:
    """``config`` (at ``path``) with the given values of its fields and of its nested configs' fields."""
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(config):
        where = (*path, field.name)
        if where in values:
            changes[field.name] = values[where]
        elif any(key[: len(where)] == where for key in values):
            changes[field.name] = _replaced(getattr(config, field.name), where, values)
    return dataclasses.replace(config, **changes)


def _walk(config: Any, path: tuple[str, ...]) -> Iterator[ConfigOption]:
    hints = _hints(type(config))
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        declared = setting_of(field)
        if declared is not None:
            yield _option((*path, field.name), declared, value, hints.get(field.name))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            yield from _walk(value, (*path, field.name))


def _hints(config_type: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(config_type)
    except (NameError, TypeError):  # a name only imported for type checking: the defaults' types are used
        return {}


def _option(path: tuple[str, ...], declared: Setting, default: Any, hint: Any) -> ConfigOption:
    """The keyword parameter typer reads for one declared field."""
    name = path[-1]
    if declared.repeat:
        annotation: Any = list[str] | None
        shown: Any = None
    elif declared.parse is not None:
        annotation, shown = (str if default is not None else str | None), _shown(declared, default)
    else:
        annotation, shown = _plain_type(hint, default), default
    flags = declared.flags or ()
    option = typer.Option(*flags, help=declared.help, callback=_checker(declared))
    parameter = inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=shown, annotation=Annotated[annotation, option]
    )
    return ConfigOption(path, declared, default, parameter)


def _shown(declared: Setting, default: Any) -> str | None:
    return None if default is None else declared.show(default)


def _plain_type(hint: Any, default: Any) -> Any:
    """The option's type for a field without ``parse``: ``bool``, ``float``, ``int`` or ``str`` (a ``Literal`` of
    names is ``str``), optional when the field may be None."""
    if hint is None:
        members: tuple[Any, ...] = ()
    else:
        members = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    kinds = [member for member in members if member is not type(None)]
    optional = default is None or len(kinds) < len(members)
    if not kinds:
        kinds = [type(default)]
    base = next((kind for kind in (bool, float, int) if kind in kinds), str)
    return base | None if optional else base


def _checker(declared: Setting) -> Callable[[Any], Any] | None:
    """The option's callback when its text is read (``parse``): a text that cannot be read is a usage error naming
    the option (exit 2); the value is checked where the config is built, by the config's own checks."""
    parse = declared.parse
    if parse is None:
        return None

    def read(value: Any) -> Any:
        try:
            for item in value if declared.repeat and value is not None else [value]:
                if item is not None:
                    parse(item)
        except (ConfigError, ValueError) as error:
            raise typer.BadParameter(str(error)) from None
        return value

    return read
