"""The evaluation engine every model run uses: prompt formats, scoring rules, arrangements and variants, the
planner / de-duplicator / asker, and the :class:`Outcome` record of each question.

:class:`RunConfig` holds the settings every model run shares; the stress suite (:mod:`pfungst.stress`) drives the
engine with perturbations, and ``pfungst.score`` is its run with ``identity`` alone. Nothing here imports the stress
suite.
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
    "ScoreCounts",
    "ScoreResult",
    "ScoringRule",
    "Variant",
    "ask",
    "default_cache_path",
    "get_format",
    "get_scoring_rule",
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
        "default_cache_path": "pfungst.evaluate.run_config",
        "RunConfig": "pfungst.evaluate.run_config",
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
