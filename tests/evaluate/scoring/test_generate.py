"""Generate-then-parse scoring with a scripted model."""

from __future__ import annotations

import pytest

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import get_format
from pfungst.evaluate.scoring import score
from pfungst.evaluate.scoring.generate import GenerateRule
from pfungst.models.requests import GenerateRequest
from tests.evaluate.fakes import ScriptedModel

ITEM = Item(id="q1", text="Capital of France?", options=("Rome", "Paris", "Oslo"), gold=1)
ARRANGED = ArrangedItem(ITEM, (2, 1, 0))  # Oslo, Paris, Rome
RENDERED = get_format("mmlu").render(ARRANGED)


def test_requests_one_generation_after_the_full_prompt() -> None:
    rule = GenerateRule(max_tokens=8, stop=["\n\n"])  # type: ignore[arg-type]
    assert rule.requests(ARRANGED, RENDERED) == (GenerateRequest(RENDERED.text, 8, ("\n\n",), 0.0, 0),)


@pytest.mark.parametrize(("text", "original"), [(" C", 0), (" The answer is A.", 2), (" Paris", 1)])
def test_the_parsed_answer_maps_back_to_the_original_option(text: str, original: int) -> None:
    (decision,) = score(ScriptedModel(generate_script=lambda prompt: text), GenerateRule(), [(ARRANGED, RENDERED)])
    assert decision.status == "ok"
    assert decision.original == original
    assert decision.text == text
    assert decision.original_scores[original] == 1.0
    assert sum(decision.scores) == 1.0


@pytest.mark.parametrize(("text", "status"), [("I'm sorry, I cannot answer.", "refused"), ("Hmm.", "unparseable")])
def test_refused_and_unparseable_answers_choose_nothing(text: str, status: str) -> None:
    (decision,) = score(ScriptedModel(generate_script=lambda prompt: text), GenerateRule(), [(ARRANGED, RENDERED)])
    assert (decision.status, decision.position, decision.original, decision.answered) == (status, -1, -1, False)
    assert decision.to_dict()["text"] == text


def test_invalid_generation_settings_are_rejected() -> None:
    with pytest.raises(ConfigError, match="max_tokens must be a positive integer"):
        GenerateRule(max_tokens=0)
    with pytest.raises(ConfigError, match="temperature must be >= 0"):
        GenerateRule(temperature=-1.0)
