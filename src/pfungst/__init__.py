"""pfungst: catch Clever Hans effects in multiple-choice LLM evaluation.

Load a benchmark, audit it for surface cues, stress a model for order, format and scoring sensitivity, join the
two, report. See the README for the command line and the Python API.

``pfungst.audit``, ``pfungst.stress`` and ``pfungst.reliance`` are plain functions (what a type checker sees and
what runs); their packages stay importable by name: ``from pfungst.audit import AuditConfig``, ``import
pfungst.stress.multiprompt as multiprompt``. A package attribute can hold only one object, so the function takes the
attribute and is named after its package: Python's ``import a.b.c as m`` falls back to ``sys.modules`` under the
``__name__`` of what ``a.b`` holds, which makes the ``as`` form reach the submodule through the function.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

from pfungst.errors import ConfigError, DataError, PfungstError, ReaderError

if TYPE_CHECKING:
    from pfungst.audit import AuditConfig, AuditResult
    from pfungst.audit.run import audit
    from pfungst.data import Benchmark, Item, Provenance, load
    from pfungst.data.summary import summarize
    from pfungst.evaluate.runner import ScoreConfig
    from pfungst.evaluate.runner import score_benchmark as score
    from pfungst.evaluate.score_result import ScoreResult
    from pfungst.reliance.analysis import RelianceConfig, reliance
    from pfungst.report.loading import read_result
    from pfungst.stress.stress_config import StressConfig
    from pfungst.stress.stress_result import StressResult
    from pfungst.stress.suite import stress

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
    "ScoreConfig",
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
    "Provenance": "pfungst.data:Provenance",
    "RelianceConfig": "pfungst.reliance.analysis:RelianceConfig",
    "ScoreConfig": "pfungst.evaluate.runner:ScoreConfig",
    "ScoreResult": "pfungst.evaluate.score_result:ScoreResult",
    "StressConfig": "pfungst.stress.stress_config:StressConfig",
    "StressResult": "pfungst.stress.stress_result:StressResult",
    "audit": "pfungst.audit.run:audit",
    "load": "pfungst.data:load",
    "read_result": "pfungst.report.loading:read_result",
    "reliance": "pfungst.reliance.analysis:reliance",
    "score": "pfungst.evaluate.runner:score_benchmark",
    "stress": "pfungst.stress.suite:stress",
    "summarize": "pfungst.data.summary:summarize",
}
"""The public names, each imported on first use: ``import pfungst`` (and the command line's start) stays fast."""
_FUNCTIONS = ("audit", "stress", "reliance")


def __getattr__(name: str) -> object:
    """Import a public name on first use (PEP 562)."""
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'pfungst' has no attribute {name!r}")
    module, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module), attribute)
    if name in _FUNCTIONS:
        value.__name__ = f"pfungst.{name}"
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(types.ModuleType):
    """``pfungst``'s module type: importing ``pfungst.audit`` (a package) never replaces the ``pfungst.audit``
    function, which Python would otherwise do by setting the package as an attribute of its parent."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _FUNCTIONS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
