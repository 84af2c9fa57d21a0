"""The exceptions pfungst raises, one hierarchy for the whole package.

Every error a user can cause derives from :class:`PfungstError`; the CLI prints its message and exits with 2.
Anything else that escapes is a bug and is shown with its traceback.

::

    PfungstError
    ├── DataError (also ValueError)          a benchmark could not be read or is not usable
    │   └── ReaderError                      ... at a known place: path, line (or record), field
    ├── ConfigError (also ValueError)        an option, name or combination of settings is invalid
    │   ├── MissingDependency (also ImportError)  an optional extra is needed and not installed
    │   └── PluginError                      an installed plugin's code failed (import, constructor, sniff)
    └── BackendError (also RuntimeError)     a language-model backend failed
        ├── BackendUnavailable               it could not be reached or started
        ├── RequestFailed                    it refused or failed one request
        │   └── ContextOverflow              ... a prompt longer than its context window
        └── ResponseInvalid                  it answered with something unusable
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "BackendError",
    "BackendUnavailable",
    "ConfigError",
    "ContextOverflow",
    "DataError",
    "MissingDependency",
    "PfungstError",
    "PluginError",
    "ReaderError",
    "RequestFailed",
    "ResponseInvalid",
    "check_resamples",
    "check_run_settings",
    "max_jobs",
    "override_settings",
    "unknown_name_message",
]

_Config = TypeVar("_Config")


class PfungstError(Exception):
    """Base class of every error a user can cause or fix."""


class DataError(PfungstError, ValueError):
    """A benchmark could not be read or is not usable as it is."""


class ReaderError(DataError):
    """A benchmark file is malformed at a known place.

    The message reads ``path:line: field 'name': what is wrong. What to do.`` so that an editor or a terminal can
    jump to it.

    Attributes:
        path: The file being read.
        line: 1-based line number (or record number for formats without lines); 0 when the whole file is at fault.
        field: The field, column or key at fault; empty when the whole record is at fault.
        reason: What was expected and what was found.
        hint: What to do about it; may be empty.
    """

    def __init__(self, path: str | Path, line: int, field: str, reason: str, hint: str = "") -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.reason = reason
        self.hint = hint
        super().__init__(self._format())

    def _format(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        what = f"field '{self.field}': {self.reason}" if self.field else self.reason
        message = f"{where}: {what}"
        return f"{message}. {self.hint}" if self.hint else message

    def __reduce__(self):  # keep the structured fields through pickling (joblib workers)
        return (type(self), (self.path, self.line, self.field, self.reason, self.hint))


class ConfigError(PfungstError, ValueError):
    """An option, a registry name or a combination of settings is invalid."""


class MissingDependency(ConfigError, ImportError):
    """An optional dependency is needed for the requested feature; the message gives the install line."""


class PluginError(ConfigError):
    """An installed package's entry point failed to import, to build or to run; the message names the package."""


class BackendError(PfungstError, RuntimeError):
    """A language-model backend failed."""


class BackendUnavailable(BackendError):
    """A backend could not be reached, loaded or started."""


class RequestFailed(BackendError):
    """A backend refused or failed one request (after any retries)."""

    status: int | None = None
    """The HTTP status a server answered with, where there was one."""


class ContextOverflow(RequestFailed):
    """A prompt is longer than the model's context window: that question cannot be asked of this model."""


class ResponseInvalid(BackendError):
    """A backend answered, but with something that cannot be used."""


def unknown_name_message(kind: str, name: str, choices: Iterable[str]) -> str:
    """Say that ``name`` is not a known ``kind``, with close matches and every valid choice.

    Example:
        >>> unknown_name_message("format", "mmluu", ["mmlu", "arc"])
        "Unknown format 'mmluu'. Did you mean: mmlu? Available: arc, mmlu"
    """
    options = sorted(choices)
    close = difflib.get_close_matches(name, options, n=3, cutoff=0.6)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    return f"Unknown {kind} '{name}'.{hint} Available: {', '.join(options)}"


