"""Settings of a stress run (:func:`pfungst.stress.suite.stress`), every one checked before the first model call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pfungst.data.clusters import check_cluster_by
from pfungst.errors import ConfigError, check_resamples, unknown_name_message
from pfungst.evaluate.run_config import RunConfig, check_count
from pfungst.evaluate.scoring import SCORING_RULES, ScoringRule
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
class StressConfig(RunConfig):
    """What a stress run asks, of how many items, and how its figures are estimated: a
    :class:`~pfungst.evaluate.run_config.RunConfig` (the rule, the base prompt format, which the format grammar and
    the instruction paraphrases vary, the items, cache, batches, seed, backend options) and the perturbations."""

    rule: str = "letter"
    """The scoring rule of every arrangement perturbation (letter scoring shows selection bias most directly)."""
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
    sample: int | None = None
    """Use a seeded random sample of this many items (after ``limit``); the seed also draws the shuffled IDs,
    sampled orders and formats, the PriDe sample and the bootstrap."""
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
        super().validate()
        for name in self.perturbations:
            PERTURBATIONS.check(name)
            if PERTURBATIONS.is_plugin(name):  # a plugin that fails to load stops the run before any model call
                get_perturbation(name)
        for name in self.rules:
            if name not in SCORING_RULES:
                raise ConfigError(unknown_name_message("scoring rule", name, SCORING_RULES))
        for name in ("n_formats", "n_search_formats", "spread_budget", "n_bootstrap"):
            check_count(name, getattr(self, name), minimum=1)
        for name in ("sample", "permutations"):
            if getattr(self, name) is not None:
                check_count(name, getattr(self, name), minimum=1)
        check_cluster_by(self.cluster_by)
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

    def compared_rules(self) -> tuple[ScoringRule, ...]:
        """The rules of the ``rules`` perturbation; the main rule keeps its parameters."""
        return tuple(self.rule_named(name) for name in dict.fromkeys(self.rules))

    @property
    def rule_scores_options(self) -> bool:
        """Whether the main rule scores every option (PriDe and the top-two placement need that); ``generate``
        only marks its parsed choice."""
        return self.rule != "generate"

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
