"""Settings of a stress run (:func:`pfungst.stress.suite.stress`), every one checked before the first model call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pfungst.data.builder import OnError
from pfungst.data.clusters import check_cluster_by
from pfungst.errors import ConfigError, check_resamples, check_run_settings, unknown_name_message
from pfungst.evaluate.formats import PromptFormat, get_format
from pfungst.evaluate.runner import cache_location
from pfungst.evaluate.scoring import SCORING_RULES, ScoringRule, get_scoring_rule
from pfungst.stress.perturbations import PERTURBATIONS, get_perturbation

__all__ = ["BUILTIN_INSTRUCTIONS", "DEFAULT_PERTURBATIONS", "PERTURBATIONS", "StressConfig"]

DEFAULT_PERTURBATIONS = (
    "identity",
    "cyclic",
    "answer-moved",
    "ids-shuffled",
    "top2",
    "pride",
    "rules",
    "formats",
    "instructions",
)
"""What ``pfungst stress`` runs unless told otherwise (``permutations`` and ``spread-search`` cost more)."""

BUILTIN_INSTRUCTIONS = (
    "",
    "The following is a multiple choice question. Choose the correct answer.",
    "Answer the following multiple choice question with the label of the correct option.",
    "Read the question and select the best answer from the options below.",
    "Choose the single best answer.",
    "Here is a question with several possible answers. Exactly one is correct; reply with its label.",
)
"""Instruction paraphrases always tried by ``instructions`` (the empty one is the format without instruction)."""

_PROBABILITY_RULES = ("letter", "cloze-raw", "cloze-token", "cloze-byte", "pmi")


@dataclass(frozen=True)
class StressConfig:
    """What a stress run asks, of how many items, and how its figures are estimated."""

    rule: str = "letter"
    """The scoring rule of every arrangement perturbation (letter scoring shows selection bias most directly)."""
    rule_params: Mapping[str, Any] = field(default_factory=dict)
    """Keyword parameters of ``rule``."""
    prompt: str | PromptFormat = "mmlu"
    """The base prompt format (a built-in name or a :class:`PromptFormat`); the format grammar and the instruction
    paraphrases vary it."""
    perturbations: tuple[str, ...] = DEFAULT_PERTURBATIONS
    """Which perturbations to run (:data:`~pfungst.stress.perturbations.PERTURBATIONS`, installed plugins included);
    ``identity`` is always added."""
    rules: tuple[str, ...] = _PROBABILITY_RULES
    """The scoring rules compared by ``rules`` (add ``generate`` to include generate-then-parse)."""
    permutations: int | None = 6
    """Orders per item for ``permutations``: a seeded sample of this many, or ``None`` for all ``n!``."""
    n_formats: int = 8
    """Formats for ``formats``: the base format plus ``n_formats - 1`` sampled from the grammar."""
    n_search_formats: int = 24
    """Formats sampled from the grammar for ``spread-search``."""
    spread_budget: int = 400
    """Item evaluations ``spread-search`` may spend (half hunting the best format, half the worst)."""
    instructions: tuple[str, ...] = ()
    """Instruction paraphrases of your own, tried with :data:`BUILTIN_INSTRUCTIONS`."""
    pride_fraction: float = 0.05
    """Share of items (seeded) whose cyclic passes estimate PriDe's ID prior."""
    limit: int | None = None
    """Use only the first ``limit`` items."""
    sample: int | None = None
    """Use a seeded random sample of this many items (after ``limit``)."""
    cache: str | Path | bool = True
    """The SQLite cache file; ``True`` for the default file, ``False`` for memory only."""
    chunk_size: int = 16
    """Questions sent to the model per batch: the unit of progress and of committed work."""
    on_error: OnError = "raise"
    """A question longer than the model's context window: ``raise`` stops with an error naming the item; ``skip``
    leaves it unasked (its outcome is ``skipped``: wrong, and no predicted ID), counts it and goes on."""
    seed: int = 0
    """Seeds every random choice: item sample, shuffled IDs, sampled orders and formats, PriDe sample, bootstrap."""
    model_options: Mapping[str, Any] = field(default_factory=dict)
    """Keyword options for the model when it is given by name (``{"n_threads": 2}``)."""
    n_bootstrap: int = 1000
    """Bootstrap resamples behind every interval that is not a Wilson interval."""
    level: float = 0.95
    """Coverage of every interval."""
    cluster_by: str = "auto"
    """Which items belong together for cluster-robust intervals and paired tests (Miller 2024): ``auto`` (an MMLU
    subject, a BIG-bench subtask, a ``group``, a shared passage: :func:`pfungst.data.clusters.item_clusters`),
    ``none`` (independent items: Wilson and plain paired intervals) or a metadata key or field every item carries."""

    def __post_init__(self) -> None:
        check_resamples(n_bootstrap=self.n_bootstrap)

    def validate(self) -> None:
        """Check every setting.

        Raises:
            ConfigError: an unknown perturbation or rule, or a count, fraction or level out of range.
        """
        for name in self.perturbations:
            PERTURBATIONS.check(name)
            if PERTURBATIONS.is_plugin(name):  # a plugin that fails to load stops the run before any model call
                get_perturbation(name)
        for name in self.rules:
            if name not in SCORING_RULES:
                raise ConfigError(unknown_name_message("scoring rule", name, SCORING_RULES))
        for name in ("n_formats", "n_search_formats", "spread_budget", "chunk_size", "n_bootstrap"):
            _check_count(name, getattr(self, name), minimum=1)
        for name in ("limit", "sample", "permutations"):
            if getattr(self, name) is not None:
                _check_count(name, getattr(self, name), minimum=1)
        check_run_settings(seed=self.seed)
        check_cluster_by(self.cluster_by)
        if self.on_error not in ("raise", "skip"):
            raise ConfigError(f"on_error must be 'raise' or 'skip', not {self.on_error!r}")
        if not 0 < self.pride_fraction <= 1:
            raise ConfigError(f"pride_fraction must be in (0, 1], got {self.pride_fraction!r} (0.05 is 5% of items)")
        if not 0 < self.level < 1:
            raise ConfigError(f"level must be in (0, 1), got {self.level!r}")
        if "rules" in self.perturbations and not self.rules:
            raise ConfigError("the 'rules' perturbation needs at least one scoring rule in rules")
        for text in self.instructions:
            if not isinstance(text, str) or not text.strip():
                raise ConfigError(f"instruction paraphrases must be non-empty strings, got {text!r}")

    @property
    def run(self) -> tuple[str, ...]:
        """The perturbations that run, in the order of :data:`~pfungst.stress.perturbations.PERTURBATIONS`,
        ``identity`` first."""
        wanted = {"identity", *self.perturbations}
        return tuple(name for name in PERTURBATIONS if name in wanted)

    def main_rule(self) -> ScoringRule:
        """The rule of the arrangement perturbations (its parameters checked)."""
        return get_scoring_rule(self.rule, **_with_seed(self.rule, self.rule_params, self.seed))

    def compared_rules(self) -> tuple[ScoringRule, ...]:
        """The rules of the ``rules`` perturbation; the main rule keeps its parameters."""
        return tuple(self.rule_named(name) for name in dict.fromkeys(self.rules))

    def rule_named(self, name: str) -> ScoringRule:
        """The rule ``name``: the main rule with its parameters when it is the main one, else with its defaults.

        Raises:
            ConfigError: an unknown rule name.
        """
        return self.main_rule() if name == self.rule else get_scoring_rule(name, **_with_seed(name, {}, self.seed))

    def base_format(self) -> PromptFormat:
        """The base prompt format."""
        return self.prompt if isinstance(self.prompt, PromptFormat) else get_format(self.prompt)

    @property
    def rule_scores_options(self) -> bool:
        """Whether the main rule scores every option (PriDe and the top-two placement need that); ``generate``
        only marks its parsed choice."""
        return self.rule != "generate"

    @property
    def format_name(self) -> str:
        """The base format's name in results."""
        return self.prompt if isinstance(self.prompt, str) else "custom"

    def cache_path(self) -> str:
        """The cache file (``":memory:"`` when ``cache`` is False)."""
        return cache_location(self.cache)

    def to_dict(self) -> dict[str, Any]:
        """The settings as recorded in results (the format by name or as its fields)."""
        return {
            "rule": self.rule,
            "rule_params": dict(self.rule_params),
            "format": self.format_name,
            "perturbations": list(self.run),
            "rules": list(self.rules),
            "permutations": self.permutations,
            "n_formats": self.n_formats,
            "n_search_formats": self.n_search_formats,
            "spread_budget": self.spread_budget,
            "instructions": list(BUILTIN_INSTRUCTIONS) + list(self.instructions),
            "pride_fraction": self.pride_fraction,
            "limit": self.limit,
            "sample": self.sample,
            "cache": self.cache_path(),
            "chunk_size": self.chunk_size,
            "on_error": self.on_error,
            "n_bootstrap": self.n_bootstrap,
            "level": self.level,
            "cluster_by": self.cluster_by,
        }


def _check_count(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{name} must be an integer of at least {minimum}, got {value!r}")


def _with_seed(rule: str, params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    params = dict(params)
    if rule == "generate":
        params.setdefault("seed", seed)
    return params
