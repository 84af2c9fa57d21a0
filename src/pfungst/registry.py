"""The one registry mechanism: name -> object or lazy ``"module:Name"`` string, extended by entry points.

Every extension point of pfungst (readers, feature sets, scoring rules, perturbations, backends, model providers,
outcome formats, result kinds) is a :class:`Registry`. Built-in entries are listed in the module that owns the
extension point; a third-party package adds its own by declaring an entry point in the registry's group
(``pfungst.readers``, ``pfungst.feature_sets``, ``pfungst.scoring_rules``, ``pfungst.perturbations``,
``pfungst.backends``, ``pfungst.providers``, ``pfungst.results``), the convention of pytest and inspect_ai. Nothing
is imported before a name is resolved (STYLE rule 16), and an unknown name lists close matches and every choice
(rule 17).

A plugin whose code fails (its import, its constructor, its ``sniff``) raises :class:`~pfungst.errors.PluginError`
naming the package, the entry point and the error when its name is asked for; where every entry is visited
(``pfungst formats``, format detection) :meth:`Registry.skip_if_broken` warns once and leaves that entry out. A plugin
that tries to end the process (``SystemExit``, ``KeyboardInterrupt`` raised on import, construction or ``sniff``) is
a :class:`~pfungst.errors.PluginError` everywhere, never skipped: the command stops with exit 2 naming it.

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
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib import metadata
from typing import Any, Generic, NamedTuple, TypeVar

from pfungst.errors import ConfigError, MissingDependency, PfungstError, PluginError, unknown_name_message

__all__ = ["ENTRY_POINT_GROUPS", "PluginWarning", "Registry", "resolve_target"]

T = TypeVar("T")
R = TypeVar("R")

ENTRY_POINT_GROUPS: tuple[str, ...] = (
    "pfungst.readers",
    "pfungst.feature_sets",
    "pfungst.scoring_rules",
    "pfungst.perturbations",
    "pfungst.backends",
    "pfungst.providers",
    "pfungst.results",
    "pfungst.derived",
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


_ENDINGS: tuple[type[BaseException], ...] = (SystemExit, KeyboardInterrupt)
"""What a plugin may raise to end the process (``sys.exit(0)``, a stray ``KeyboardInterrupt``): caught like any
error of its code and reported as a :class:`PluginError` naming it, so that a plugin cannot make a command (a release
gate) exit 0 without doing its work. ``os._exit`` ends the process without raising and cannot be caught."""


class _Plugin(NamedTuple):
    """One entry point read from an installed package."""

    target: str
    distribution: str
    version: str
    entry_point: str
    """``group: name = module:Name``, as the package declares it."""

    def failure(self, kind: str, name: str, step: str, error: BaseException) -> PluginError:
        """The error for this plugin's ``step`` (``import``, ``construction``, ``sniff``) having raised ``error``."""
        package = " ".join(part for part in (self.distribution or "an unknown package", self.version) if part)
        cause = " ".join(f"{type(error).__name__}{f': {error}' if str(error) else ''}".split())
        cause = cause if len(cause) <= 300 else cause[:297] + "..."
        if isinstance(error, _ENDINGS):
            cause += " (a plugin may not end the run)"
        return PluginError(
            f"{kind} '{name}' from the plugin {package} (entry point {self.entry_point}) failed on {step}: {cause}. "
            f"Fix or uninstall {self.distribution or 'that package'}."
        )


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
        self._broken: dict[str, PluginError] = {}

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
            version = point.dist.version if point.dist is not None else ""
            entry = f"{point.group}: {point.name} = {point.value}"
            plugins[point.name] = _Plugin(point.value, distribution, version, entry)
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
        plugin = self._plugin(name)
        return plugin.distribution if plugin is not None else None

    def check(self, name: str) -> None:
        """Raise :class:`ConfigError` (close matches and every name) unless ``name`` is registered."""
        if not isinstance(name, str):  # a setting read from a file may hold anything
            raise ConfigError(
                f"a {self.kind} name must be text, found {name!r:.40}. Available: {', '.join(sorted(self))}"
            )
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
        if not isinstance(target, str):
            return target
        with self.plugin_code(name, "import", everything=True):
            resolved: T = resolve_target(target)
        return resolved

    @contextmanager
    def plugin_code(self, name: str, step: str, *, everything: bool = False) -> Iterator[None]:
        """Inside, an exception raised by the plugin registered as ``name`` becomes a :class:`PluginError` naming its
        package, entry point and ``step``; a built-in's passes unchanged (a bug in pfungst keeps its traceback).

        Args:
            name: A registered name.
            step: What ran, for the message: ``import``, ``construction``, ``sniff``.
            everything: Also wrap pfungst's own errors (an import's MissingDependency); by default a plugin that
                raises a :class:`~pfungst.errors.PfungstError` (a backend that cannot reach its server) means it.
        """
        plugin = self._plugin(name)
        try:
            yield
        except PluginError:
            raise
        except (Exception, SystemExit, KeyboardInterrupt) as error:
            if plugin is None or (isinstance(error, PfungstError) and not everything):
                raise
            raise plugin.failure(self.kind, name, step, error) from error

    def create(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """The component ``name`` called with the arguments (a class built, a factory run), plugin failures
        reported as :class:`PluginError`."""
        target: Any = self.resolve(name)
        with self.plugin_code(name, "construction"):
            return target(*args, **kwargs)

    def skip_if_broken(self, name: str, step: str, use: Callable[..., R], *args: Any) -> R | None:
        """``use(*args)``; for a plugin that raises, one warning naming its package and None from then on.

        For code that visits every entry (``pfungst formats``, format detection): one broken plugin must not break
        the others. A built-in entry's exception propagates.
        """
        if name in self._broken:
            return None
        plugin = self._plugin(name)
        try:
            return use(*args)
        except (Exception, SystemExit, KeyboardInterrupt) as error:
            if plugin is None:
                raise
            failure = error if isinstance(error, PluginError) else plugin.failure(self.kind, name, step, error)
            if isinstance(error, _ENDINGS) or isinstance(error.__cause__, _ENDINGS):
                raise failure from error  # it tried to end the run: stop, never go on as if it were not there
        self._broken[name] = failure
        warnings.warn(f"{failure} It is skipped.", PluginWarning, stacklevel=2)
        return None

    def _plugin(self, name: str) -> _Plugin | None:
        self._entries()
        return (self._plugins or {}).get(name)

    def refresh(self) -> None:
        """Forget the entry points read so far (after installing a plugin into a running interpreter)."""
        self._plugins = None
        self._merged = None
        self._broken = {}


class PluginWarning(UserWarning):
    """An installed plugin failed and its entry is left out."""
