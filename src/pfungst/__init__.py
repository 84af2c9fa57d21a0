"""pfungst: catch Clever Hans effects in multiple-choice LLM evaluation.

Load a benchmark, audit it for surface cues, stress a model for order, format and scoring sensitivity, join the
two, report. See the README for the command line and the Python API.
"""

from pfungst import audit, reliance, stress
from pfungst.audit import AuditConfig, AuditResult
from pfungst.data import Benchmark, Item, Provenance, load
from pfungst.data.summary import summarize
from pfungst.errors import ConfigError, DataError, PfungstError, ReaderError
from pfungst.evaluate.runner import ScoreConfig
from pfungst.evaluate.runner import score_benchmark as score
from pfungst.evaluate.score_result import ScoreResult
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
    "ScoreConfig",
    "ScoreResult",
    "StressConfig",
    "StressResult",
    "__version__",
    "audit",
    "load",
    "reliance",
    "score",
    "stress",
    "summarize",
]
