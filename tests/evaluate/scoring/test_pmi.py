"""PMI scoring with a scripted model: the cue-only term is subtracted."""

from __future__ import annotations

import pytest

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import PromptFormat, get_format
from pfungst.evaluate.scoring import score
from pfungst.evaluate.scoring.cloze import ClozeRawRule
from pfungst.evaluate.scoring.pmi import PMIRule
from pfungst.models.requests import LoglikelihoodRequest
from tests.evaluate.fakes import ScriptedModel

ITEM = Item(id="q1", text="What do bees make?", options=("the", "honey", "wax"), gold=1)
ARRANGED = ArrangedItem(ITEM, (2, 0, 1))  # wax, the, honey
RENDERED = get_format("mmlu").render(ARRANGED)
CONDITIONAL = {" wax": -4.0, " the": -2.0, " honey": -3.0}
UNCONDITIONAL = {" wax": -6.0, " the": -1.0, " honey": -8.0}


def _script(context: str, continuation: str) -> float:
    return UNCONDITIONAL[continuation] if context == "Answer:" else CONDITIONAL[continuation]


def test_requests_conditional_terms_then_cue_only_terms() -> None:
    requests = PMIRule().requests(ARRANGED, RENDERED)
    context = "What do bees make?\nAnswer:"
    assert requests[:3] == tuple(LoglikelihoodRequest(context, c) for c in (" wax", " the", " honey"))
    assert requests[3:] == tuple(LoglikelihoodRequest("Answer:", c) for c in (" wax", " the", " honey"))


def test_subtracting_the_cue_only_term_changes_the_choice() -> None:
    model = ScriptedModel(loglikelihood_script=_script)
    (cloze,) = score(model, ClozeRawRule(), [(ARRANGED, RENDERED)])
    (pmi,) = score(model, PMIRule(), [(ARRANGED, RENDERED)])
    assert ITEM.options[cloze.original] == "the"  # a likely string, not an answer
    assert ITEM.options[pmi.original] == "honey"
    assert pmi.position == 2
    assert pmi.scores == (2.0, -1.0, 5.0)


def test_unconditional_context_follows_the_format_casing() -> None:
    rendered = PromptFormat(casing="upper").render(ARRANGED)
    assert {r.context for r in PMIRule().requests(ARRANGED, rendered)[3:]} == {"ANSWER:"}


def test_a_format_without_a_cue_cannot_be_scored_by_pmi() -> None:
    rendered = PromptFormat(cue="").render(ARRANGED)
    with pytest.raises(ConfigError, match="PMI scoring needs an answer cue"):
        PMIRule().requests(ARRANGED, rendered)


def test_shared_unconditional_requests_are_asked_once_across_items() -> None:
    other = ArrangedItem(Item(id="q2", text="What do cows make?", options=("the", "honey", "wax"), gold=0), (0, 1, 2))
    model = ScriptedModel(loglikelihood_script=lambda context, continuation: -1.0)
    score(model, PMIRule(), [(ARRANGED, RENDERED), (other, get_format("mmlu").render(other))])
    ((kind, asked),) = model.batches
    assert kind == "loglikelihood"
    assert len(asked) == 3 + 3 + 3  # two conditional sets, one shared cue-only set
