"""Score a benchmark with one model, one scoring rule and one prompt format, through a persistent cache.

Every setting is checked before the first model call (STYLE rule 14): the rule name and parameters, the format, the
rendering and the request plan of every item, then the model's capabilities for the rule. All items' requests are
planned up front and de-duplicated; they go to the model item chunk by item chunk (``chunk_size`` items per batch)
through a :class:`~pfungst.models.cache.CachedModel`, which commits each answer as it arrives. A run stopped at any
point (Ctrl-C, SIGKILL) and started again with the same cache file asks the model only what is not stored yet.

The cache file defaults to ``$PFUNGST_CACHE`` if set, else ``$XDG_CACHE_HOME/pfungst/cache.sqlite``, else
``~/.cache/pfungst/cache.sqlite`` (:func:`~pfungst.evaluate.run_config.default_cache_path`); ``cache=False`` keeps
answers in memory only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.environment import environment
from pfungst.errors import ConfigError, override_settings
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.engine import Cell, Progress, ask_plans, count_requests, open_cached, plan_cell
from pfungst.evaluate.formats import PromptFormat
from pfungst.evaluate.run_config import RunConfig
from pfungst.evaluate.score_result import ScoreResult
from pfungst.evaluate.scoring import ScoringRule
from pfungst.evaluate.variants import Presentation
from pfungst.models.protocol import LanguageModel
from pfungst.serialization import to_jsonable

__all__ = ["ScoreConfig", "score_benchmark"]


@dataclass(frozen=True)
class ScoreConfig(RunConfig):
    """Settings of :func:`score_benchmark`: a :class:`~pfungst.evaluate.run_config.RunConfig` (every field and check
    shared with stress runs), scoring ``cloze-raw`` unless told otherwise; nothing reaches a model before it is
    validated."""

    def resolve(self) -> tuple[ScoringRule, PromptFormat]:
        """The scoring rule and prompt format these settings name.

        Raises:
            ConfigError: an unknown rule, rule parameter or format name, or an invalid limit, chunk size or seed.
        """
        self.validate()
        return self.main_rule(), self.base_format()


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
        Cell(Presentation("identity", ArrangedItem.identity(item)), "identity", rule, prompt_format, config.format_name)
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
        "format": config.format_name,
        "format_params": prompt_format.to_dict(),
        "arrangement": "identity",
        "limit": config.limit,
        "chunk_size": config.chunk_size,
        **({"on_error": "skip"} if config.on_error == "skip" else {}),
    }
