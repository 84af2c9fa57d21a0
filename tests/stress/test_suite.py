"""pfungst.stress end to end on scripted models whose biases are known exactly, and compare() over two of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import pfungst
from pfungst.data import Benchmark, Item
from pfungst.errors import ConfigError, ContextOverflow
from pfungst.evaluate.formats import PromptFormat
from pfungst.stress.comparison import compare
from pfungst.stress.ranks import RankStability
from pfungst.stress.stress_result import StressResult, read_outcomes
from tests.evaluate.fakes import ScriptedModel

# Gold positions of the 20 items: 6 at A, 5 at B, 5 at C, 4 at D.
GOLDS = (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 1, 2)
RSTD_ALL_AT_ONE_POSITION = 43.30127018922193  # population std of recalls (1, 0, 0, 0), x 100
FAST = {"cache": False, "n_bootstrap": 100}


def _benchmark() -> Benchmark:
    items = []
    for i, gold in enumerate(GOLDS):
        options = [f"wrong {i}-{k}" for k in range(4)]
        options[gold] = "right"
        items.append(Item(f"q{i}", f"Question {i}: which one is right?", tuple(options), gold))
    return Benchmark("toy", tuple(items))


def _labelled_right(context: str, label: str) -> bool:
    """Whether the prompt shows the option 'right' under ``label`` (mmlu format: 'B. right' on its own line)."""
    return f"\n{label}. right\n" in context


def _prefers_a(context: str, candidate: str) -> float:
    """Next-token script: label A is far likelier than any other; knowing the answer adds a little, never enough."""
    label = candidate.strip()
    return (-0.2 if label == "A" else -4.0) + (1.0 if _labelled_right(context, label) else 0.0)


def _knows_the_answer(context: str, candidate: str) -> float:
    """Next-token script: the label shown next to 'right' is the likeliest, wherever it is."""
    return -0.1 if _labelled_right(context, candidate.strip()) else -5.0


def _a_lover() -> ScriptedModel:
    return ScriptedModel(next_token_script=_prefers_a)


@pytest.fixture(scope="module")
def result() -> StressResult:
    """The A-lover stressed with every arrangement perturbation and PriDe on 10% of the items (K = 2)."""
    return pfungst.stress.stress(
        _benchmark(),
        _a_lover(),
        perturbations=("cyclic", "answer-moved", "ids-shuffled", "pride:fraction=0.1"),
        **FAST,
    )


def test_plain_accuracy_is_the_share_of_items_with_gold_at_a(result: StressResult) -> None:
    plain = result.accuracy
    assert plain.value == pytest.approx(6 / 20) and plain.n == 20
    assert plain.baseline == pytest.approx(0.25)
    assert {o.chosen_label for o in result.outcomes if o.perturbation == "identity"} == {"A"}


def test_the_plain_pass_shows_maximal_selection_bias(result: StressResult) -> None:
    bias = result.analysis("selection-bias", "letter, identity, by position")
    assert [recall.value for recall in bias.recalls] == [1.0, 0.0, 0.0, 0.0]
    assert bias.rstd.value == pytest.approx(RSTD_ALL_AT_ONE_POSITION)
    assert bias.predicted == (20, 0, 0, 0)


def test_no_item_survives_every_rotation(result: StressResult) -> None:
    circular = result.analysis("circular", "letter, cyclic rotations")
    assert circular.circular.value == 0.0
    assert circular.plain.value == pytest.approx(6 / 20)
    # Under rotation s the model answers original option s: right on the items whose gold is s.
    assert [result.accuracy_of("cyclic", f"shift {s}").accuracy.value for s in range(4)] == pytest.approx(
        [6 / 20, 5 / 20, 5 / 20, 4 / 20]
    )


def test_moving_the_answer_to_a_is_right_and_anywhere_else_wrong(result: StressResult) -> None:
    moved = result.analysis("answer-moved")
    assert moved.slots == ("A", "B", "C", "D")
    assert [slot.value for slot in moved.per_slot] == [1.0, 0.0, 0.0, 0.0]
    assert (moved.gap.value, moved.worst_case.value) == (1.0, 0.0)
    assert result.accuracy_of("answer-moved", "slot 1").accuracy.value == 1.0


def test_shuffled_ids_show_the_bias_follows_the_label_not_the_position(result: StressResult) -> None:
    by_label = result.analysis("selection-bias", "letter, ids shuffled, by label")
    by_position = result.analysis("selection-bias", "letter, ids shuffled, by position")
    assert by_label.ids == ("A", "B", "C", "D")
    assert [recall.value for recall in by_label.recalls] == [1.0, 0.0, 0.0, 0.0]
    assert by_label.rstd.value == pytest.approx(RSTD_ALL_AT_ONE_POSITION)
    assert by_position.rstd.value < by_label.rstd.value
    shuffled = [o for o in result.outcomes if o.perturbation == "ids-shuffled"]
    assert {o.chosen_label for o in shuffled} == {"A"}
    assert any(o.chosen_position != 0 for o in shuffled)


def test_pride_removes_the_label_prior_at_the_cost_computed_by_hand(result: StressResult) -> None:
    debiased = result.analysis("pride")
    n_items, k, n_options = 20, 2, 4  # K = round(10% of 20)
    assert len(debiased.estimation_items) == k
    assert debiased.plain.value == pytest.approx(6 / 20)
    assert debiased.debiased.value == 1.0  # the prior is the whole bias; the answer knowledge remains
    assert debiased.prior.by_n_options[4][0] > 0.9
    expected_ratio = (k * n_options + (n_items - k)) / n_items
    assert debiased.cost_ratio == pytest.approx(expected_ratio) == pytest.approx(1.3)
    costs = {cost.perturbation: cost for cost in result.costs}
    assert costs["pride"].passes_ratio == pytest.approx(expected_ratio)
    assert result.accuracy_of("pride", "debiased").accuracy.value == 1.0


def test_costs_count_passes_over_one_plain_pass(result: StressResult) -> None:
    costs = {cost.perturbation: cost for cost in result.costs}
    assert costs["identity"].passes_ratio == 1.0
    assert costs["cyclic"].passes_ratio == 4 and costs["cyclic"].questions == 80
    assert costs["answer-moved"].passes_ratio == 4
    assert costs["ids-shuffled"].passes_ratio == 1
    # Shift 0 repeats the identity question and answer-moved repeats rotations: 20 + 60 + ... distinct requests.
    assert result.counts.unique_requests < result.counts.requests


def test_the_summary_is_strict_json_with_schema_and_settings(result: StressResult) -> None:
    text = json.dumps(result.to_dict(items=True), allow_nan=False)
    summary = json.loads(text)
    assert summary["schema_version"] == "pfungst.stress/2" and summary["n_items"] == 20
    assert summary["provenance"]["settings"]["perturbations"] == [
        {"name": "identity", "params": {}},
        {"name": "cyclic", "params": {}},
        {"name": "answer-moved", "params": {}},
        {"name": "ids-shuffled", "params": {}},
        {"name": "pride", "params": {"fraction": 0.1}},
    ]
    assert summary["model"] == "scripted" and summary["provenance"]["seed"] == 0
    assert len(summary["outcomes"]) == len(result.outcomes)


def test_per_item_outcomes_round_trip_through_jsonl(result: StressResult, tmp_path: Path) -> None:
    path = result.save_items(tmp_path / "outcomes.jsonl")
    assert len(path.read_text().splitlines()) == len(result.outcomes) == 20 * (1 + 4 + 4 + 1)
    assert read_outcomes(path) == result.outcomes


def test_pride_without_cyclic_asks_rotations_of_the_estimation_items_only() -> None:
    alone = pfungst.stress.stress(_benchmark(), _a_lover(), perturbations=("pride:fraction=0.1",), **FAST)
    estimates = [o for o in alone.outcomes if o.perturbation == "pride-estimate"]
    assert len(estimates) == 2 * 4 and {o.item_id for o in estimates} == set(alone.analysis("pride").estimation_items)
    assert alone.analysis("pride").debiased.value == 1.0
    assert {cost.perturbation: cost.passes_ratio for cost in alone.costs}["pride"] == pytest.approx(1.3)


def test_each_analysis_is_named_once_when_the_main_rule_is_also_compared() -> None:
    both = pfungst.stress.stress(
        _benchmark(), _a_lover(), perturbations=("rules",), rules=("letter", "cloze-raw"), **FAST
    )
    keys = [(a.name, a.subject) for a in both.analyses]
    assert len(keys) == len(set(keys)), keys
    assert both.analysis("selection-bias", "letter, rules, by position").rstd.value == pytest.approx(
        RSTD_ALL_AT_ONE_POSITION
    )
    assert both.analysis("selection-bias", "cloze-raw, rules, by position").n_unanswered == 0


def _ask(seed: int, **settings: Any) -> StressResult:
    return pfungst.stress.stress(
        _benchmark(), _a_lover(), perturbations=("ids-shuffled",), seed=seed, **FAST, **settings
    )


def test_the_same_seed_gives_the_same_outcomes_and_another_seed_other_choices(seed: int) -> None:
    first, again, other = _ask(seed, sample=8), _ask(seed, sample=8), _ask(seed + 1, sample=8)
    assert first.outcomes == again.outcomes
    assert first.to_dict()["analyses"] == again.to_dict()["analyses"]
    assert {o.item_id for o in first.outcomes} != {o.item_id for o in other.outcomes}
    labels = [o.labels for o in _ask(seed).outcomes if o.perturbation == "ids-shuffled"]
    assert labels != [o.labels for o in _ask(seed + 1).outcomes if o.perturbation == "ids-shuffled"]


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"perturbations": ("cyclc",)}, r"Unknown perturbation 'cyclc'\. Did you mean: cyclic\?"),
        ({"perturbations": ("pride:fraction=0",)}, r"perturbation 'pride': parameter 'fraction' must be .*got 0"),
        ({"rulez": ("letter",)}, r"unknown stress setting\(s\) \['rulez'\]"),
        ({"rules": ("pmii",)}, r"Unknown scoring rule 'pmii'\. Did you mean: pmi\?"),
        ({"prompt": PromptFormat(label_style=("x", "y", "z"))}, r"item 'q0': 4 options but only 3 custom labels"),
    ],
)
def test_invalid_settings_fail_before_any_model_call(settings: dict[str, Any], message: str) -> None:
    model = _a_lover()
    with pytest.raises(ConfigError, match=message):
        pfungst.stress.stress(_benchmark(), model, cache=False, **settings)
    assert model.batches == []


def test_a_model_without_next_token_fails_before_any_call() -> None:
    model = ScriptedModel(capabilities=frozenset({"loglikelihood"}))
    with pytest.raises(ConfigError, match=r"needs \['next_token'\] requests"):
        pfungst.stress.stress(_benchmark(), model, perturbations=("cyclic",), **FAST)
    assert model.batches == []


def test_generate_as_main_rule_skips_pride_and_top2_with_warnings() -> None:
    model = ScriptedModel(generate_script=lambda prompt: "The answer is A")
    result = pfungst.stress.stress(
        _benchmark(), model, rule="generate", perturbations=("pride", "top2", "cyclic"), **FAST
    )
    assert any(w.startswith("pride (generate) not computed") for w in result.warnings), result.warnings
    assert any(w.startswith("top2 (generate) not computed") for w in result.warnings), result.warnings
    assert {o.perturbation for o in result.outcomes} == {"identity", "cyclic"}
    with pytest.raises(KeyError, match="no analysis 'pride'"):
        result.analysis("pride")
    assert result.analysis("circular").circular.value == 0.0
    assert result.accuracy.value == pytest.approx(6 / 20)
    assert {kind for kind, _ in model.batches} == {"generate"}


class _SmallWindow(ScriptedModel):
    """The knower, with a context window of 400 characters: longer questions overflow, as in llama.cpp."""

    def next_token_logprobs(self, requests: Any) -> Any:
        for request in requests:
            if len(request.context) > 400:
                raise ContextOverflow(f"{len(request.context)} tokens: does not fit the context window of 400.")
        return super().next_token_logprobs(requests)


def _with_a_long_question() -> Benchmark:
    items = list(_benchmark())
    items[3] = Item("long", "Please read carefully. " * 30 + "Which one is right?", items[3].options, items[3].gold)
    return Benchmark("toy", tuple(items))


def test_stress_names_the_item_too_long_for_the_context_window() -> None:
    """Issue 15: a question longer than the context window named no item and aborted the whole stress run."""
    model = _SmallWindow(next_token_script=_knows_the_answer)
    with pytest.raises(ContextOverflow, match=r"item 'long' .*does not fit the context window.*--on-error skip"):
        pfungst.stress.stress(_with_a_long_question(), model, perturbations=("cyclic",), **FAST)


def test_stress_on_error_skip_scores_the_long_question_as_skipped_and_goes_on() -> None:
    model = _SmallWindow(next_token_script=_knows_the_answer)
    result = pfungst.stress.stress(_with_a_long_question(), model, perturbations=("cyclic",), on_error="skip", **FAST)
    skipped = {(o.item_id, o.status) for o in result.outcomes if o.status != "ok"}
    assert skipped == {("long", "skipped")}
    assert sum(o.status == "skipped" for o in result.outcomes) == 5  # identity + 4 rotations
    assert result.accuracy.value == pytest.approx(19 / 20)  # the knower answers all others; skipped counts as wrong
    assert result.analysis("circular").circular.value == pytest.approx(19 / 20)
    assert any(w.startswith("skipped: 5 questions of 1 items") and "'long'" in w for w in result.warnings)
    assert result.provenance.settings["on_error"] == "skip"


@pytest.fixture(scope="module")
def ranks() -> RankStability:
    perturbations = ("cyclic", "answer-moved")
    biased = pfungst.stress.stress(_benchmark(), _a_lover(), perturbations=perturbations, **FAST)
    knowing = pfungst.stress.stress(
        _benchmark(), ScriptedModel(next_token_script=_knows_the_answer), perturbations=perturbations, **FAST
    )
    return compare([biased, knowing], names=["a-lover", "knower"], n_bootstrap=100)


def test_the_model_that_knows_the_answers_leads_except_where_gold_sits_at_a(ranks: RankStability) -> None:
    assert isinstance(ranks, RankStability) and ranks.models == ("a-lover", "knower")
    assert {"identity", "circular", "cyclic: shift 1", "answer-moved: slot 1"} <= set(ranks.variants)
    assert (ranks.rank_of("knower", "identity").rank, ranks.rank_of("a-lover", "identity").rank) == (1.0, 2.0)
    assert ranks.rank_of("knower", "circular").accuracy.value == 1.0
    assert ranks.rank_of("a-lover", "circular").accuracy.value == 0.0
    # With the answer moved to A both are always right: they share places 1 and 2.
    assert ranks.rank_of("a-lover", "answer-moved: slot 1").rank == ranks.rank_of("knower", "answer-moved: slot 1").rank
    assert ranks.rank_of("a-lover", "answer-moved: slot 1").rank == 1.5
    assert abs(ranks.largest_shift.shift) == 0.5
    json.dumps(ranks.to_dict(), allow_nan=False)


def test_compare_needs_two_results_with_distinct_names(result: StressResult) -> None:
    with pytest.raises(ConfigError, match=r"comparing models needs at least two stress results, got 1"):
        compare([result])
    with pytest.raises(ConfigError, match=r"need one distinct name per result; got \['scripted', 'scripted'\]"):
        compare([result, result])
