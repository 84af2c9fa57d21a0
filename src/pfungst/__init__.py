"""pfungst: catch Clever Hans effects in multiple-choice LLM evaluation.

Load a benchmark, audit it for surface cues, stress a model for order, format and scoring sensitivity, join the
two, report. See the README for the command line and the Python API.

``pfungst.audit``, ``pfungst.stress`` and ``pfungst.reliance`` are the packages of those stages, each with its entry
function of the same name: ``pfungst.audit.audit(benchmark)``, ``pfungst.stress.stress(benchmark, model)``,
``pfungst.reliance.reliance(audits, outcomes)`` (or ``from pfungst.audit import audit``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pfungst.errors import ConfigError, DataError, PfungstError, ReaderError

if TYPE_CHECKING:
    from pfungst import audit, reliance, stress
    from pfungst.audit import AuditConfig, AuditResult
    from pfungst.data import Benchmark, Item, load
    from pfungst.data.summary import summarize
    from pfungst.evaluate.run_config import RunConfig
    from pfungst.evaluate.score_result import ScoreResult
    from pfungst.provenance import Provenance
    from pfungst.reliance.analysis import RelianceConfig
    from pfungst.report.loading import read_result
    from pfungst.stress.score_run import score
    from pfungst.stress.stress_config import StressConfig
    from pfungst.stress.stress_result import StressResult

__version__ = "0.1.0"

__all__ = [
    "AuditConfig",
    "AuditResult",
    "Benchmark",
    "ConfigError",
    "DataError",
    "Item",
    "PfungstError",
    "Provenance",
    "ReaderError",
    "RelianceConfig",
    "RunConfig",
    "ScoreResult",
    "StressConfig",
    "StressResult",
    "__version__",
    "audit",
    "load",
    "read_result",
    "reliance",
    "score",
    "stress",
    "summarize",
]

_LAZY = {
    "AuditConfig": "pfungst.audit:AuditConfig",
    "AuditResult": "pfungst.audit:AuditResult",
    "Benchmark": "pfungst.data:Benchmark",
    "Item": "pfungst.data:Item",
    "Provenance": "pfungst.provenance:Provenance",
    "RelianceConfig": "pfungst.reliance.analysis:RelianceConfig",
    "RunConfig": "pfungst.evaluate.run_config:RunConfig",
    "ScoreResult": "pfungst.evaluate.score_result:ScoreResult",
    "StressConfig": "pfungst.stress.stress_config:StressConfig",
    "StressResult": "pfungst.stress.stress_result:StressResult",
    "audit": "pfungst.audit",
    "load": "pfungst.data:load",
    "read_result": "pfungst.report.loading:read_result",
    "reliance": "pfungst.reliance",
    "score": "pfungst.stress.score_run:score",
    "stress": "pfungst.stress",
    "summarize": "pfungst.data.summary:summarize",
}
"""The public names, each imported on first use: ``import pfungst`` (and the command line's start) stays fast. A
target without ``:attribute`` is a stage package."""


def __getattr__(name: str) -> object:
    """Import a public name on first use (PEP 562)."""
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'pfungst' has no attribute {name!r}")
    module, _, attribute = target.partition(":")
    value: object = importlib.import_module(module)
    if attribute:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
