"""Join an audit with model outcomes: do models do better on the items a surface-feature shortcut solves?

``read_outcomes(path)`` reads per-item outcomes (OpenAI evals logs, pfungst score / stress files, lm-eval
``--log_samples``, HELM ``per_instance_stats.json``, a plain CSV); ``reliance(audits, outcomes)`` compares each
model's accuracy on shortcut-solvable items with the rest, per model and per family of models (Pacchiardi et al.
2024, second experiment, with Benjamini-Hochberg and a power statement); ``shortcut_table(audit)`` joins every
shortcut per item (probes, heuristics, classifier and model choices-only) into one score, and
``reliance(..., split="any-shortcut")`` splits accuracy by it; ``compare_choices_only(audit, stresses)`` puts the
audit's classifier choices-only accuracy beside each model's in one table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.lazy import lazy_exports

if TYPE_CHECKING:
    from pfungst.reliance.analysis import RelianceConfig, reliance
    from pfungst.reliance.choices_only import (
        ChoicesOnlyComparison,
        ChoicesOnlyRow,
        choices_only_comparisons,
        compare_choices_only,
    )
    from pfungst.reliance.families import VERSION_SEGMENT, family_of, family_tests
    from pfungst.reliance.outcomes import OUTCOME_FORMATS, ModelOutcomes, OutcomeRequest, OutcomesBuilder, read_outcomes
    from pfungst.reliance.paper import PaperDataset, PaperKappaTests, paper_kappa_tests
    from pfungst.reliance.result import SCHEMA_VERSION, FamilyTest, ModelReliance, RelianceResult, ShortcutBreakdown
    from pfungst.reliance.shortcut import AuditInput, ShortcutItems, read_audit, shortcut_items
    from pfungst.reliance.shortcut_score import CHOICES_ONLY_VARIANT, ShortcutSummary, ShortcutTable, shortcut_table
    from pfungst.stats import detectable_difference

__all__ = [
    "CHOICES_ONLY_VARIANT",
    "OUTCOME_FORMATS",
    "SCHEMA_VERSION",
    "VERSION_SEGMENT",
    "AuditInput",
    "ChoicesOnlyComparison",
    "ChoicesOnlyRow",
    "FamilyTest",
    "ModelOutcomes",
    "ModelReliance",
    "OutcomeRequest",
    "OutcomesBuilder",
    "PaperDataset",
    "PaperKappaTests",
    "RelianceConfig",
    "RelianceResult",
    "ShortcutBreakdown",
    "ShortcutItems",
    "ShortcutSummary",
    "ShortcutTable",
    "choices_only_comparisons",
    "compare_choices_only",
    "detectable_difference",
    "family_of",
    "family_tests",
    "paper_kappa_tests",
    "read_audit",
    "read_outcomes",
    "reliance",
    "shortcut_items",
    "shortcut_table",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "RelianceConfig": "pfungst.reliance.analysis",
        "reliance": "pfungst.reliance.analysis",
        "ChoicesOnlyComparison": "pfungst.reliance.choices_only",
        "ChoicesOnlyRow": "pfungst.reliance.choices_only",
        "choices_only_comparisons": "pfungst.reliance.choices_only",
        "compare_choices_only": "pfungst.reliance.choices_only",
        "VERSION_SEGMENT": "pfungst.reliance.families",
        "family_of": "pfungst.reliance.families",
        "family_tests": "pfungst.reliance.families",
        "OUTCOME_FORMATS": "pfungst.reliance.outcomes",
        "ModelOutcomes": "pfungst.reliance.outcomes",
        "OutcomeRequest": "pfungst.reliance.outcomes",
        "OutcomesBuilder": "pfungst.reliance.outcomes",
        "read_outcomes": "pfungst.reliance.outcomes",
        "PaperDataset": "pfungst.reliance.paper",
        "PaperKappaTests": "pfungst.reliance.paper",
        "paper_kappa_tests": "pfungst.reliance.paper",
        "SCHEMA_VERSION": "pfungst.reliance.result",
        "FamilyTest": "pfungst.reliance.result",
        "ModelReliance": "pfungst.reliance.result",
        "RelianceResult": "pfungst.reliance.result",
        "AuditInput": "pfungst.reliance.shortcut",
        "ShortcutItems": "pfungst.reliance.shortcut",
        "read_audit": "pfungst.reliance.shortcut",
        "shortcut_items": "pfungst.reliance.shortcut",
        "ShortcutBreakdown": "pfungst.reliance.result",
        "CHOICES_ONLY_VARIANT": "pfungst.reliance.shortcut_score",
        "ShortcutSummary": "pfungst.reliance.shortcut_score",
        "ShortcutTable": "pfungst.reliance.shortcut_score",
        "shortcut_table": "pfungst.reliance.shortcut_score",
        "detectable_difference": "pfungst.stats",
    },
    globals(),
)
