"""Options several commands share, declared once as typed groups, and :func:`with_option_groups`, which lays a
command's groups out as its options and hands the command one built value per group.

Two kinds of group:

- a **config** (:class:`~pfungst.audit.audit_config.AuditConfig`, :class:`~pfungst.stress.stress_config.StressConfig`,
  ...): its options are generated from the fields that declare a setting (:mod:`pfungst.settings`,
  :mod:`pfungst.cli.settings_options`), and the command receives the config built from them;
- an :class:`OptionGroup` of options that belong to the command line only (how a file is read, where results go,
  the model backend's settings): a frozen dataclass whose fields are ``Annotated[type, typer.Option(...)]`` with the
  path role (:class:`~pfungst.cli.common.PathRole`) of each path.

A command declares a parameter of a group's type (``data_options: DataOptions``, ``settings: AuditConfig``);
``--help`` lists the group's options where that parameter stands, so every command that takes a group reads and
checks its options alike, and a command's own parameters stay few (at most 8, a group counting once).
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
from pfungst.cli.common import READ_WRITE, QuietOption, ReaderOption, user_errors
from pfungst.cli.result_output import VerboseOption
from pfungst.cli.settings_options import Settings, build_config, config_options, settings_marker
from pfungst.errors import ConfigError

if TYPE_CHECKING:
    from pfungst.data.builder import OnError
    from pfungst.models.registry import ModelSpec

__all__ = [
    "ConsoleOptions",
    "DataOptions",
    "ModelOptions",
    "OptionGroup",
    "with_option_groups",
]

_Command = TypeVar("_Command", bound=Callable[..., Any])


class OptionGroup:
    """Base of the option groups: a frozen dataclass whose fields are ``Annotated[type, typer.Option(...)]`` with
    defaults; the field names are the options' parameter names (``on_error`` is ``--on-error``)."""

    def values(self) -> dict[str, Any]:
        """Each option by its parameter name: the names the config dataclasses' fields are named after."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}  # type: ignore[arg-type]


def with_option_groups(command: _Command) -> _Command:
    """Make each parameter of ``command`` annotated with an :class:`OptionGroup` or a config into that group's
    options.

    The returned function takes the options one by one (typer reads its signature) and calls ``command`` with one
    group, or one config, built from them per group parameter; the other parameters pass through unchanged. A config
    its own checks refuse ends the command with exit 2 and the message.

    Raises:
        TypeError: two parameters (of the command or its groups) share a name: a bug in the command's declaration.
    """
    hints = typing.get_type_hints(command, include_extras=True)
    groups: dict[str, type[OptionGroup]] = {}
    configs: dict[str, tuple[type, Settings]] = {}
    parameters: list[inspect.Parameter] = []
    for parameter in inspect.signature(command).parameters.values():
        hint = hints.get(parameter.name, parameter.annotation)
        config = settings_marker(hint)
        if isinstance(hint, type) and issubclass(hint, OptionGroup):
            groups[parameter.name] = hint
            parameters += _group_parameters(hint)
        elif config is not None:
            configs[parameter.name] = config
            parameters += [option.parameter for option in config_options(*config)]
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
        with user_errors():
            for name, (config_type, marker) in configs.items():
                options[name] = build_config(config_type, marker, options)
        return command(**options)

    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return typing.cast(_Command, run)


def _group_parameters(group: type[OptionGroup]) -> list[inspect.Parameter]:
    """The group's fields as keyword parameters: annotation (with its typer option) and default."""
    hints = typing.get_type_hints(group, include_extras=True)
    keyword = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter(field.name, keyword, default=_default(field), annotation=hints[field.name])
        for field in dataclasses.fields(group)  # type: ignore[arg-type]
    ]


def _default(field: dataclasses.Field[Any]) -> Any:
    """A group field's default; none (a required option) when it has none."""
    return inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default


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
        return pfungst.load(data, self.reader, on_error=self.mode(), strict=self.strict, **_parse_mapping(self.map))

    def mode(self) -> OnError:
        """``--on-error`` checked: what a malformed row (or a question past a model's context window) does.

        Raises:
            ConfigError: neither ``raise`` nor ``skip``.
        """
        if self.on_error not in ("raise", "skip"):
            raise ConfigError(f"--on-error must be 'raise' or 'skip', not {self.on_error!r}")
        return "skip" if self.on_error == "skip" else "raise"


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
_Threads = Annotated[int | None, typer.Option(help="CPU threads for a llama.cpp model (default: its choice).")]
_Weights = Annotated[
    str | None,
    typer.Option(
        help="Weight type a llama.cpp model computes with: stored (the file's own), f16 or f32 (a converted copy, "
        "written once into ~/.cache/pfungst/models or $PFUNGST_MODELS; faster for Q4_1 files such as the "
        "embedded model). Default: stored."
    ),
]
_PrefixTrie = Annotated[
    bool | None,
    typer.Option(
        "--prefix-trie/--no-prefix-trie",
        help="Decode an item's options in one llama.cpp call, as their prefix trie (faster; scores differ from each "
        "option decoded alone by rounding with f16 or f32 weights, by more with quantized ones). Default: on with "
        "--weights f16 or f32, off with stored weights.",
    ),
]
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
    threads: _Threads = None
    """CPU threads of a llama.cpp model; None for its choice."""
    weights: _Weights = None
    """Weight type of a llama.cpp model; None for the file's own."""
    prefix_trie: _PrefixTrie = None
    """Whether a llama.cpp model decodes an item's options in one call; None for its choice by weight type."""
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
            ConfigError: ``--threads`` or ``--retries`` out of range; ``--weights`` not a known type;
                ``--timeout`` or ``--deadline`` is not a number of seconds within
                :func:`~pfungst.models.seconds.check_seconds`'s bounds.
        """
        from pfungst.evaluate.run_config import check_model_options
        from pfungst.models.seconds import check_seconds

        check_seconds("--timeout", self.timeout)
        check_seconds("--deadline", self.deadline)
        backend: dict[str, Any] = {"n_threads": self.threads} if self.threads is not None else {}
        given = {
            "weights": self.weights,
            "prefix_trie": self.prefix_trie,
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
class ConsoleOptions(OptionGroup):
    """What a command prints: ``--quiet`` (no progress bar) and ``--verbose`` (every table, then the answer)."""

    quiet: QuietOption = False
    """Whether the progress bar is hidden."""
    verbose: VerboseOption = False
    """Whether every table is printed before the short answer."""
