"""Cloze scoring with a scripted model: contexts, continuations and the three normalisations."""

from __future__ import annotations

import pytest

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import get_format
from pfungst.evaluate.scoring import score
from pfungst.evaluate.scoring.cloze import ClozeByteRule, ClozeRawRule, ClozeRule, ClozeTokenRule, continuation
from pfungst.models.requests import LoglikelihoodRequest
from tests.evaluate.fakes import ScriptedModel, by_continuation

ITEM = Item(id="q1", text="Which animal barks?", options=("a cat", "the domestic dog", "fish"), gold=1)
ARRANGED = ArrangedItem(ITEM, (1, 2, 0))  # shows dog, fish, cat
RENDERED = get_format("mmlu").render(ARRANGED)


def test_requests_score_each_option_after_the_prompt_without_options() -> None:
    assert ClozeRawRule().requests(ARRANGED, RENDERED) == (
        LoglikelihoodRequest("Which animal barks?\nAnswer:", " the domestic dog"),
        LoglikelihoodRequest("Which animal barks?\nAnswer:", " fish"),
        LoglikelihoodRequest("Which animal barks?\nAnswer:", " a cat"),
    )


def test_with_options_scores_after_the_full_prompt() -> None:
    (first, *_) = ClozeRule(with_options=True).requests(ARRANGED, RENDERED)
    assert first.context == RENDERED.text


def test_no_leading_space_after_a_chat_template() -> None:
    rendered = get_format("chatml-letter").render(ARRANGED)
    (first, *_) = ClozeRawRule().requests(ARRANGED, rendered)
    assert first.context.endswith("<|im_start|>assistant\n")
    assert first.continuation == "the domestic dog"
    assert continuation("Answer:", "dog") == " dog"


def test_chooses_the_most_likely_option_and_maps_it_back() -> None:
    model = ScriptedModel(loglikelihood_script=by_continuation({"the domestic dog": -3.0, "fish": -6.0, "a cat": -5.0}))
    (decision,) = score(model, ClozeRawRule(), [(ARRANGED, RENDERED)])
    assert (decision.position, decision.original) == (0, 1)
    assert decision.scores == (-3.0, -6.0, -5.0)
    assert decision.original_scores == (-5.0, -3.0, -6.0)


# A long option with a low total but a high per-byte likelihood; a short option with few tokens.
#   "the domestic dog": -8.0 over 4 tokens, 16 bytes -> raw -8.0, per token -2.00, per byte -0.50
#   "fish":             -4.0 over 1 token,   4 bytes -> raw -4.0, per token -4.00, per byte -1.00
#   "a cat":            -3.0 over 1 token,   5 bytes -> raw -3.0, per token -3.00, per byte -0.60
SCRIPT = {"the domestic dog": (-8.0, 4), "fish": (-4.0, 1), "a cat": (-3.0, 1)}


@pytest.mark.parametrize(
    ("rule", "original", "best_score"),
    [
        (ClozeRawRule(), 0, -3.0),
        (ClozeTokenRule(), 1, -2.0),
        (ClozeByteRule(), 1, -0.5),
    ],
)
def test_normalisation_changes_the_choice(rule: ClozeRule, original: int, best_score: float) -> None:
    (decision,) = score(ScriptedModel(loglikelihood_script=by_continuation(SCRIPT)), rule, [(ARRANGED, RENDERED)])
    assert decision.original == original
    assert max(decision.scores) == pytest.approx(best_score)


def test_per_token_and_per_byte_disagree_when_tokens_are_long() -> None:
    # "fish" as 1 token of 4 bytes vs "a cat" as 4 tokens of 5 bytes: per token favours "a cat", per byte "fish".
    script = {"the domestic dog": (-30.0, 4), "fish": (-2.0, 1), "a cat": (-4.0, 4)}
    model = ScriptedModel(loglikelihood_script=by_continuation(script))
    (by_token,) = score(model, ClozeTokenRule(), [(ARRANGED, RENDERED)])
    (by_byte,) = score(model, ClozeByteRule(), [(ARRANGED, RENDERED)])
    assert ITEM.options[by_token.original] == "a cat"
    assert ITEM.options[by_byte.original] == "fish"


def test_byte_normalisation_counts_utf8_bytes_of_the_option_without_the_space() -> None:
    item = Item(id="q", text="?", options=("café", "cafe"), gold=0)
    arranged = ArrangedItem.identity(item)
    model = ScriptedModel(loglikelihood_script=lambda context, cont: -10.0)
    (decision,) = score(model, ClozeByteRule(), [(arranged, get_format("mmlu").render(arranged))])
    assert decision.scores == (pytest.approx(-10.0 / 5), pytest.approx(-10.0 / 4))


def test_rule_names_follow_the_normalisation() -> None:
    assert [r.name for r in (ClozeRawRule(), ClozeTokenRule(), ClozeByteRule())] == [
        "cloze-raw",
        "cloze-token",
        "cloze-byte",
    ]
    with pytest.raises(ConfigError, match="normalization 'chars' is not one of"):
        ClozeRule(normalization="chars")  # type: ignore[arg-type]


def test_an_empty_option_cannot_be_scored() -> None:
    arranged = ArrangedItem.identity(Item(id="q9", text="?", options=("x", ""), gold=0))
    with pytest.raises(ConfigError, match="item 'q9' has an empty option"):
        ClozeRawRule().requests(arranged, get_format("mmlu").render(arranged))
