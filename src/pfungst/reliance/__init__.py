"""Join an audit with model outcomes: do models do better on the items a surface-feature shortcut solves?

``read_outcomes(path)`` reads per-item outcomes (OpenAI evals logs, pfungst score / stress files, lm-eval
``--log_samples``, HELM ``per_instance_stats.json``, a plain CSV); ``reliance(audits, outcomes)`` compares each
model's accuracy on shortcut-solvable items with the rest, per model and per family of models (Pacchiardi et al.
2024, second experiment, with Benjamini-Hochberg and a power statement).

The package is callable: ``pfungst.reliance(audits, outcomes)`` is :func:`pfungst.reliance.analysis.reliance` (as
``pfungst.audit`` and ``pfungst.stress`` are).
"""

import sys
import types
from typing import Any

from pfungst.reliance.analysis import RelianceConfig, reliance
from pfungst.reliance.families import VERSION_SEGMENT, family_of, family_tests
from pfungst.reliance.outcomes import OUTCOME_FORMATS, ModelOutcomes, OutcomeRequest, OutcomesBuilder, read_outcomes
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
    "RelianceConfig",
    "RelianceResult",
    "ShortcutItems",
    "detectable_difference",
    "family_of",
    "family_tests",
    "read_outcomes",
    "reliance",
    "shortcut_items",
]


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`reliance`."""

    def __call__(self, *args: Any, **kwargs: Any) -> RelianceResult:
        return reliance(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
