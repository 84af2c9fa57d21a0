"""Audit a benchmark: can its answers be predicted from surface features alone?

``audit(benchmark)`` probes it with every feature set (scikit-learn pipelines fitted on training folds only),
adds zero-training heuristics and a cue table, and returns an :class:`AuditResult` with a verdict and its evidence
and a :class:`Headline`: one sentence naming what explains the score, from which input, how sure, and what to do.
``fix`` writes counterbalanced and AFLite-filtered copies and audits them again.

The entry point is :func:`audit` (``pfungst.audit.audit(benchmark, ...)``, or ``from pfungst.audit import audit``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.lazy import lazy_exports

if TYPE_CHECKING:
    from pfungst.audit.controls import shuffled_copy
    from pfungst.audit.crossfit_protocol import CrossFit
    from pfungst.audit.cues import CueConfig, CueTable, find_cues
    from pfungst.audit.feature_sets import FEATURE_SETS, PAPER_FEATURE_SETS, FeatureSet, get_feature_set
    from pfungst.audit.fixing import FixResult, fix
    from pfungst.audit.headline import Headline, NamedCue
    from pfungst.audit.heuristics import HeuristicConfig, HeuristicsReport, run_heuristics
    from pfungst.audit.inputs import ItemInputs, OptionTable
    from pfungst.audit.mitigate import AFLiteConfig, FilterResult, counterbalance, filter_predictable
    from pfungst.audit.pacchiardi2024_protocol import Pacchiardi2024
    from pfungst.audit.paper_protocol import paper_rows, paper_split
    from pfungst.audit.probe import ProbeConfig, run_probe
    from pfungst.audit.probe_outcome import ProbeOutcome
    from pfungst.audit.probe_protocol import PROTOCOLS, ProbeProtocol, get_protocol
    from pfungst.audit.probe_settings import ProbeSettings
    from pfungst.audit.result import SCHEMA_VERSION, AuditResult, Verdict
    from pfungst.audit.run import AuditConfig, audit
    from pfungst.audit.size_defaults import default_feature_sets
    from pfungst.audit.verdict import Evidence

__all__ = [
    "FEATURE_SETS",
    "PAPER_FEATURE_SETS",
    "PROTOCOLS",
    "SCHEMA_VERSION",
    "AFLiteConfig",
    "AuditConfig",
    "AuditResult",
    "CrossFit",
    "CueConfig",
    "CueTable",
    "Evidence",
    "FeatureSet",
    "FilterResult",
    "FixResult",
    "Headline",
    "HeuristicConfig",
    "HeuristicsReport",
    "ItemInputs",
    "NamedCue",
    "OptionTable",
    "Pacchiardi2024",
    "ProbeConfig",
    "ProbeOutcome",
    "ProbeProtocol",
    "ProbeSettings",
    "Verdict",
    "audit",
    "counterbalance",
    "default_feature_sets",
    "filter_predictable",
    "find_cues",
    "fix",
    "get_feature_set",
    "get_protocol",
    "paper_rows",
    "paper_split",
    "run_heuristics",
    "run_probe",
    "shuffled_copy",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "shuffled_copy": "pfungst.audit.controls",
        "CueConfig": "pfungst.audit.cues",
        "CueTable": "pfungst.audit.cues",
        "find_cues": "pfungst.audit.cues",
        "Evidence": "pfungst.audit.verdict",
        "FEATURE_SETS": "pfungst.audit.feature_sets",
        "PAPER_FEATURE_SETS": "pfungst.audit.feature_sets",
        "FeatureSet": "pfungst.audit.feature_sets",
        "get_feature_set": "pfungst.audit.feature_sets",
        "FixResult": "pfungst.audit.fixing",
        "fix": "pfungst.audit.fixing",
        "Headline": "pfungst.audit.headline",
        "NamedCue": "pfungst.audit.headline",
        "HeuristicConfig": "pfungst.audit.heuristics",
        "HeuristicsReport": "pfungst.audit.heuristics",
        "run_heuristics": "pfungst.audit.heuristics",
        "ItemInputs": "pfungst.audit.inputs",
        "OptionTable": "pfungst.audit.inputs",
        "AFLiteConfig": "pfungst.audit.mitigate",
        "FilterResult": "pfungst.audit.mitigate",
        "counterbalance": "pfungst.audit.mitigate",
        "filter_predictable": "pfungst.audit.mitigate",
        "paper_rows": "pfungst.audit.paper_protocol",
        "paper_split": "pfungst.audit.paper_protocol",
        "ProbeConfig": "pfungst.audit.probe",
        "run_probe": "pfungst.audit.probe",
        "ProbeOutcome": "pfungst.audit.probe_outcome",
        "ProbeSettings": "pfungst.audit.probe_settings",
        "PROTOCOLS": "pfungst.audit.probe_protocol",
        "CrossFit": "pfungst.audit.crossfit_protocol",
        "Pacchiardi2024": "pfungst.audit.pacchiardi2024_protocol",
        "ProbeProtocol": "pfungst.audit.probe_protocol",
        "get_protocol": "pfungst.audit.probe_protocol",
        "SCHEMA_VERSION": "pfungst.audit.result",
        "AuditResult": "pfungst.audit.result",
        "Verdict": "pfungst.audit.result",
        "AuditConfig": "pfungst.audit.run",
        "audit": "pfungst.audit.run",
        "default_feature_sets": "pfungst.audit.size_defaults",
    },
    globals(),
)
