"""Scoring rules: how a model's probabilities or generated text become a chosen option.

:data:`SCORING_RULES` maps each name to a lazy ``"module:Class"`` (STYLE rule 16); :func:`get_scoring_rule`
resolves one, checking the name and parameters before any model call.
"""

from __future__ import annotations

import importlib
from typing import Any

from pfungst.errors import ConfigError, unknown_name_message
from pfungst.evaluate.scoring.base import Decision, ScoringRule, Status
from pfungst.evaluate.scoring.execution import answer_requests, score

__all__ = ["SCORING_RULES", "Decision", "ScoringRule", "Status", "answer_requests", "get_scoring_rule", "score"]

SCORING_RULES: dict[str, str] = {
    "letter": "pfungst.evaluate.scoring.letter:LetterRule",
    "cloze-raw": "pfungst.evaluate.scoring.cloze:ClozeRawRule",
    "cloze-token": "pfungst.evaluate.scoring.cloze:ClozeTokenRule",
    "cloze-byte": "pfungst.evaluate.scoring.cloze:ClozeByteRule",
    "pmi": "pfungst.evaluate.scoring.pmi:PMIRule",
    "generate": "pfungst.evaluate.scoring.generate:GenerateRule",
}
"""Scoring rule name -> ``"module:Class"``."""


def get_scoring_rule(name: str, **params: Any) -> ScoringRule:
    """The scoring rule called ``name``, built with ``params``.

    Raises:
        ConfigError: an unknown name (the message lists close matches) or parameter.

    Example:
        >>> get_scoring_rule("cloze-byte").name
        'cloze-byte'
    """
    if name not in SCORING_RULES:
        raise ConfigError(unknown_name_message("scoring rule", name, SCORING_RULES))
    module_name, class_name = SCORING_RULES[name].split(":")
    rule_class = getattr(importlib.import_module(module_name), class_name)
    try:
        rule: ScoringRule = rule_class(**params)
    except TypeError as exc:
        raise ConfigError(f"scoring rule '{name}' does not take the parameters {sorted(params)}: {exc}") from exc
    return rule
