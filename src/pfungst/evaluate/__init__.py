"""The evaluation engine every model run uses: prompt formats, scoring rules, arrangements and variants, the
planner / de-duplicator / asker, and the :class:`Outcome` record of each question.

``score(benchmark, model)`` (:func:`score_benchmark`, ``pfungst.score``) is the engine's identity-only run; the
stress suite (:mod:`pfungst.stress`) drives the same engine with perturbations. Nothing here imports the stress suite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.lazy import lazy_exports

if TYPE_CHECKING:
    from pfungst.evaluate.arrangement import ArrangedItem
    from pfungst.evaluate.engine import Cell, ask
    from pfungst.evaluate.formats import BUILTIN_FORMATS, FormatGrammar, PromptFormat, RenderedPrompt, get_format
    from pfungst.evaluate.outcome import Outcome
    from pfungst.evaluate.run_config import RunConfig, default_cache_path
    from pfungst.evaluate.runner import ScoreConfig, score_benchmark
    from pfungst.evaluate.score_result import ScoreCounts, ScoreResult
    from pfungst.evaluate.scoring import SCORING_RULES, Decision, ScoringRule, get_scoring_rule
    from pfungst.evaluate.variants import Presentation, Variant

__all__ = [
    "BUILTIN_FORMATS",
    "SCORING_RULES",
    "ArrangedItem",
    "Cell",
    "Decision",
    "FormatGrammar",
    "Outcome",
    "Presentation",
    "PromptFormat",
    "RenderedPrompt",
    "RunConfig",
    "ScoreConfig",
    "ScoreCounts",
    "ScoreResult",
    "ScoringRule",
    "Variant",
    "ask",
    "default_cache_path",
    "get_format",
    "get_scoring_rule",
    "score_benchmark",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ArrangedItem": "pfungst.evaluate.arrangement",
        "Cell": "pfungst.evaluate.engine",
        "ask": "pfungst.evaluate.engine",
        "BUILTIN_FORMATS": "pfungst.evaluate.formats",
        "FormatGrammar": "pfungst.evaluate.formats",
        "PromptFormat": "pfungst.evaluate.formats",
        "RenderedPrompt": "pfungst.evaluate.formats",
        "get_format": "pfungst.evaluate.formats",
        "Outcome": "pfungst.evaluate.outcome",
        "ScoreConfig": "pfungst.evaluate.runner",
        "default_cache_path": "pfungst.evaluate.run_config",
        "RunConfig": "pfungst.evaluate.run_config",
        "score_benchmark": "pfungst.evaluate.runner",
        "ScoreCounts": "pfungst.evaluate.score_result",
        "ScoreResult": "pfungst.evaluate.score_result",
        "SCORING_RULES": "pfungst.evaluate.scoring",
        "Decision": "pfungst.evaluate.scoring",
        "ScoringRule": "pfungst.evaluate.scoring",
        "get_scoring_rule": "pfungst.evaluate.scoring",
        "Presentation": "pfungst.evaluate.variants",
        "Variant": "pfungst.evaluate.variants",
    },
    globals(),
)
