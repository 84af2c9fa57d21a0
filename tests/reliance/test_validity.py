"""The item validity screen on planted data: a wrong key that simulated models agree on must rank first."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from pfungst.errors import ConfigError, DataError
from pfungst.reliance import read_outcomes
from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes
from pfungst.reliance.validity import ValidityConfig, ValidityResult, poisson_binomial_upper_tail, validity
from pfungst.report.loading import read_result

LABELS = ("A", "B", "C", "D")
WRONG_KEY, IMPOSSIBLE = "q7", "q11"


def _simulate(
    seed: int, *, n_models: int = 14, n_items: int = 150, planted: float = -2.5, probabilities: bool = False
) -> list[ModelOutcomes]:
    """Models of spread ability answer 4-option items, knowing the answer with 2PL probability or else picking a
    wrong option at random; item q7 is keyed wrong (the models that know pick the true answer) and item q11 is
    beyond every model. ``planted`` is q7's difficulty: low, every model knows it; near 0, only the strong ones."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n_items)
    keys = truth.copy()
    keys[7] = (truth[7] + 1) % 4
    difficulty = rng.normal(0, 1, n_items)
    difficulty[7], difficulty[11] = planted, 50.0
    ability = np.linspace(-1, 2, n_models)
    found = []
    for m in range(n_models):
        answers, correct = {}, {}
        for i in range(n_items):
            knows = rng.random() < 1 / (1 + math.exp(-(ability[m] - difficulty[i])))
            choice = truth[i] if knows else rng.choice([c for c in range(4) if c != truth[i]])
            probs = {}
            if probabilities:
                share = np.full(4, 0.3 / 3)
                share[choice] = 0.7
                probs = dict(zip(LABELS, share.tolist(), strict=True))
            answers[f"q{i}"] = ItemAnswer(LABELS[choice], LABELS[keys[i]], f"question {i}?", probs)
            correct[f"q{i}"] = bool(choice == keys[i])
        found.append(ModelOutcomes(f"model-{m}", "planted", correct, "sim", "csv", answers=answers))
    return found


def test_planted_wrong_key_ranks_first_with_the_true_answer(seed: int) -> None:
    result = validity(_simulate(seed))
    (screen,) = result.datasets
    top = screen.items[0]
    assert (top.item_id, top.rank, top.suspected) == (WRONG_KEY, 1, True)
    assert top.agreed_answer != top.key and top.n_agreed > top.n_models / 2
    assert top.wrong_key.pvalue < 1e-4 and top.wrong_key.baseline < 0.3
    assert screen.n_suspected <= 3  # the planted key, and at most two hard items that random guesses agree on


def test_items_no_model_gets_right_are_listed(seed: int) -> None:
    (screen,) = validity(_simulate(seed), ValidityConfig(irt=False)).datasets
    assert IMPOSSIBLE in screen.no_model_right
    assert all(item.n_correct > 0 for item in screen.items if item.item_id not in screen.no_model_right)


def test_irt_and_item_rest_mark_the_wrong_key(seed: int) -> None:
    (screen,) = validity(_simulate(seed, n_models=30, planted=-0.5)).datasets
    by_id = {item.item_id: item for item in screen.items}
    assert by_id[WRONG_KEY].item_rest < 0  # the stronger the model, the more it misses the (wrong) key
    assert by_id[WRONG_KEY].rank == 1
    fitted = [item for item in screen.items if not math.isnan(item.difficulty)]
    assert len(fitted) > 100 and "twopl_jml" in screen.irt_note
    # harder planted items get higher difficulty: rank correlation with the share of models wrong
    share_wrong = [1 - item.n_correct / item.n_models for item in fitted]
    assert stats.spearmanr([item.difficulty for item in fitted], share_wrong).statistic > 0.8


def test_cleanlab_flags_the_wrong_key_where_models_give_probabilities(seed: int) -> None:
    (screen,) = validity(_simulate(seed, probabilities=True)).datasets
    by_id = {item.item_id: item for item in screen.items}
    assert by_id[WRONG_KEY].label_issue
    qualities = sorted(item.label_quality for item in screen.items)
    assert by_id[WRONG_KEY].label_quality <= qualities[2]
    assert "cleanlab" in screen.label_issue_note


def test_without_probabilities_cleanlab_scores_nothing(seed: int) -> None:
    (screen,) = validity(_simulate(seed), ValidityConfig(irt=False)).datasets
    assert all(math.isnan(item.label_quality) for item in screen.items)
    assert screen.label_issue_note.startswith("no model gave option probabilities")


def test_poisson_binomial_tail_matches_the_binomial_for_equal_rates() -> None:
    rates = np.full(10, 0.2)
    assert poisson_binomial_upper_tail(rates, 6) == pytest.approx(stats.binom.sf(5, 10, 0.2))
    assert poisson_binomial_upper_tail(rates, 0) == pytest.approx(1.0)


