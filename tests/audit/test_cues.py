"""Cue tables: Niven & Kao's applicability, productivity and coverage; label cues with Fisher tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pfungst import load
from pfungst.audit.cues import GOLD_OPTION, CueConfig, find_cues, tokenize
from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError

LABELS = ("entailment", "neutral", "contradiction")


def _two_option_toy() -> Benchmark:
    items = [
        Item("a", "", ("it is not red", "it is red"), 0),  # "not" applicable, in gold
        Item("b", "", ("they are blue", "they are not blue"), 1),  # applicable, in gold
        Item("c", "", ("not this", "not that"), 0),  # in both options: not applicable
        Item("d", "", ("we do not agree", "we agree"), 1),  # applicable, not in gold
        Item("e", "", ("fine", "good"), 0),  # absent
    ]
    return Benchmark("toy", tuple(items))


def test_two_option_figures_are_niven_and_kao_definitions() -> None:
    table = find_cues(_two_option_toy(), config=CueConfig(min_count=1, top_k=0))
    cue = table.get("not")
    assert (cue.count, cue.hits) == (3, 2)  # alpha = 3 (item c has it in both options)
    assert cue.productivity == pytest.approx(2 / 3)
    assert cue.coverage == pytest.approx(3 / 5)
    assert cue.base_rate == pytest.approx(0.5)
    assert cue.label == GOLD_OPTION


def test_cue_in_every_option_is_not_applicable_and_base_rate_is_share_of_options() -> None:
    items = [
        Item("a", "", ("x not", "y", "z"), 0),  # in 1 of 3: chance 1/3, in gold
        Item("b", "", ("x not", "y not", "z"), 2),  # in 2 of 3: chance 2/3, not in gold
        Item("c", "", ("not", "not", "not"), 1),  # in all: not applicable
    ]
    cue = find_cues(Benchmark("three", tuple(items)), config=CueConfig(min_count=1, top_k=0)).get("not")
    assert (cue.count, cue.hits) == (2, 1)
    assert cue.base_rate == pytest.approx((1 / 3 + 2 / 3) / 2)
    assert cue.coverage == pytest.approx(2 / 3)


def test_label_cue_productivity_is_label_share_among_items_with_the_cue() -> None:
    texts = [("no dogs", 2), ("no cats", 2), ("no birds", 0), ("dogs run", 0), ("cats sit", 1), ("birds fly", 1)]
    items = tuple(Item(str(i), t, LABELS, g, fields={"hypothesis": t}) for i, (t, g) in enumerate(texts))
    bench = Benchmark("nli", items, "shared_labels", LABELS)
    table = find_cues(bench, config=CueConfig(min_count=1, top_k=0, ngram_range=(1, 1)))
    cue = table.get("no", "contradiction")
    assert (cue.count, cue.hits) == (3, 2)
    assert cue.productivity == pytest.approx(2 / 3)
    assert cue.coverage == pytest.approx(0.5)
    assert cue.base_rate == pytest.approx(2 / 6)
    # Fisher's one-sided test: P(X >= 2) for 3 draws from 6 items of which 2 are contradiction = 0.2.
    assert cue.pvalue == pytest.approx(0.2)


def test_negations_are_expanded_so_contractions_count_as_not() -> None:
    assert tokenize("It isn't and can't be; we cannot") == [
        "it",
        "is",
        "not",
        "and",
        "ca",
        "not",
        "be",
        "we",
        "can",
        "not",
    ]
    assert "not" not in tokenize("isn't", expand_negations=False)


def test_planted_never_is_the_top_contradiction_cue(seed: int) -> None:
    bench = make_synthetic("cue-word", 600, seed=seed)
    table = find_cues(bench, config=CueConfig(fields=("hypothesis",), top_k=5))
    top = table.cues[0]
    assert (top.cue, top.label) == ("never", "contradiction")
    assert top.productivity > 0.8 and top.qvalue < 1e-6


def test_arct_not_cue_matches_niven_and_kao_on_train(shared_data: Path) -> None:
    train = load(shared_data / "arct" / "train.tsv")
    cue = find_cues(train, config=CueConfig(top_k=0)).get("not")
    # Niven & Kao report coverage 0.64 and productivity 0.61; on train we get 0.640 and 0.706.
    assert cue.coverage == pytest.approx(0.64, abs=0.005)
    assert cue.productivity == pytest.approx(0.706, abs=0.005)
    assert cue.qvalue < 1e-20
    assert find_cues(train).cues[0].cue == "not"


def test_mnli_negation_words_are_top_contradiction_cues(shared_data: Path) -> None:
    mnli = load(shared_data / "mnli" / "dev_matched.tsv")
    table = find_cues(mnli, config=CueConfig(fields=("hypothesis",), ngram_range=(1, 1), top_k=0))
    frame = table.to_frame()
    contradiction = frame[frame["label"] == "contradiction"]
    assert set(contradiction["cue"].head(3)) == {"no", "not", "never"}
    nobody = table.get("nobody", "contradiction")
    # "nobody" is rare in MNLI dev-matched (24 hypotheses): nominally significant, not after Benjamini-Hochberg.
    assert nobody.productivity > 1.5 * nobody.base_rate and nobody.pvalue < 0.01


def test_table_exports_ranked_frame_and_json() -> None:
    table = find_cues(make_synthetic("cue-word", 200), config=CueConfig(fields=("hypothesis",), top_k=7))
    frame = table.to_frame()
    assert list(frame.columns) == [
        "cue",
        "label",
        "count",
        "hits",
        "productivity",
        "coverage",
        "base_rate",
        "pvalue",
        "qvalue",
    ]
    assert len(frame) == 7 and frame["pvalue"].is_monotonic_increasing
    data = json.loads(json.dumps(table.to_dict()))
    assert data["kind"] == "shared_labels" and len(data["cues"]) == 7 and data["n_tested"] >= 7


def test_fields_on_per_item_benchmark_warn() -> None:
    with pytest.warns(UserWarning, match="no effect on per-item"):
        find_cues(_two_option_toy(), config=CueConfig(fields=("claim",), min_count=1))


def test_bad_config_is_refused() -> None:
    with pytest.raises(ConfigError, match="ngram_range"):
        CueConfig(ngram_range=(2, 1))
    with pytest.raises(KeyError, match="lower min_count"):
        find_cues(_two_option_toy()).get("not")
