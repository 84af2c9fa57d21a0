"""Scoring rules: how a model's probabilities or generated text become a chosen option.

:data:`SCORING_RULES` maps each name to a lazy ``"module:Class"`` (STYLE rule 16); :func:`get_scoring_rule`
resolves one, checking the name and parameters before any model call. An installed package adds a rule with an
entry point in the group ``pfungst.scoring_rules`` naming a class that satisfies :class:`ScoringRule` (built with
the rule's keyword parameters, none by default).
"""

from __future__ import annotations

from typing import Any

from pfungst.errors import ConfigError
from pfungst.evaluate.scoring.base import Decision, ScoringRule, Status
from pfungst.evaluate.scoring.execution import answer_requests, score
from pfungst.registry import Registry

__all__ = ["SCORING_RULES", "Decision", "ScoringRule", "Status", "answer_requests", "get_scoring_rule", "score"]

SCORING_RULES: Registry[type[ScoringRule]] = Registry(
    "scoring rule",
    {
        "letter": "pfungst.evaluate.scoring.letter:LetterRule",
        "cloze-raw": "pfungst.evaluate.scoring.cloze:ClozeRawRule",
        "cloze-token": "pfungst.evaluate.scoring.cloze:ClozeTokenRule",
        "cloze-byte": "pfungst.evaluate.scoring.cloze:ClozeByteRule",
        "pmi": "pfungst.evaluate.scoring.pmi:PMIRule",
        "generate": "pfungst.evaluate.scoring.generate:GenerateRule",
    },
    group="pfungst.scoring_rules",
)
"""Scoring rule name -> ``"module:Class"``; installed packages add theirs through ``pfungst.scoring_rules``."""


def get_scoring_rule(name: str, **params: Any) -> ScoringRule:
    """The scoring rule called ``name``, built with ``params``.

    Raises:
        ConfigError: an unknown name (the message lists close matches) or parameter.

    Example:
        >>> get_scoring_rule("cloze-byte").name
        'cloze-byte'
    """
    rule_class = SCORING_RULES.resolve(name)
    with SCORING_RULES.plugin_code(name, "construction"):
        try:
            rule: ScoringRule = rule_class(**params)
        except TypeError as exc:
            raise ConfigError(f"scoring rule '{name}' does not take the parameters {sorted(params)}: {exc}") from exc
    return rule
