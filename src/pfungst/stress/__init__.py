"""Stress a model: prompt formats, option arrangements and scoring rules that should not change its answers.

:func:`score_benchmark` (also ``pfungst.score``) scores a benchmark with one rule and one format through the
persistent model cache; the parts it is built from are public too.
"""

from pfungst.stress.arrangement import ArrangedItem
from pfungst.stress.formats import BUILTIN_FORMATS, FormatGrammar, PromptFormat, RenderedPrompt, get_format
from pfungst.stress.runner import ScoreConfig, default_cache_path, score_benchmark
from pfungst.stress.score_result import ItemScore, ScoreCounts, ScoreResult
from pfungst.stress.scoring import SCORING_RULES, Decision, ScoringRule, get_scoring_rule

__all__ = [
    "BUILTIN_FORMATS",
    "SCORING_RULES",
    "ArrangedItem",
    "Decision",
    "FormatGrammar",
    "ItemScore",
    "PromptFormat",
    "RenderedPrompt",
    "ScoreConfig",
    "ScoreCounts",
    "ScoreResult",
    "ScoringRule",
    "default_cache_path",
    "get_format",
    "get_scoring_rule",
    "score_benchmark",
]
