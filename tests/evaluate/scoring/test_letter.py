"""Letter scoring with a scripted model: label probabilities, both spellings, mapping back through an arrangement."""

from __future__ import annotations

import math

import pytest

from pfungst.data.item import Item
from pfungst.errors import ResponseInvalid
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import PromptFormat, get_format
from pfungst.evaluate.scoring import score
from pfungst.evaluate.scoring.letter import LetterRule
from pfungst.models.requests import NextTokenLogprobs, NextTokenRequest
from tests.evaluate.fakes import ScriptedModel

ITEM = Item(id="q1", text="Capital of France?", options=("Rome", "Paris", "Oslo"), gold=1)
ARRANGED = ArrangedItem(ITEM, (2, 0, 1))  # shows Oslo, Rome, Paris as A, B, C


def test_requests_one_next_token_call_over_labels_with_and_without_space() -> None:
    rendered = get_format("mmlu").render(ARRANGED)
    assert LetterRule().requests(ARRANGED, rendered) == (
        NextTokenRequest(rendered.text, ("A", " A", "B", " B", "C", " C")),
    )


def test_chooses_the_most_likely_label_and_maps_it_back_to_the_original_option() -> None:
    model = ScriptedModel(next_token_script=lambda context, candidate: {" C": -0.2, " A": -2.0}.get(candidate, -9.0))
    (decision,) = score(model, LetterRule(), [(ARRANGED, get_format("mmlu").render(ARRANGED))])
    assert decision.position == 2
    assert decision.original == 1  # Paris
    assert decision.original_scores[1] == decision.scores[2]
    assert len(model.batches) == 1


def test_both_spellings_of_a_label_add_up() -> None:
    # "B" alone is each less likely than " A", but "B" + " B" together are more likely.
    scripted = {"A": -9.0, " A": -1.0, "B": -1.5, " B": -1.5, "C": -9.0, " C": -9.0}
    model = ScriptedModel(next_token_script=lambda context, candidate: scripted[candidate])
    (decision,) = score(model, LetterRule(), [(ARRANGED, get_format("mmlu").render(ARRANGED))])
    assert decision.position == 1
    assert decision.scores[1] == pytest.approx(math.log(2 * math.exp(-1.5)))


def test_multi_token_labels_are_scored_as_whole_strings() -> None:
    prompt_format = PromptFormat(label_style=("yes", "no", "maybe"))
    rendered = prompt_format.render(ARRANGED)
    (request,) = LetterRule().requests(ARRANGED, rendered)
    assert request.candidates == ("yes", " yes", "no", " no", "maybe", " maybe")
    model = ScriptedModel(next_token_script=lambda context, candidate: -0.5 if candidate == " maybe" else -5.0)
    (decision,) = score(model, LetterRule(), [(ARRANGED, rendered)])
    assert (decision.position, decision.original) == (2, 1)


def test_a_result_with_the_wrong_number_of_logprobs_is_invalid() -> None:
    rendered = get_format("mmlu").render(ARRANGED)
    with pytest.raises(ResponseInvalid, match="expected 6 candidate log-probabilities, got 2"):
        LetterRule().decide(ARRANGED, rendered, [NextTokenLogprobs((-1.0, -2.0))])


def test_impossible_labels_score_minus_infinity_and_lose() -> None:
    rendered = get_format("mmlu").render(ARRANGED)
    logprobs = (-math.inf, -math.inf, -3.0, -math.inf, -math.inf, -math.inf)
    decision = LetterRule().decide(ARRANGED, rendered, [NextTokenLogprobs(logprobs)])
    assert decision.position == 1
    assert decision.scores[0] == -math.inf
    assert decision.to_dict()["scores"] == [None, -3.0, None]
