"""Audit a suite of benchmarks in one run: discover them, audit each (resumably), rank them by Clever-Hans risk.

``audit_suite(paths, out_dir)`` returns a :class:`SuiteResult` whose leaderboard ranks the benchmarks by the lower
bound of their content verdict (probes that cannot see option positions), flags gold-position artifacts beside it,
and tests across benchmarks with Benjamini-Hochberg.
"""

from pfungst.audit.suite.cache import SuiteCache, cache_key
from pfungst.audit.suite.entry import SkippedSource, SuiteEntry, TopCue
from pfungst.audit.suite.result import SuiteResult
from pfungst.audit.suite.run import SuiteConfig, audit_suite, check_suite_outputs
from pfungst.audit.suite.sources import Discovery, IgnoredFile, Source, discover, survey

__all__ = [
    "Discovery",
    "IgnoredFile",
    "SkippedSource",
    "Source",
    "SuiteCache",
    "SuiteConfig",
    "SuiteEntry",
    "SuiteResult",
    "TopCue",
    "audit_suite",
    "cache_key",
    "check_suite_outputs",
    "discover",
    "survey",
]