def test_result_round_trips_through_json(tmp_path: Path, seed: int) -> None:
    result = validity(_simulate(seed), ValidityConfig(irt=False))
    path = result.save_json(tmp_path / "validity.json")
    again = read_result(path)
    assert isinstance(again, ValidityResult)
    assert again.to_dict()["datasets"] == json.loads(path.read_text())["datasets"]
    assert again.suspected()[0].item_id == WRONG_KEY
    frame = result.to_frame()
    assert list(frame["rank"][:3]) == [1, 2, 3] and frame.loc[0, "item_id"] == WRONG_KEY


def test_bad_settings_and_empty_input_are_user_errors() -> None:
    with pytest.raises(DataError, match="no outcomes"):
        validity([])
    with pytest.raises(ConfigError, match="alpha"):
        validity(_simulate(0, n_models=3, n_items=20), ValidityConfig(alpha=2))


def test_outcomes_without_chosen_answers_warn(seed: int) -> None:
    bare = [ModelOutcomes(o.model, o.dataset, o.correct, o.source, o.format) for o in _simulate(seed)]
    result = validity(bare, ValidityConfig(irt=False))
    assert any("no outcome records the chosen answer" in w for w in result.warnings)
    assert result.datasets[0].n_suspected == 0


def test_csv_with_answer_and_gold_columns_feeds_the_screen(tmp_path: Path) -> None:
    rows = ["model,item_id,correct,answer,gold,text"]
    for m in range(6):
        rows += [f"m{m},bad,0,B,A,Which one?", f"m{m},fine,1,C,C,Easy one?"]
    table = tmp_path / "outcomes.csv"
    table.write_text("\n".join(rows) + "\n")
    outcomes = read_outcomes(table)
    assert outcomes[0].answers["bad"] == ItemAnswer("B", "A", "Which one?")
    top = validity(outcomes, ValidityConfig(irt=False)).datasets[0].items[0]
    assert (top.item_id, top.text, top.key, top.agreed_answer, top.n_agreed) == ("bad", "Which one?", "A", "B", 6)


def test_real_neubaroco_logs_rank_the_belief_bias_items_first(shared_data: Path) -> None:
    result = validity(read_outcomes(shared_data / "pacchiardi" / "neubaroco"), ValidityConfig(irt=False))
    (screen,) = result.datasets
    assert (screen.n_items, len(screen.models)) == (371, 14)
    top = screen.items[0]
    assert top.suspected and top.text.startswith("Premises:") and top.agreed_answer == "contradiction"


def test_readers_keep_the_chosen_answer_for_the_screen(tmp_path: Path) -> None:
    events: list[dict] = [{"spec": {"completion_fns": ["m"], "base_eval": "task", "run_id": "r"}}]
    for number, (sampled, expected) in enumerate((("No.", "Yes"), ("no", "No"))):
        prompt = [{"role": "user", "content": f"Q{number}?"}]
        events.append(
            {"sample_id": f"t.{number}", "type": "sampling", "data": {"prompt": prompt, "sampled": [sampled]}}
        )
        events.append({"sample_id": f"t.{number}", "type": "match", "data": {"expected": expected, "correct": False}})
    log = tmp_path / "evals" / "m.jsonl"
    log.parent.mkdir()
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    (evals,) = read_outcomes(log)
    assert evals.answers["t.0"] == ItemAnswer("no", "yes", "Q0?")

    line = {
        "doc_id": 0,
        "doc": {"question": "Which?"},
        "target": 1,
        "arguments": [],
        "filter": "none",
        "resps": [],
        "filtered_resps": [["-0.1", True], ["-2.0", False], ["-3.0", False]],
        "acc": 0.0,
    }
    samples = tmp_path / "m" / "samples_task_2024-05-01T12-00-00.jsonl"
    samples.parent.mkdir()
    samples.write_text(json.dumps(line) + "\n")
    (lm_eval,) = read_outcomes(samples)
    answer = lm_eval.answers["0"]
    assert (answer.chosen, answer.gold, answer.text) == ("A", "B", "Which?")
    assert sum(answer.probabilities.values()) == pytest.approx(1.0) and answer.probabilities["A"] > 0.8

    score = {"item_id": "a", "gold": 2, "chosen": 0, "correct": False, "scores": [0, -1, -2], "status": "ok"}
    lines = tmp_path / "smollm2.jsonl"
    lines.write_text(json.dumps(score) + "\n")
    (scored,) = read_outcomes(lines)
    assert scored.answers["a"] == ItemAnswer("A", "C")


def _stress_lines(outcomes: ModelOutcomes) -> list[dict]:
    """One model's answers as ``pfungst stress --items`` lines under letter scoring, options shown rotated by the
    item's number, the log of each option's probability as its score."""
    rows = []
    for number, (item_id, answer) in enumerate(outcomes.answers.items()):
        order = [(position + number) % 4 for position in range(4)]
        chosen, gold = LABELS.index(answer.chosen), LABELS.index(answer.gold)
        rows.append(
            {
                "item_id": item_id,
                "perturbation": "identity",
                "variant": "identity",
                "rule": "letter",
                "format": "mmlu",
                "order": order,
                "gold": gold,
                "chosen": chosen,
                "correct": chosen == gold,
                "status": "ok",
                "scores": [math.log(answer.probabilities[LABELS[index]]) for index in order],
            }
        )
    return rows


