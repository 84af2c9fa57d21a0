"""Join an audit with model outcomes: do models do better on the items a surface-feature shortcut solves?

``read_outcomes(path)`` reads per-item outcomes (OpenAI evals logs, pfungst score / stress files, lm-eval
``--log_samples``, HELM ``per_instance_stats.json``, a plain CSV); ``reliance(audits, outcomes)`` compares each
model's accuracy on shortcut-solvable items with the rest, per model and per family of models (Pacchiardi et al.
2024, second experiment, with Benjamini-Hochberg and a power statement).

``pfungst.reliance(audits, outcomes)`` is :func:`pfungst.reliance.analysis.reliance`, a plain function; this package
is imported by name (``from pfungst.reliance import read_outcomes``).
"""

from pfungst.reliance.analysis import RelianceConfig, reliance
from pfungst.reliance.families import VERSION_SEGMENT, family_of, family_tests
from pfungst.reliance.outcomes import OUTCOME_FORMATS, ModelOutcomes, OutcomeRequest, OutcomesBuilder, read_outcomes
from pfungst.reliance.paper import PaperDataset, PaperKappaTests, paper_kappa_tests
from pfungst.reliance.result import SCHEMA_VERSION, FamilyTest, ModelReliance, RelianceResult
from pfungst.reliance.shortcut import AuditInput, ShortcutItems, shortcut_items
from pfungst.stats import detectable_difference

__all__ = [
    "OUTCOME_FORMATS",
    "SCHEMA_VERSION",
    "VERSION_SEGMENT",
    "AuditInput",
    "FamilyTest",
    "ModelOutcomes",
    "ModelReliance",
    "OutcomeRequest",
    "OutcomesBuilder",
    "PaperDataset",
    "PaperKappaTests",
    "RelianceConfig",
    "RelianceResult",
    "ShortcutItems",
    "detectable_difference",
    "family_of",
    "family_tests",
    "paper_kappa_tests",
    "read_outcomes",
    "reliance",
    "shortcut_items",
]
