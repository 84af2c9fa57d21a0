"""Options several commands share, declared once as typed groups: each group is a frozen dataclass whose fields are
typer options, and :func:`with_option_groups` lays its fields out as the command's options and hands the command
one built group.

A command declares a parameter of a group's type (``data_options: DataOptions``); ``--help`` lists the group's
options where that parameter stands, with the help text, default and path role (:class:`~pfungst.cli.common.
PathRole`) written here, so ``score``, ``stress`` and the other commands that take a group read and check its options
alike.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

import pfungst
from pfungst.cli.common import READ_WRITE, NBootstrapOption, ReaderOption, SeedOption
from pfungst.errors import ConfigError

if TYPE_CHECKING:
    from pfungst.data.builder import OnError
    from pfungst.models.registry import ModelSpec

__all__ = [
    "DataOptions",
    "ModelOptions",
    "OptionGroup",
    "SamplingOptions",
    "option_values",
    "with_option_groups",
]

_Command = TypeVar("_Command", bound=Callable[..., Any])


class OptionGroup:
    """Base of the option groups: a frozen dataclass whose fields are ``Annotated[type, typer.Option(...)]`` with
    defaults; the field names are the options' parameter names (``chunk_size`` is ``--chunk-size``)."""

    def values(self) -> dict[str, Any]:
        """Each option by its parameter name: the names the config dataclasses' fields are named after."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}  # type: ignore[arg-type]


def option_values(*groups: OptionGroup, **more: Any) -> dict[str, Any]:
    """Every option of ``groups`` (and the ``more`` given one by one) by the name of its config field: what
    :func:`~pfungst.cli.common.config_from_options` builds a config from."""
    return {name: value for group in groups for name, value in group.values().items()} | more


def with_option_groups(command: _Command) -> _Command:
    """Make each parameter of ``command`` annotated with an :class:`OptionGroup` into that group's options.

    The returned function takes the options one by one (typer reads its signature) and calls ``command`` with one
    group built from them per group parameter; the other parameters pass through unchanged.

    Raises:
        TypeError: two parameters (of the command or its groups) share a name: a bug in the command's declaration.
    """
    hints = typing.get_type_hints(command, include_extras=True)
    groups: dict[str, type[OptionGroup]] = {}
    parameters: list[inspect.Parameter] = []
    for parameter in inspect.signature(command).parameters.values():
        hint = hints.get(parameter.name, parameter.annotation)
        if isinstance(hint, type) and issubclass(hint, OptionGroup):
            groups[parameter.name] = hint
            parameters += _group_parameters(hint)
        else:
            parameters.append(parameter.replace(annotation=hint, kind=inspect.Parameter.KEYWORD_ONLY))
    names = [parameter.name for parameter in parameters]
    if len(set(names)) < len(names):
        raise TypeError(f"{command.__name__}: an option name is declared twice in {names}")

    @functools.wraps(command)
    def run(**options: Any) -> Any:
        for name, group in groups.items():
            fields = [field.name for field in dataclasses.fields(group)]  # type: ignore[arg-type]
            options[name] = group(**{field: options.pop(field) for field in fields})
        return command(**options)

    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return typing.cast(_Command, run)


def _group_parameters(group: type[OptionGroup]) -> list[inspect.Parameter]:
    """The group's fields as keyword parameters: annotation (with its typer option) and default."""
    hints = typing.get_type_hints(group, include_extras=True)
    keyword = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter(field.name, keyword, default=field.default, annotation=hints[field.name])
        for field in dataclasses.fields(group)  # type: ignore[arg-type]
    ]


_Map = Annotated[
    list[str] | None,
    typer.Option(
        "--map",
        "-m",
        help="Reader setting KEY=VALUE, repeatable, e.g. --map question=stem --map option_columns=A,B,C,D",
    ),
]
_OnError = Annotated[
    str,
    typer.Option(
        "--on-error",
        help="raise: stop at the first malformed row (or, with a model, a question longer than its context window); "
        "skip: reject it (score the question as skipped), count it, go on.",
    ),
]
_Strict = Annotated[bool, typer.Option("--strict", help="Also stop on warnings (duplicate options).")]


@dataclass(frozen=True)
class DataOptions(OptionGroup):
    """How a benchmark file is read: ``--reader``, ``--map``, ``--on-error``, ``--strict``."""

    reader: ReaderOption = None
    """A reader name; detected when None."""
    map: _Map = None
    """Reader settings, each ``KEY=VALUE``."""
    on_error: _OnError = "raise"
    """``raise`` or ``skip`` (a malformed row; with a model, a question longer than its context window)."""
    strict: _Strict = False
    """Whether warnings stop the load too."""

    def load(self, data: Path) -> pfungst.Benchmark:
        """The benchmark at ``data``, read with these options.

        Raises:
            ConfigError: ``--on-error`` is neither ``raise`` nor ``skip``, or a ``--map`` pair has no ``=``.
            DataError: the file cannot be read as a benchmark.
        """
        if self.on_error not in ("raise", "skip"):
            raise ConfigError(f"--on-error must be 'raise' or 'skip', not {self.on_error!r}")
        mode: OnError = "skip" if self.on_error == "skip" else "raise"
        return pfungst.load(data, self.reader, on_error=mode, strict=self.strict, **_parse_mapping(self.map))


