"""Score a benchmark with one model, one scoring rule and one prompt format: a stress run with ``identity`` alone.

``score`` runs the stress machinery (:func:`~pfungst.stress.suite.ask_perturbations`) with the ``identity``
perturbation only, so a score and a stress run's ``identity`` pass share everything: the settings
(:class:`~pfungst.evaluate.run_config.RunConfig`) and their checks, made before the first model call (STYLE rule 14);
the requests (a score and a stress run on the same cache ask the model once); the progress counter and the request
counts; and the accuracy estimate (:func:`~pfungst.stress.metrics.variant_accuracies`: a Wilson interval, or a
cluster-robust one where the items cluster). Answers go to the model item chunk by item chunk (``chunk_size`` items
per batch) through a :class:`~pfungst.models.cache.CachedModel`, which commits each answer as it arrives: a run
stopped at any point (Ctrl-C, SIGKILL) and started again with the same cache file asks only what is not stored yet.

The cache file defaults to ``$PFUNGST_CACHE`` if set, else ``$XDG_CACHE_HOME/pfungst/cache.sqlite``, else
``~/.cache/pfungst/cache.sqlite`` (:func:`~pfungst.evaluate.run_config.default_cache_path`); ``cache=False`` keeps
answers in memory only.
"""

from __future__ import annotations

from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.errors import override_settings
from pfungst.evaluate.engine import Progress
from pfungst.evaluate.run_config import RunConfig
from pfungst.evaluate.score_result import ScoreResult
from pfungst.models.protocol import LanguageModel
from pfungst.models.registry import ModelSpec
from pfungst.provenance import Provenance
from pfungst.serialization import to_jsonable
from pfungst.stress.metrics import variant_accuracies
from pfungst.stress.perturbations.base import StressRun
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.suite import ask_perturbations

__all__ = ["score"]

_IDENTITY = ("identity",)


def score(
    benchmark: Benchmark,
    model: ModelSpec | str | LanguageModel = "smollm2",
    config: RunConfig | None = None,
    *,
    progress: Progress | None = None,
    **settings: Any,
) -> ScoreResult:
    """Score every item of ``benchmark`` with a model: a stress run with ``identity`` alone, one outcome per item, and
    accuracy against chance with the interval a stress run gives its ``identity`` pass.

    Args:
        benchmark: The items to score (options in their original order).
        model: A model spec for :func:`~pfungst.models.registry.load_model` (``"smollm2"``, a ``.gguf`` path,
            ``"openai:<base_url>#<model>"``, or a parsed :class:`~pfungst.models.registry.ModelSpec`), loaded after
            validation and closed at the end; or a LanguageModel.
        config: Settings (:class:`~pfungst.evaluate.run_config.RunConfig`, scoring ``cloze-raw`` unless told
            otherwise); keyword ``settings`` override single fields (``score(b, rule="letter", limit=20)``).
        progress: Optional callback ``progress(stage, done, total)`` over the run's model requests
            (:mod:`pfungst.stress.progress`; the total is known before the first request).

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
        >>> result = score(Benchmark("toy", items), Shortest(), rule="cloze-raw", cache=False)
        >>> [record.chosen for record in result.items], result.accuracy.value, result.counts.misses
        ([0, 1], 0.5, 4)
    """
    run_config = override_settings(config or RunConfig(), settings, "score")
    done = ask_perturbations(benchmark, model, StressConfig(run=run_config, perturbations=_IDENTITY), progress)
    run = done.run
    (accuracy,) = variant_accuracies(done.asked.outcomes, level=run_config.level, clusters=run.clusters)
    return ScoreResult(
        outcomes=tuple(done.asked.outcomes),
        accuracy=accuracy.accuracy,
        design_effect=accuracy.design_effect,
        counts=done.counts,
        model=done.model,
        benchmark=run.benchmark.to_dict(),
        provenance=Provenance.current(_settings(run), run_config.seed, data=(run.benchmark.provenance,)),
    )


def _settings(run: StressRun) -> dict[str, Any]:
    """The settings a score records: rule and its parameters, format and its fields, items, batches, cache,
    interval."""
    config = run.config.run
    return {
        "rule": run.rule.name,
        "rule_params": to_jsonable(vars(run.rule), default=repr),  # a parameter JSON cannot hold is kept as its repr
        "format": config.format_name,
        "format_params": run.base.to_dict(),
        "arrangement": "identity",
        "limit": config.limit,
        "chunk_size": config.chunk_size,
        "level": config.level,
        "cluster_by": config.cluster_by,
        **({"on_error": "skip"} if config.on_error == "skip" else {}),
        "cache": config.cache_path(),
    }