def test_cleanlab_scores_stress_outcomes_from_their_letter_scores(seed: int, tmp_path: Path) -> None:
    found = []
    for outcomes in _simulate(seed, probabilities=True):
        path = tmp_path / f"{outcomes.model}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in _stress_lines(outcomes)))
        found += read_outcomes(path, dataset="planted")
    assert found[0].format == "pfungst-stress"
    (screen,) = validity(found, ValidityConfig(irt=False)).datasets
    by_id = {item.item_id: item for item in screen.items}
    assert by_id[WRONG_KEY].label_issue and "cleanlab" in screen.label_issue_note
    assert not any(math.isnan(item.label_quality) for item in screen.items)


def _lure_and_wrong_key(seed: int) -> list[ModelOutcomes]:
    """12 models, 3 labels, 120 items of spread difficulty; items 0-5 are built to make models fail (the four
    strongest keep the key, the others all take one lure), items 6-8 are keyed wrong (the four strongest choose the
    true answer, the weaker ones split between it and the key)."""
    rng = np.random.default_rng(seed)
    labels = ("yes", "no", "maybe")
    ability = np.linspace(-1.0, 2.5, 12)
    n_items, found = 120, []
    truth = rng.integers(0, 3, n_items)
    difficulty = rng.normal(0, 1, n_items)
    for m in range(12):
        answers, correct = {}, {}
        strong = m >= 8
        for i in range(n_items):
            key, lure = int(truth[i]), int((truth[i] + 1) % 3)
            if i < 6:
                choice = key if strong else lure
            elif i < 9:
                key = int((truth[i] + 2) % 3)  # the true answer stays truth[i]; the key is wrong
                choice = int(truth[i]) if strong or rng.random() < 0.5 else key
            else:
                knows = rng.random() < 1 / (1 + math.exp(-(ability[m] - difficulty[i])))
                choice = int(truth[i]) if knows else int(rng.choice([c for c in range(3) if c != truth[i]]))
            answers[f"q{i}"] = ItemAnswer(labels[choice], labels[key], f"question {i}?")
            correct[f"q{i}"] = choice == key
        found.append(ModelOutcomes(f"model-{m}", "lures", correct, "sim", "csv", answers=answers))
    return found


def test_keys_the_strongest_models_reject_rank_above_items_built_to_make_models_fail(seed: int) -> None:
    (screen,) = validity(_lure_and_wrong_key(seed), ValidityConfig(irt=False)).datasets
    rank = {item.item_id: item for item in screen.items}
    wrong_keys, lures = [rank[f"q{i}"] for i in (6, 7, 8)], [rank[f"q{i}"] for i in range(6)]
    assert max(item.rank for item in wrong_keys) < min(item.rank for item in lures)
    assert all(item.strength_log_odds > 0 for item in wrong_keys)
    assert all(item.strength_log_odds < 0 and not item.suspected for item in lures)
    assert all(item.n_agreed == 8 and item.qvalue < 0.05 for item in lures)  # agreement alone would flag them


def test_real_neubaroco_planted_keys_rank_above_items_the_strongest_models_keep(shared_data: Path, seed: int) -> None:
    """Keys changed on 10 items that the 4 strongest of 14 real models answered right: every such key ranks above
    every item whose key the 2 strongest models chose (the items the dataset built to make weaker models fail)."""
    outcomes = read_outcomes(shared_data / "pacchiardi" / "neubaroco")
    strongest = sorted(outcomes, key=lambda o: o.accuracy, reverse=True)
    labels = ("contradiction", "entailment", "neutral")
    pool = sorted(k for k in strongest[0].answers if all(o.correct.get(k) for o in strongest[:4]))
    rng = np.random.default_rng(seed)
    planted = {
        k: rng.choice([x for x in labels if x != strongest[0].answers[k].gold])
        for k in rng.choice(pool, 10, replace=False)
    }

    def rekeyed(o: ModelOutcomes) -> ModelOutcomes:
        answers = {k: replace(a, gold=str(planted.get(k, a.gold))) for k, a in o.answers.items()}
        return replace(o, answers=answers, correct={k: answers[k].chosen == answers[k].gold for k in o.correct})

    (screen,) = validity([rekeyed(o) for o in outcomes], ValidityConfig(irt=False)).datasets
    kept = {k for k in strongest[0].answers if k not in planted and all(o.correct.get(k) for o in strongest[:2])}
    last_planted = max(item.rank for item in screen.items if item.item_id in planted)
    above = [item.item_id for item in screen.items if item.item_id in kept and item.rank < last_planted]
    assert above == []


def test_one_models_outcomes_given_twice_are_refused(seed: int) -> None:
    models = _simulate(seed, n_models=6, n_items=30)
    with pytest.raises(DataError, match=r"model-0.*same as those read from sim.*Pass each once"):
        validity([*models, models[0]], ValidityConfig(irt=False))
    copy = replace(models[1], source="copy.csv")
    with pytest.raises(DataError, match=r"copy\.csv: the outcomes of 'model-1'"):
        validity([*models, copy], ValidityConfig(irt=False))
