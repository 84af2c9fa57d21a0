"""The one registry mechanism: name -> object or lazy ``"module:Name"`` string, extended by entry points.

Every extension point of pfungst (readers, feature sets, scoring rules, perturbations, backends, outcome formats)
is a :class:`Registry`. Built-in entries are listed in the module that owns the extension point; a third-party
package adds its own by declaring an entry point in the registry's group (``pfungst.readers``,
``pfungst.feature_sets``, ``pfungst.scoring_rules``, ``pfungst.perturbations``, ``pfungst.backends``), the
convention of pytest and inspect_ai. Nothing is imported before a name is resolved (STYLE rule 16), and an unknown
name lists close matches and every choice (rule 17).

Example:
    >>> rules = Registry("scoring rule", {"letter": "pfungst.evaluate.scoring.letter:LetterRule"}, group=None)
    >>> "letter" in rules, rules.resolve("letter").__name__
    (True, 'LetterRule')
    >>> rules.resolve("leter")
    Traceback (most recent call last):
    ...
    pfungst.errors.ConfigError: Unknown scoring rule 'leter'. Did you mean: letter? Available: letter
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator, Mapping
from importlib import metadata
from typing import Any, Generic, NamedTuple, TypeVar

from pfungst.errors import ConfigError, MissingDependency, unknown_name_message

__all__ = ["ENTRY_POINT_GROUPS", "Registry", "resolve_target"]

T = TypeVar("T")

ENTRY_POINT_GROUPS: tuple[str, ...] = (
    "pfungst.readers",
    "pfungst.feature_sets",
    "pfungst.scoring_rules",
    "pfungst.perturbations",
    "pfungst.backends",
)
"""The entry-point groups through which installed packages extend pfungst."""


def resolve_target(target: str) -> Any:
    """Import ``"module:attribute"`` (the attribute may be dotted) or a bare ``"module"``, and return it.

    The forms are those of an entry point's value, so a registry entry and an entry point read alike.

    Raises:
        ConfigError: the string is not of that form, or the module has no such attribute.
        MissingDependency: the module (or a package it needs) is not installed.

    Example:
        >>> resolve_target("pfungst.errors:ConfigError.__name__")
        'ConfigError'
    """
    module_name, separator, attribute = (part.strip() for part in target.partition(":"))
    if not module_name or (separator and not attribute):
        raise ConfigError(f"{target!r} is not a 'module:Name' reference")
    try:
        value: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise MissingDependency(f"{target!r} needs the module '{exc.name}', which is not installed") from exc
    for part in attribute.split(".") if attribute else ():
        try:
            value = getattr(value, part)
        except AttributeError as exc:
            raise ConfigError(f"{target!r}: module '{module_name}' has no attribute '{attribute}'") from exc
    return value


class _Plugin(NamedTuple):
    """One entry point read from an installed package."""

    target: str
    distribution: str


class Registry(Mapping[str, Any], Generic[T]):
    """Names of one kind of component, each mapped to the component or to a lazy ``"module:Name"`` string.

    A registry is a read-only mapping (name -> registered target, as given) over the built-in entries followed by
    those of installed packages (entry-point group ``group``, read once on first use; a built-in name wins over a
    plugin's, and an earlier plugin over a later one, with a warning). ``registry[name]`` is the target as
    registered (a plugin's is its ``"module:Name"`` string); :meth:`resolve` imports a string target and returns
    the component.
    """

    def __init__(self, kind: str, entries: Mapping[str, T | str], *, group: str | None) -> None:
        self.kind = kind
        """What one entry is, for messages (``"scoring rule"``)."""
        self.group = group
        """The entry-point group that extends this registry (None: built-in entries only)."""
        self._builtin: dict[str, T | str] = dict(entries)
        self._plugins: dict[str, _Plugin] | None = None
        self._merged: dict[str, T | str] | None = None

    def _entries(self) -> dict[str, T | str]:
        if self._merged is None:
            self._plugins = self._read_entry_points()
            self._merged = {**self._builtin, **{name: plugin.target for name, plugin in self._plugins.items()}}
        return self._merged

    def _read_entry_points(self) -> dict[str, _Plugin]:
        plugins: dict[str, _Plugin] = {}
        for point in metadata.entry_points(group=self.group) if self.group else ():
            distribution = point.dist.name if point.dist is not None else ""
            if point.name in self._builtin or point.name in plugins:
                warnings.warn(
                    f"{self.kind} '{point.name}' from entry point {point.value!r} ({distribution or 'unknown'}) "
                    f"is ignored: {'a built-in' if point.name in self._builtin else 'another'} one has that name",
                    stacklevel=4,
                )
                continue
            plugins[point.name] = _Plugin(point.value, distribution)
        return plugins

    def __getitem__(self, name: str) -> T | str:
        return self._entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self)!r})"

    def is_plugin(self, name: str) -> bool:
        """Whether ``name`` comes from an installed package's entry point."""
        return name in self and name not in self._builtin

    def distribution(self, name: str) -> str | None:
        """The installed package (distribution) whose entry point registered ``name``; None for a built-in."""
        self._entries()
        plugin = (self._plugins or {}).get(name)
        return plugin.distribution if plugin is not None else None

    def check(self, name: str) -> None:
        """Raise :class:`ConfigError` (close matches and every name) unless ``name`` is registered."""
        if name not in self:
            raise ConfigError(unknown_name_message(self.kind, name, self))

    def resolve(self, name: str) -> T:
        """The component registered as ``name``, imported if it was given as ``"module:Name"``.

        Raises:
            ConfigError: an unknown name (close matches and every name listed), or a broken reference.
            MissingDependency: the component's module needs a package that is not installed.
        """
        self.check(name)
        target = self[name]
        if isinstance(target, str):
            resolved: T = resolve_target(target)
            return resolved
        return target

    def refresh(self) -> None:
        """Forget the entry points read so far (after installing a plugin into a running interpreter)."""
        self._plugins = None
        self._merged = None