def _parse_mapping(pairs: list[str] | None) -> dict[str, Any]:
    """The ``--map KEY=VALUE`` pairs as reader keyword settings."""
    mapping: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--map {pair!r}: expected KEY=VALUE, e.g. --map question=stem")
        if not value.strip():
            raise ConfigError(
                f"--map {pair!r}: the value of {key.strip()!r} is empty; give a column or setting, e.g. --map "
                f"{key.strip()}=stem, or leave --map {key.strip()} out for the reader's default"
            )
        mapping[key.strip()] = value
    return mapping


_Cache = Annotated[
    Path | None,
    typer.Option(
        help="SQLite cache file (default: $PFUNGST_CACHE or ~/.cache/pfungst/cache.sqlite); a rerun resumes from it."
    ),
    READ_WRITE,
]
_ChunkSize = Annotated[int, typer.Option(help="Items per batch sent to the model and committed to the cache.")]
_Threads = Annotated[int | None, typer.Option(help="CPU threads for a llama.cpp model (default: its choice).")]
_Timeout = Annotated[
    float | None, typer.Option(help="Seconds a model server may take to answer one request (openai: models).")
]
_Deadline = Annotated[
    float | None,
    typer.Option(
        help="Seconds one request to a model server may take in all, to the answer's last byte (openai: models; "
        "default: twice --timeout)."
    ),
]
_Debug = Annotated[
    bool,
    typer.Option(
        help="Show a model server's own text in its error messages, scrubbed of the API key and the URL's "
        "credentials (default: the status, its class and the body's length and hash only; openai: models)."
    ),
]
_Retries = Annotated[
    int | None, typer.Option(help="Retries of a failed request to a model server (openai: models; default 8).")
]


@dataclass(frozen=True)
class ModelOptions(OptionGroup):
    """How a model is asked: the answer cache, the batches and the backend's settings."""

    cache: _Cache = None
    """The SQLite cache file; None for the default one."""
    chunk_size: _ChunkSize = 16
    """Items per batch."""
    threads: _Threads = None
    """CPU threads of a llama.cpp model; None for its choice."""
    timeout: _Timeout = None
    """Seconds per request to a model server; None for the backend's default."""
    deadline: _Deadline = None
    """Seconds per request in all; None for twice the timeout."""
    retries: _Retries = None
    """Retries of a failed request; None for the backend's default."""
    debug: _Debug = False
    """Whether error messages show a server's own text (scrubbed)."""

    def inputs(self) -> list[Path]:
        """The cache file read and written when ``--cache`` is not given: an input no output may replace."""
        from pfungst.evaluate.run_config import default_cache_path

        return [] if self.cache is not None else [default_cache_path()]

    def run_settings(self, model: ModelSpec | None = None) -> dict[str, Any]:
        """The run's settings whose command-line form differs from the config field: ``cache`` (``True``: the
        default file) and ``model_options``, the backend's settings (only those the backend of ``model`` takes,
        when one model is known).

        Raises:
            ConfigError: ``--threads`` or ``--retries`` out of range;
                ``--timeout`` or ``--deadline`` is not a number of seconds within
                :func:`~pfungst.models.seconds.check_seconds`'s bounds.
        """
        from pfungst.evaluate.run_config import check_model_options
        from pfungst.models.seconds import check_seconds

        check_seconds("--timeout", self.timeout)
        check_seconds("--deadline", self.deadline)
        backend: dict[str, Any] = {"n_threads": self.threads} if self.threads is not None else {}
        given = {
            "timeout": self.timeout,
            "retries": self.retries,
            "deadline": self.deadline,
            "debug": self.debug or None,
        }
        backend.update({name: value for name, value in given.items() if value is not None})
        check_model_options(backend)  # before the settings the model's backend does not take are dropped
        return {
            "cache": self.cache or True,
            "model_options": model.applicable_options(backend) if model is not None else backend,
        }


@dataclass(frozen=True)
class SamplingOptions(OptionGroup):
    """Which items a stress plan asks, and how its random draws and intervals are made."""

    limit: Annotated[int | None, typer.Option(help="Use only the first N items.")] = None
    """The first N items only; None for all."""
    sample: Annotated[int | None, typer.Option(help="Use a seeded random sample of N items.")] = None
    """A seeded sample of N items; None for all."""
    seed: SeedOption = 0
    """Seed of every random choice."""
    n_bootstrap: NBootstrapOption = 1000
    """Bootstrap resamples per interval."""
