"""pfungst: catch Clever Hans effects in multiple-choice LLM evaluation.

Load a benchmark, audit it for surface cues, stress a model for order, format and scoring sensitivity, join the
two, report. See the README for the command line and the Python API.

``pfungst.audit``, ``pfungst.stress`` and ``pfungst.reliance`` are plain functions (what a type checker sees and
what runs); their packages stay importable by name: ``from pfungst.audit import AuditConfig``,
``import pfungst.stress.pride as pride``. A package attribute can hold only one object, so the function takes the
attribute and is named after its package: Python's ``import a.b.c as m`` falls back to ``sys.modules`` under the
``__name__`` of what ``a.b`` holds, which makes the ``as`` form reach the submodule through the function.
"""

from pfungst.audit import AuditConfig, AuditResult
from pfungst.audit.run import audit
from pfungst.data import Benchmark, Item, Provenance, load
from pfungst.data.summary import summarize
from pfungst.errors import ConfigError, DataError, PfungstError, ReaderError
from pfungst.evaluate.runner import ScoreConfig
from pfungst.evaluate.runner import score_benchmark as score
from pfungst.evaluate.score_result import ScoreResult
from pfungst.reliance.analysis import RelianceConfig, reliance
from pfungst.report.loading import read_result
from pfungst.stress.stress_config import StressConfig
from pfungst.stress.stress_result import StressResult
from pfungst.stress.suite import stress

for _function in (audit, stress, reliance):
    _function.__name__ = f"pfungst.{_function.__name__}"
del _function

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
