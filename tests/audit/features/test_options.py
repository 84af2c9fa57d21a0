"""Option-level features: lengths, ranks, flags, positions, overlap, negation; never the gold flag."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pfungst.audit.features.options import OptionFeatures, OptionNgramFeatures
from pfungst.audit.inputs import OptionTable
from pfungst.data.benchmark import Benchmark
from pfungst.data.item import Item
from pfungst.data.synthetic import make_synthetic
from pfungst.errors import ConfigError

TOY = Benchmark(
    "toy",
    (
        Item("q1", "Which animal can fly?", ("A bird can fly", "fish", "cats don't", "None of the above"), 0),
        Item("q2", "Pick one", ("same", "also", "both"), 2),
        Item("q3", "", ("yes", "no"), 1),
    ),
)


def _dense(X: np.ndarray) -> np.ndarray:
    return X.toarray() if hasattr(X, "toarray") else X


def _features(table: OptionTable, **params: bool) -> pd.DataFrame:
    features = OptionFeatures(**params).fit(table)
    return pd.DataFrame(features.transform(table), columns=features.get_feature_names_out())


def test_lengths_and_relative_lengths_per_option() -> None:
    row = _features(OptionTable.from_benchmark(TOY), standardize=False).iloc[0]
    assert (row["length_chars"], row["length_words"], row["length_tokens"]) == (14, 4, 4)
    assert row["relative_length_chars"] == pytest.approx(14 / np.mean([14, 4, 10, 17]))


def test_length_rank_and_longest_shortest_flags_within_items() -> None:
    frame = _features(OptionTable.from_benchmark(TOY), standardize=False)
    q1, q2 = frame.iloc[:4], frame.iloc[4:7]
    assert q1["length_rank"].tolist() == [1 / 3, 1.0, 2 / 3, 0.0]  # "None of the above" is longest
    assert q1["is_longest"].tolist() == [0, 0, 0, 1] and q1["is_shortest"].tolist() == [0, 1, 0, 0]
    # three options of 4 characters: all tied, all both longest and shortest, each with two ties
    assert q2["is_longest"].tolist() == [1, 1, 1] and q2["is_shortest"].tolist() == [1, 1, 1]
    assert q2["length_ties"].tolist() == [2, 2, 2] and q2["length_rank"].tolist() == [0, 0, 0]


def test_positions_are_one_hot_up_to_the_widest_item_in_fit() -> None:
    table = OptionTable.from_benchmark(TOY)
    features = OptionFeatures().fit(table)
    names = features.get_feature_names_out().tolist()
    assert names[-5:] == ["position_A", "position_B", "position_C", "position_D", "position_last"]
    frame = pd.DataFrame(features.transform(table), columns=names)
    assert frame["position_D"].tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0]
    assert frame["position_last"].tolist() == [0, 0, 0, 1, 0, 0, 1, 0, 1]
    narrow = OptionFeatures().fit(table.subset(np.array([1])))  # three options only: a fourth gets no slot
    wide = pd.DataFrame(narrow.transform(table), columns=narrow.get_feature_names_out())
    assert "position_D" not in wide and wide.filter(like="position_").iloc[3].tolist() == [0, 0, 0, 1]


def test_question_overlap_and_empty_question() -> None:
    frame = _features(OptionTable.from_benchmark(TOY), standardize=False)
    # {a, bird, can, fly} vs {which, animal, can, fly}: 2 shared of 6
    assert frame.loc[0, "question_overlap"] == 2 and frame.loc[0, "question_jaccard"] == pytest.approx(2 / 6)
    assert frame.loc[7:8, ["question_overlap", "question_jaccard"]].to_numpy().sum() == 0  # q3 has no question
    choices_only = _features(OptionTable.from_benchmark(TOY, with_question=False), standardize=False)
    assert choices_only["question_overlap"].sum() == 0 and choices_only["question_jaccard"].sum() == 0


def test_negation_and_above_and_both_flags() -> None:
    frame = _features(OptionTable.from_benchmark(TOY), standardize=False)
    assert frame["negation_words"].tolist() == [0, 0, 1, 1, 0, 0, 0, 0, 1]  # don't, none, no
    assert frame["none_of_the_above"].tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0]
    assert frame["all_of_the_above"].sum() == 0
    assert frame["both"].tolist() == [0, 0, 0, 0, 0, 0, 1, 0, 0]


def test_standardization_uses_fit_statistics_only() -> None:
    table = OptionTable.from_benchmark(make_synthetic("longest-option", n_items=200, seed=0))
    train, test = table.subset(np.arange(100)), table.subset(np.arange(100, 200))
    features = OptionFeatures().fit(train)
    raw = OptionFeatures(standardize=False).fit(train)
    continuous = [i for i, name in enumerate(features.get_feature_names_out()) if name == "length_chars"]
    expected = (raw.transform(test)[:, continuous] - raw.transform(train)[:, continuous].mean()) / raw.transform(train)[
        :, continuous
    ].std()
    assert np.allclose(features.transform(test)[:, continuous], expected)
    assert np.allclose(features.transform(train)[:, continuous].mean(), 0)
    flags = [i for i, name in enumerate(features.get_feature_names_out()) if name == "is_longest"]
    assert set(np.unique(features.transform(test)[:, flags])) == {0.0, 1.0}


def test_longest_flag_marks_gold_in_planted_share_of_items(seed: int) -> None:
    table = OptionTable.from_benchmark(make_synthetic("longest-option", n_items=600, seed=seed))
    frame = _features(table, standardize=False)
    gold = table.frame["is_gold"].to_numpy()
    assert frame["is_longest"][gold].mean() == pytest.approx(0.45 + 0.15, abs=0.06)
    tied_gold = (frame["is_longest"] == 1) & (frame["length_ties"] > 0) & gold
    assert tied_gold.sum() / len(table) == pytest.approx(0.15, abs=0.05)


@pytest.mark.parametrize("transformer", [OptionFeatures(), OptionNgramFeatures(ngram_range=(1, 2))])
def test_shuffling_is_gold_does_not_change_the_output(transformer: OptionFeatures, seed: int) -> None:
    table = OptionTable.from_benchmark(make_synthetic("longest-option", n_items=100, seed=seed))
    shuffled = table.frame.copy()
    shuffled["is_gold"] = np.random.default_rng(seed).permutation(shuffled["is_gold"].to_numpy())
    assert not shuffled["is_gold"].equals(table.frame["is_gold"])
    first = transformer.fit(table).transform(table)
    second = transformer.fit(shuffled).transform(shuffled)
    assert np.array_equal(_dense(first), _dense(second))


def test_choices_only_ngrams_are_presence_of_option_words() -> None:
    table = OptionTable.from_benchmark(TOY)
    features = OptionNgramFeatures().fit(table)
    names = features.get_feature_names_out().tolist()
    assert "which" not in names  # the question is never read
    X = features.transform(table).toarray()
    assert X.shape == (9, len(names)) and set(np.unique(X)) == {0.0, 1.0}
    assert X[3, names.index("above")] == 1 and X[3].sum() == 4  # none of the above


def test_wrong_inputs_are_refused() -> None:
    with pytest.raises(ConfigError, match="lacks column"):
        OptionFeatures().fit(pd.DataFrame({"option": ["a"]}))
    with pytest.raises(ConfigError, match="OptionTable or its frame"):
        OptionFeatures().fit(["a", "b"])


def test_without_positions_no_column_says_where_an_option_sits(seed: int) -> None:
    table = OptionTable.from_benchmark(make_synthetic("gold-position", 60, seed=seed))
    blind = OptionFeatures(positions=False).fit(table)
    names = blind.get_feature_names_out().tolist()
    assert not any(name.startswith("position_") for name in names)
    assert blind.transform(table).shape == (len(table.frame), len(names))
    assert blind.n_positions_ == 0


@pytest.mark.parametrize("positions", [True, False])
def test_option_rows_give_the_same_features_as_the_subset_table(positions: bool) -> None:
    table = OptionTable.from_benchmark(make_synthetic("longest-option", n_items=120, seed=3))
    train, test = np.arange(0, 120, 3), np.arange(1, 120, 3)[::-1]  # test items out of order
    plain, shared = OptionFeatures(positions=positions), OptionFeatures(positions=positions)
    expected = plain.fit_transform(table.subset(train).frame)
    assert np.array_equal(shared.fit_transform(table.rows(train)), expected)
    assert np.array_equal(shared.transform(table.rows(test)), plain.transform(table.subset(test).frame))
    assert table.rows(test).frame.equals(table.subset(test).frame)
    assert table.shared  # the fit-free columns were computed once on the whole table