MAX_RESAMPLES = 1_000_000
"""The most bootstrap resamples or permutations one estimate may draw: past it a run takes hours or days and the
estimate moves by less than its last printed digit."""
MAX_REPEATS = 1_000
"""The most repeats of the cross-fitting (each refits every feature set once per fold)."""
JOBS_PER_CPU = 4
"""Parallel jobs allowed per CPU core: more only queue up, each with its own copy of the data."""

MAX_SEED = 2**32 - 1
"""The largest seed every random generator pfungst seeds accepts (numpy's legacy ``RandomState``)."""


def check_run_settings(*, seed: int, n_jobs: int | None = None) -> None:
    """Raise :class:`ConfigError` for a seed numpy cannot take or a job count joblib cannot run.

    Example:
        >>> check_run_settings(seed=-5)
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: seed must be an integer from 0 to 4294967295, not -5
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed must be an integer from 0 to {MAX_SEED}, not {seed!r}")
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1):
        raise ConfigError(f"jobs must be a positive number of processes, or -1 for one per CPU core, not {n_jobs!r}")
    if n_jobs is not None and n_jobs > max_jobs():
        raise ConfigError(
            f"n_jobs (--n-jobs) must be at most {max_jobs()} ({JOBS_PER_CPU} per CPU core; this machine has "
            f"{os.cpu_count() or 1}), not {n_jobs}. Give -1 for one job per core"
        )


def max_jobs() -> int:
    """The most parallel jobs pfungst starts on this machine: :data:`JOBS_PER_CPU` per CPU core."""
    return JOBS_PER_CPU * (os.cpu_count() or 1)


def check_resamples(**counts: int | None) -> None:
    """Raise :class:`ConfigError` for a resample count above its cap, naming the setting and its option.

    ``n_repeats`` (repeats of the cross-fitting) is capped at :data:`MAX_REPEATS`; every other name (``n_bootstrap``,
    ``n_permutations``, ``n_resamples``) at :data:`MAX_RESAMPLES`. Counts below their minimum are left to the caller.

    Example:
        >>> check_resamples(n_bootstrap=1000, n_permutations=None)
        >>> check_resamples(n_bootstrap=10**12)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: n_bootstrap (--n-bootstrap) must be at most 1000000 resamples, not 1000000000000...
    """
    for name, value in counts.items():
        cap, unit = (MAX_REPEATS, "repeats") if name == "n_repeats" else (MAX_RESAMPLES, "resamples")
        if isinstance(value, int) and not isinstance(value, bool) and value > cap:
            raise ConfigError(
                f"{name} (--{name.replace('_', '-')}) must be at most {cap} {unit}, not {value}: more would run for "
                "hours and move the estimate by less than its last printed digit"
            )


def override_settings(config: _Config, settings: Mapping[str, Any], what: str) -> _Config:
    """``config`` (a dataclass) with the keyword ``settings`` replacing single fields: the one way every entry point
    (``audit``, ``score``, ``stress``, ``reliance``) takes ``f(..., config, **settings)``.

    Raises:
        ConfigError: a name that is no field of ``config`` (close matches and every field listed).

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Settings:
        ...     alpha: float = 0.05
        >>> override_settings(Settings(), {"alpha": 0.1}, "test")
        Settings(alpha=0.1)
        >>> override_settings(Settings(), {"alfa": 0.1}, "test")
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: unknown test setting(s) ['alfa']: Unknown test setting 'alfa'. Did you mean: \
alpha? Available: alpha
    """
    names = [field.name for field in dataclasses.fields(config)]  # type: ignore[arg-type]
    unknown = sorted(set(settings) - set(names))
    if unknown:
        raise ConfigError(
            f"unknown {what} setting(s) {unknown}: "
            + "; ".join(unknown_name_message(f"{what} setting", name, names) for name in unknown)
        )
    return dataclasses.replace(config, **settings)  # type: ignore[type-var]
