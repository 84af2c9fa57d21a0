"""The settings every model run shares, scoring (:func:`pfungst.stress.score_run.score`) and stressing
(:class:`~pfungst.stress.stress_config.StressConfig` holds one as its ``run``) alike: one set of fields, one set of
checks, one accuracy interval."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pfungst.data.builder import OnError
from pfungst.data.clusters import check_cluster_by
from pfungst.errors import (
    JOBS_PER_CPU,
    ConfigError,
    check_run_settings,
    max_jobs,
    override_settings,
    unknown_name_message,
)
from pfungst.evaluate.formats import PromptFormat, get_format
from pfungst.models.gguf_weights import check_weights
from pfungst.settings import check_settings, setting

if TYPE_CHECKING:  # the settings load without numpy (the command line builds its options from them)
    from pfungst.evaluate.scoring import ScoringRule

__all__ = [
    "MAX_CHUNK_SIZE",
    "MAX_RETRIES",
    "RunConfig",
    "check_model_options",
    "cache_location",
    "check_count",
    "default_cache_path",
    "override_run_settings",
]

MAX_CHUNK_SIZE = 1_000_000
"""The most items per batch (a batch's requests are held in memory and committed to the cache together)."""
MAX_RETRIES = 100
"""The most retries of a failed request to a model server (each waits longer than the last)."""
_CACHE_ENV = "PFUNGST_CACHE"
_MEMORY = ":memory:"


@dataclass(frozen=True)
class RunConfig:
    """What a run asks a model with (rule, prompt), of how many items, through which cache and in what batches, and
    how its accuracy interval is drawn.

    ``pfungst.score`` takes it as its settings; :class:`~pfungst.stress.stress_config.StressConfig` holds one as its
    ``run``. A run's settings are checked by :meth:`validate` before the first model call.

    Example:
        >>> RunConfig(rule="letter", limit=20).validate()
        >>> RunConfig(chunk_size=0).validate()
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: chunk_size (--chunk-size) must be at least 1, not 0
    """

    rule: str = field(
        default="cloze-raw",
        metadata=setting(
            "Scoring rule: letter, cloze-raw, cloze-token, cloze-byte, pmi or generate (a stress run's arrangement "
            "perturbations score with it)."
        ),
    )
    """A scoring rule from :data:`~pfungst.evaluate.scoring.SCORING_RULES` (``letter``, ``cloze-raw``,
    ``cloze-token``, ``cloze-byte``, ``pmi``, ``generate``, or an installed plugin's)."""
    rule_params: Mapping[str, Any] = field(default_factory=dict)
    """Keyword parameters of the rule (``{"max_tokens": 16}`` for ``generate``)."""
    prompt: str | PromptFormat = field(
        default="mmlu",
        metadata=setting(
            "Prompt format: mmlu, plain or chatml-letter (see `pfungst formats`); a stress run's base format.",
            parse=str,
        ),
    )
    """The prompt format: a built-in name (:data:`~pfungst.evaluate.formats.BUILTIN_FORMATS`, listed by
    ``pfungst formats --what prompts``) or a :class:`PromptFormat`."""
    limit: int | None = field(default=None, metadata=setting("Use only the first N items.", bounds=(1, None)))
    """Use only the first ``limit`` items; ``None`` uses them all."""
    cache: str | Path | bool = True
    """The SQLite cache file; ``True`` for :func:`default_cache_path`, ``False`` for an
    in-memory cache."""
    chunk_size: int = field(
        default=16,
        metadata=setting("Items per batch sent to the model and committed to the cache.", bounds=(1, MAX_CHUNK_SIZE)),
    )
    """Items whose requests go to the model in one batch: the unit of progress and of committed work."""
    seed: int = field(default=0, metadata=setting("Seed of every random choice."))
    """Seeds every random choice of the run (the sampling of ``generate`` unless ``rule_params`` sets one);
    recorded in the result."""
    model_options: Mapping[str, Any] = field(default_factory=dict)
    """Keyword options for :func:`~pfungst.models.registry.load_model` when the model is given by spec
    (``{"n_threads": 1}`` for llama.cpp)."""
    on_error: OnError = "raise"
    """What a question longer than the model's context window does: ``raise`` stops the run with an error naming
    the item; ``skip`` leaves it unasked (its outcome is ``skipped``: counted, and counted as wrong) and goes on."""
    level: float = 0.95
    """Coverage of every interval."""
    cluster_by: str = field(
        default="auto",
        metadata=setting(
            "Which items share errors (Miller 2024): auto (an MMLU subject, BIG-bench subtask, group or shared "
            "passage, where items fall in two or more), none (independent items: plain intervals) or a metadata key "
            "or field every item has."
        ),
    )
    """Which items belong together for cluster-robust intervals and paired tests (Miller 2024): ``auto`` (an MMLU
    subject, a BIG-bench subtask, a ``group``, a shared passage: :func:`pfungst.data.clusters.item_clusters`),
    ``none`` (independent items: Wilson and plain paired intervals) or a metadata key or field every item carries."""

    def validate(self) -> None:
        """Check the shared settings and the scoring rule's name and parameters.

        Raises:
            ConfigError: a count, seed or level out of range, an empty ``cluster_by``, an unknown ``on_error``, rule
                or rule parameter.
        """
        check_settings(self, choices=False)  # limit and chunk_size in their declared bounds, named by option
        check_count("chunk_size", self.chunk_size, minimum=1, maximum=MAX_CHUNK_SIZE)  # and whole numbers
        if self.model_options.get("retries") is not None:
            check_count("retries (--retries)", self.model_options["retries"], minimum=0, maximum=MAX_RETRIES)
        check_model_options(self.model_options)
        if self.limit is not None:
            check_count("limit", self.limit, minimum=1, none="or None for every item")
        check_run_settings(seed=self.seed)
        if self.on_error not in ("raise", "skip"):
            raise ConfigError(f"on_error must be 'raise' or 'skip', not {self.on_error!r}")
        check_cluster_by(self.cluster_by)
        if isinstance(self.level, bool) or not isinstance(self.level, int | float) or not 0 < self.level < 1:
            raise ConfigError(f"level must be in (0, 1), got {self.level!r}")
        self.main_rule()

    def main_rule(self) -> ScoringRule:
        """The scoring rule these settings name, its parameters checked (``generate`` sampled with ``seed``)."""
        return self.rule_named(self.rule, self.rule_params)

    def rule_named(self, name: str, params: Mapping[str, Any] | None = None) -> ScoringRule:
        """The rule ``name`` with ``params``: by default the main rule's when it is the main one, else none; a
        ``generate`` rule samples with :attr:`seed` unless its parameters set one.

        Raises:
            ConfigError: an unknown rule name or parameter.
        """
        from pfungst.evaluate.scoring import get_scoring_rule

        if params is None:
            params = self.rule_params if name == self.rule else {}
        settings = dict(params)
        if name == "generate":
            settings.setdefault("seed", self.seed)
        return get_scoring_rule(name, **settings)

    def base_format(self) -> PromptFormat:
        """The prompt format these settings name."""
        return self.prompt if isinstance(self.prompt, PromptFormat) else get_format(self.prompt)

    @property
    def format_name(self) -> str:
        """The prompt format's name in results (``custom`` for a :class:`PromptFormat` given as an object)."""
        return self.prompt if isinstance(self.prompt, str) else "custom"

    def cache_path(self) -> str:
        """The cache file this run uses (``":memory:"`` when ``cache`` is False)."""
        return cache_location(self.cache)


_Holder = TypeVar("_Holder")


def override_run_settings(config: _Holder, settings: Mapping[str, Any], what: str) -> _Holder:
    """``config`` (a dataclass holding a :class:`RunConfig` as ``run``) with the keyword ``settings`` replacing
    single fields, its own or its run's (``stress(b, m, limit=20, perturbations=("cyclic",))``).

    Raises:
        ConfigError: a name that is neither a field of ``config`` nor of :class:`RunConfig` (close matches and every
            field listed).

    Example:
        >>> @dataclass(frozen=True)
        ... class Holder:
        ...     run: RunConfig = field(default_factory=RunConfig)
        ...     rounds: int = 1
        >>> held = override_run_settings(Holder(), {"limit": 5, "rounds": 2}, "test")
        >>> held.run.limit, held.rounds
        (5, 2)
    """
    run_names = [item.name for item in dataclasses.fields(RunConfig)]
    own_names = [item.name for item in dataclasses.fields(config)]  # type: ignore[arg-type]
    known = [*own_names, *run_names]
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown {what} setting(s) {unknown}: "
            + "; ".join(unknown_name_message(f"{what} setting", name, known) for name in unknown)
        )
    own = {name: value for name, value in settings.items() if name in own_names}
    run_settings = {name: value for name, value in settings.items() if name in run_names}
    run = override_settings(own.pop("run", config.run), run_settings, what)  # type: ignore[attr-defined]
    return dataclasses.replace(config, run=run, **own)  # type: ignore[type-var]


