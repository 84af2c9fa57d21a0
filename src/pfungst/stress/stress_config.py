"""Settings of a stress run (:func:`pfungst.stress.suite.stress`), every one checked before the first model call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pfungst.errors import MAX_RESAMPLES, ConfigError, check_resamples, unknown_name_message
from pfungst.evaluate.run_config import RunConfig, check_count
from pfungst.settings import check_settings, comma_list, comma_text, setting
from pfungst.stress.perturbations import PERTURBATIONS, resolve_perturbations
from pfungst.stress.perturbations.params import parse_spec, perturbation_spec

if TYPE_CHECKING:  # the settings load without numpy (the command line builds its options from them)
    from pfungst.evaluate.scoring import ScoringRule

__all__ = [
    "DEFAULT_PERTURBATIONS",
    "EXPORTABLE_RULES",
    "EXPORT_PERTURBATIONS",
    "PERTURBATIONS",
    "StressConfig",
    "export_config",
]

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

EXPORTABLE_RULES = ("letter", "cloze-raw", "cloze-byte")
"""Rules decided from summed log-likelihoods alone, which is what lm-eval logs."""
EXPORT_PERTURBATIONS = tuple(name for name in DEFAULT_PERTURBATIONS if name != "top2")
"""What ``pfungst export lm-eval`` writes unless told otherwise: the default perturbations that need no answers."""

_PROBABILITY_RULES = ("letter", "cloze-raw", "cloze-token", "cloze-byte", "pmi")


def _letter_run() -> RunConfig:
    return RunConfig(rule="letter")


@dataclass(frozen=True)
class StressConfig:
    """What a stress run asks, of how many items, and how its figures are estimated: the run's settings (``run``: the
    rule, the base prompt format, which the format grammar and the instruction paraphrases vary, the items, cache,
    batches, seed, backend options, interval level and clusters; the same :class:`RunConfig` ``pfungst.score``
    takes) and the perturbations.

    Example:
        >>> config = StressConfig(run=RunConfig(rule="cloze-raw", limit=20), perturbations=("cyclic",))
        >>> config.validate()
        >>> config.names
        ('identity', 'cyclic')
    """

    run: RunConfig = field(default_factory=_letter_run)
    """The settings every model run shares (:class:`~pfungst.evaluate.run_config.RunConfig`); by default scoring
    ``letter`` (the scoring rule of every arrangement perturbation: letter scoring shows selection bias most
    directly)."""
    perturbations: tuple[Any, ...] = field(
        default=DEFAULT_PERTURBATIONS,
        metadata=setting(
            "Perturbation to run, repeatable, with its parameters as name:key=value,key=value (-p pride:fraction=0.1 "
            "-p formats:n=4); default: all but permutations and spread-search (export lm-eval: those it can "
            "export), with default parameters (see `pfungst formats --what perturbations`).",
            flags=("--perturbation", "-p"),
            repeat=True,
        ),
    )
    """Which perturbations to run (:data:`~pfungst.stress.perturbations.PERTURBATIONS`, installed plugins included),
    each a name (``"pride"``), a name with parameters (``"pride:fraction=0.1"``), a recorded ``{"name", "params"}``
    or a built perturbation (``PridePerturbation(fraction=0.1)``); ``identity`` is always added."""
    rules: tuple[str, ...] = field(
        default=_PROBABILITY_RULES,
        metadata=setting(
            "Comma-separated rules compared by the 'rules' perturbation.", parse=comma_list, show=comma_text
        ),
    )
    """The scoring rules compared by ``rules`` and reported by the probes (``choices-only``,
    ``none-of-the-above``); add ``generate`` to include generate-then-parse."""
    sample: int | None = field(
        default=None, metadata=setting("Use a seeded random sample of N items.", bounds=(1, None))
    )
    """Use a seeded random sample of this many items (after ``limit``); the seed also draws the shuffled IDs,
    every perturbation's draws (sampled orders and formats, PriDe's sample) and the bootstrap."""
    n_bootstrap: int = field(
        default=1000, metadata=setting("Bootstrap resamples per interval.", bounds=(1, MAX_RESAMPLES))
    )
    """Bootstrap resamples behind every interval that is not a Wilson interval."""

    def __post_init__(self) -> None:
        check_resamples(n_bootstrap=self.n_bootstrap)

    def validate(self) -> None:
        """Check every setting.

        Raises:
            ConfigError: an invalid run setting (:meth:`RunConfig.validate`), an unknown perturbation, perturbation
                parameter or rule, or a count out of range.
        """
        if not isinstance(self.run, RunConfig):
            raise ConfigError(f"run must be a RunConfig, got {type(self.run).__name__}")
        self.run.validate()
        check_settings(self, choices=False)  # sample and n_bootstrap in their declared bounds, named by option
        from pfungst.evaluate.scoring import SCORING_RULES

        self.resolved_perturbations()  # every perturbation built: its parameters checked before any model call
        for name in self.rules:
            if name not in SCORING_RULES:
                raise ConfigError(unknown_name_message("scoring rule", name, SCORING_RULES))
        check_count("n_bootstrap", self.n_bootstrap, minimum=1)
        if self.sample is not None:
            check_count("sample", self.sample, minimum=1)
        if "rules" in self.names and not self.rules:
            raise ConfigError("the 'rules' perturbation needs at least one scoring rule in rules")

    def resolved_perturbations(self) -> tuple[Any, ...]:
        """The perturbations that run, built with their parameters, in the order of
        :data:`~pfungst.stress.perturbations.PERTURBATIONS`, ``identity`` first.

        Raises:
            ConfigError: an unknown perturbation or parameter, a parameter out of range, or one given twice.
        """
        return resolve_perturbations(self.perturbations)

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the perturbations that run, in the order of
        :data:`~pfungst.stress.perturbations.PERTURBATIONS`, ``identity`` first."""
        wanted = {"identity", *(_spec_name(spec) for spec in self.perturbations)}
        return tuple(name for name in PERTURBATIONS if name in wanted)

    def compared_rules(self) -> tuple[ScoringRule, ...]:
        """The rules of the ``rules`` perturbation; the main rule keeps its parameters."""
        return tuple(self.run.rule_named(name) for name in dict.fromkeys(self.rules))

    @property
    def rule_scores_options(self) -> bool:
        """Whether the main rule scores every option (PriDe and the top-two placement need that); ``generate``
        only marks its parsed choice."""
        return self.run.rule != "generate"

    def to_dict(self) -> dict[str, Any]:
        """The settings as recorded in results (the format by name or as its fields)."""
        run = self.run
        return {
            "rule": run.rule,
            "rule_params": dict(run.rule_params),
            "format": run.format_name,
            "perturbations": [perturbation_spec(p) for p in self.resolved_perturbations()],
            "rules": list(self.rules),
            "limit": run.limit,
            "sample": self.sample,
            "cache": run.cache_path(),
            "chunk_size": run.chunk_size,
            "on_error": run.on_error,
            "n_bootstrap": self.n_bootstrap,
            "level": run.level,
            "cluster_by": run.cluster_by,
        }


def _spec_name(spec: Any) -> Any:
    """The name of a perturbation as given (a name, ``name:key=value``, a spec or an instance), unchecked."""
    if isinstance(spec, str):
        return parse_spec(spec)[0]
    if isinstance(spec, Mapping):
        return spec.get("name")
    return getattr(spec, "name", None)


def export_config() -> StressConfig:
    """The settings of ``pfungst export lm-eval`` unless told otherwise: the letter rule, the exportable rules and
    perturbations (:data:`EXPORTABLE_RULES`, :data:`EXPORT_PERTURBATIONS`), no answer cache (lm-eval asks)."""
    return StressConfig(
        run=RunConfig(rule="letter", cache=False), perturbations=EXPORT_PERTURBATIONS, rules=EXPORTABLE_RULES
    )
