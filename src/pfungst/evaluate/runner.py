"""Score a benchmark with one model, one scoring rule and one prompt format, through a persistent cache.

Every setting is checked before the first model call (STYLE rule 14): the rule name and parameters, the format, the
rendering and the request plan of every item, then the model's capabilities for the rule. All items' requests are
planned up front and de-duplicated; they go to the model item chunk by item chunk (``chunk_size`` items per batch)
through a :class:`~pfungst.models.cache.CachedModel`, which commits each answer as it arrives. A run stopped at any
point (Ctrl-C, SIGKILL) and started again with the same cache file asks the model only what is not stored yet.

The cache file defaults to ``$PFUNGST_CACHE`` if set, else ``$XDG_CACHE_HOME/pfungst/cache.sqlite``, else
``~/.cache/pfungst/cache.sqlite`` (:func:`default_cache_path`); ``cache=False`` keeps answers in memory only.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import OnError
from pfungst.environment import environment
from pfungst.errors import ConfigError, check_run_settings, override_settings
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.engine import Cell, Progress, ask_plans, count_requests, open_cached, plan_cell
from pfungst.evaluate.formats import PromptFormat, get_format
from pfungst.evaluate.score_result import ScoreResult
from pfungst.evaluate.scoring import ScoringRule, get_scoring_rule
from pfungst.evaluate.variants import Presentation
from pfungst.models.protocol import LanguageModel
from pfungst.serialization import to_jsonable

__all__ = ["ScoreConfig", "cache_location", "default_cache_path", "score_benchmark"]

_CACHE_ENV = "PFUNGST_CACHE"
_MEMORY = ":memory:"


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


@dataclass(frozen=True)
class ScoreConfig:
    """Settings of :func:`score_benchmark`; nothing here reaches a model before it is validated."""

    rule: str = "cloze-raw"
    """A scoring rule from :data:`~pfungst.evaluate.scoring.SCORING_RULES`: ``letter``, ``cloze-raw``,
    ``cloze-token``, ``cloze-byte``, ``pmi`` or ``generate``."""
    rule_params: Mapping[str, Any] = field(default_factory=dict)
    """Keyword parameters of the rule (``{"max_tokens": 16}`` for ``generate``)."""
    prompt: str | PromptFormat = "mmlu"
    """The prompt format: a built-in name (:data:`~pfungst.evaluate.formats.BUILTIN_FORMATS`, listed by
    ``pfungst formats --what prompts``) or a :class:`PromptFormat`."""
    limit: int | None = None
    """Score only the first ``limit`` items; ``None`` scores them all."""
    cache: str | Path | bool = True
    """The SQLite cache file; ``True`` for :func:`default_cache_path`, ``False`` for an in-memory cache."""
    chunk_size: int = 16
    """Items whose requests go to the model in one batch: the unit of progress and of committed work."""
    seed: int = 0
    """The sampling seed of ``generate`` (unless ``rule_params`` sets one); recorded in the result."""
    model_options: Mapping[str, Any] = field(default_factory=dict)
    """Keyword options for :func:`~pfungst.models.registry.load_model` when the model is given by name
    (``{"n_threads": 1}`` for llama.cpp)."""

    on_error: OnError = "raise"
    """What a question longer than the model's context window does: ``raise`` stops the run with an error naming
    the item; ``skip`` scores it as ``skipped`` (counted in the result, counted as wrong) and goes on."""

    def resolve(self) -> tuple[ScoringRule, PromptFormat]:
        """The scoring rule and prompt format these settings name.

        Raises:
            ConfigError: an unknown rule, rule parameter or format name, or an invalid limit or chunk size.
        """
        for name in ("limit", "chunk_size", "seed"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ConfigError(f"{name} must be an integer, got {value!r}")
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"limit must be at least 1 (or None for every item), got {self.limit}")
        if self.chunk_size < 1:
            raise ConfigError(f"chunk_size must be at least 1, got {self.chunk_size}")
        check_run_settings(seed=self.seed)
        if self.on_error not in ("raise", "skip"):
            raise ConfigError(f"on_error must be 'raise' or 'skip', not {self.on_error!r}")
        params = dict(self.rule_params)
        if self.rule == "generate":
            params.setdefault("seed", self.seed)
        rule = get_scoring_rule(self.rule, **params)
        prompt_format = self.prompt if isinstance(self.prompt, PromptFormat) else get_format(self.prompt)
        return rule, prompt_format

    def cache_path(self) -> str:
        """The cache file this run uses (``":memory:"`` when ``cache`` is False)."""
        return cache_location(self.cache)


def score_benchmark(
    benchmark: Benchmark,
    model: str | LanguageModel = "smollm2",
    config: ScoreConfig | None = None,
    *,
    progress: Progress | None = None,
    **settings: Any,
) -> ScoreResult:
    """Score every item of ``benchmark`` with a model: the engine's identity-only run, one outcome per item, and
    accuracy with its Wilson interval.

    Args:
        benchmark: The items to score (options in their original order).
        model: A model spec for :func:`~pfungst.models.registry.load_model` (``"smollm2"``, a ``.gguf`` path,
            ``"openai:<base_url>#<model>"``), loaded after validation and closed at the end; or a LanguageModel.
        config: Settings (:class:`ScoreConfig`); keyword ``settings`` override single fields
            (``score_benchmark(b, rule="letter", limit=20)``).
        progress: Optional callback ``progress(step, done, total)`` over items.

    Raises:
        ConfigError: an invalid setting, an item the format or rule cannot handle, or a model lacking a capability
            the rule needs; all raised before any model call.
        MissingDependency: the model's backend is not installed.
        BackendError: the model failed (answers stored before the failure stay in the cache).

    Example:
        >>> from pfungst.data.item import Item
        >>> from pfungst.models.requests import Loglikelihood
        >>> class Shortest:  # prefers short continuations
        ...     fingerprint, capabilities = "shortest", frozenset({"loglikelihood"})
        ...     def loglikelihood(self, requests):
        ...         return [Loglikelihood(-len(r.continuation), 1, len(r.continuation), True) for r in requests]
        >>> items = (Item("a", "1 + 1 =", ("2", "11"), 0), Item("b", "Big?", ("yes", "no"), 0))
        >>> result = score_benchmark(Benchmark("toy", items), Shortest(), rule="cloze-raw", cache=False)
        >>> [record.chosen for record in result.items], result.accuracy.value, result.counts.misses
        ([0, 1], 0.5, 4)
    """
    config = override_settings(config or ScoreConfig(), settings, "score")
    rule, prompt_format = config.resolve()
    if config.limit is not None:
        benchmark = benchmark[: config.limit]
    if len(benchmark) == 0:
        raise ConfigError(f"benchmark '{benchmark.name}' has no items to score")
    cells = [
        Cell(
            Presentation("identity", ArrangedItem.identity(item)), "identity", rule, prompt_format, _format_name(config)
        )
        for item in benchmark
    ]
    plans = [plan_cell(cell) for cell in cells]
    with open_cached(model, config.cache_path(), config.model_options) as cached:
        start, before = time.perf_counter(), replace(cached.stats)
        outcomes = ask_plans(
            cached,
            plans,
            chunk_size=config.chunk_size,
            progress=progress,
            step=f"scoring ({rule.name})",
            on_error=config.on_error,
        )
        counts = count_requests(plans, before, cached.stats, time.perf_counter() - start)
        fingerprint, cache_file = cached.fingerprint, str(cached.path)
    return ScoreResult(
        outcomes=outcomes,
        counts=counts,
        model=fingerprint,
        benchmark=benchmark.to_dict(),
        settings={**_settings(config, rule, prompt_format), "cache": cache_file},
        seed=config.seed,
        environment=environment(),
    )


def _settings(config: ScoreConfig, rule: ScoringRule, prompt_format: PromptFormat) -> dict[str, Any]:
    return {
        "rule": rule.name,
        "rule_params": to_jsonable(vars(rule), default=repr),  # a parameter JSON cannot hold is kept as its repr
        "format": _format_name(config),
        "format_params": prompt_format.to_dict(),
        "arrangement": "identity",
        "limit": config.limit,
        "chunk_size": config.chunk_size,
        **({"on_error": "skip"} if config.on_error == "skip" else {}),
    }


def _format_name(config: ScoreConfig) -> str:
    return config.prompt if isinstance(config.prompt, str) else "custom"