def check_model_options(options: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigError` for a backend setting out of its range: ``n_threads`` 1 to
    :data:`~pfungst.errors.JOBS_PER_CPU` per core, ``retries`` 0 to :data:`MAX_RETRIES`, ``weights`` not one of
    :data:`~pfungst.models.gguf_weights.WEIGHTS` (timeouts are checked by the HTTP backend). Checked whether or not
    the model's backend takes the setting, so a value is refused the same way for every model."""
    if options.get("n_threads") is not None:
        check_count(
            f"n_threads (--threads; {JOBS_PER_CPU} per CPU core at most)",
            options["n_threads"],
            minimum=1,
            maximum=max_jobs(),
            none="or leave it out for the model's choice",
        )
    if options.get("retries") is not None:
        check_count("retries (--retries)", options["retries"], minimum=0, maximum=MAX_RETRIES)
    if options.get("weights") is not None:
        check_weights(options["weights"], "weights (--weights)")


def check_count(name: str, value: Any, minimum: int, none: str = "", maximum: int | None = None) -> None:
    """Raise :class:`ConfigError` unless ``value`` is an integer (not a bool) from ``minimum`` to ``maximum``.

    Args:
        name: The setting, for the message.
        value: Its value.
        minimum: The smallest value allowed.
        none: What else the setting may be, added to the message (``"or None for every item"``).
        maximum: The largest value allowed; None for no bound.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    alternative = f" ({none})" if none else ""
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}{alternative}, got {value}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{name} must be at most {maximum}{alternative}, got {value}")


def cache_location(cache: str | Path | bool) -> str:
    """The cache file a ``cache`` setting names: ``True`` for :func:`default_cache_path`, ``False`` for
    ``":memory:"`` (answers kept for this run only), else the given path."""
    if cache is False:
        return _MEMORY
    return str(default_cache_path() if cache is True else Path(cache).expanduser())


def default_cache_path() -> Path:
    """The cache file used when none is given: ``$PFUNGST_CACHE``, else ``$XDG_CACHE_HOME/pfungst/cache.sqlite``,
    else ``~/.cache/pfungst/cache.sqlite``."""
    if os.environ.get(_CACHE_ENV):
        return Path(os.environ[_CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "pfungst" / "cache.sqlite"
