"""The scoring-rule registry and a contract every rule meets (STYLE rule 33)."""

from __future__ import annotations

import pytest

from pfungst.data.item import Item
from pfungst.errors import ConfigError, ResponseInvalid
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats import get_format
from pfungst.evaluate.scoring import SCORING_RULES, ScoringRule, get_scoring_rule, score
from pfungst.models.requests import Generation
from tests.evaluate.fakes import ScriptedModel

ITEM = Item(id="q1", text="Capital of France?", options=("Rome", "Paris", "Oslo", "Bern"), gold=1)
ARRANGED = ArrangedItem(ITEM, (3, 2, 1, 0))  # Paris shown third, as C


def _prefers_paris() -> ScriptedModel:
    return ScriptedModel(
        loglikelihood_script=lambda context, continuation: (
            -3.0 if context == "Answer:" else -1.0 if "Paris" in continuation else -4.0
        ),
        next_token_script=lambda context, candidate: -0.5 if candidate.strip() == "C" else -6.0,
        generate_script=lambda prompt: " C. Paris",
    )


def test_registry_names_every_rule() -> None:
    assert set(SCORING_RULES) == {"letter", "cloze-raw", "cloze-token", "cloze-byte", "pmi", "generate"}


@pytest.mark.parametrize("name", sorted(SCORING_RULES))
def test_every_rule_chooses_the_scripted_best_option_through_an_arrangement(name: str) -> None:
    rule = get_scoring_rule(name)
    assert isinstance(rule, ScoringRule)
    assert rule.name == name
    (decision,) = score(_prefers_paris(), rule, [(ARRANGED, get_format("mmlu").render(ARRANGED))])
    assert (decision.status, decision.position, decision.original) == ("ok", 2, 1)
    assert len(decision.scores) == len(decision.original_scores) == 4
    assert decision.original_scores == tuple(decision.scores[ARRANGED.position(i)] for i in range(4))


@pytest.mark.parametrize("name", sorted(SCORING_RULES))
def test_every_rule_plans_hashable_requests_and_rejects_wrong_results(name: str) -> None:
    rule = get_scoring_rule(name)
    rendered = get_format("mmlu").render(ARRANGED)
    requests = rule.requests(ARRANGED, rendered)
    assert requests and len(set(requests)) == len(requests)
    with pytest.raises(ResponseInvalid, match=f"scoring rule '{name}' expected"):
        rule.decide(ARRANGED, rendered, [Generation("x", "stop")] * (len(requests) + 1))


def test_rules_take_their_parameters() -> None:
    assert get_scoring_rule("generate", max_tokens=4).max_tokens == 4  # type: ignore[attr-defined]
    assert get_scoring_rule("pmi", with_options=True).with_options  # type: ignore[attr-defined]


def test_unknown_rule_lists_close_matches() -> None:
    with pytest.raises(ConfigError, match=r"Unknown scoring rule 'pmii'. Did you mean: pmi\? Available: cloze-byte"):
        get_scoring_rule("pmii")


def test_unknown_parameter_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"scoring rule 'letter' does not take the parameters \['normalization'\]"):
        get_scoring_rule("letter", normalization="byte")


def test_a_model_without_a_capability_is_refused_before_asking() -> None:
    model = ScriptedModel(capabilities=frozenset({"next_token", "generate"}))
    with pytest.raises(ConfigError, match="cannot serve loglikelihood requests"):
        score(model, get_scoring_rule("cloze-raw"), [(ARRANGED, get_format("mmlu").render(ARRANGED))])
    assert model.batches == []
