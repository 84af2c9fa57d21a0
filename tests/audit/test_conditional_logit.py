"""The conditional logit chooses among each item's own options and learns what makes an option win."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression

from pfungst.audit.conditional_logit import ConditionalLogit
from pfungst.errors import DataError


def _longest_wins(rng: np.random.Generator, n_items: int, n_options: int = 4) -> tuple[np.ndarray, ...]:
    """Rows (length, noise) per option; the gold option is the unique longest."""
    lengths = np.stack([rng.permutation(np.arange(1, 9))[:n_options] for _ in range(n_items)]).astype(float)
    noise = rng.normal(size=lengths.shape)
    X = np.column_stack([lengths.ravel(), noise.ravel()])
    is_gold = (lengths == lengths.max(axis=1, keepdims=True)).ravel()
    groups = np.repeat(np.arange(n_items), n_options)
    return X, is_gold, groups


def test_recovers_a_planted_longest_wins_rule(seed: int) -> None:
    rng = np.random.default_rng(seed)
    X, is_gold, groups = _longest_wins(rng, 300)
    model = ConditionalLogit(C=1.0).fit(X, is_gold, groups)
    assert model.coef_[0] > 1.0 > abs(model.coef_[1]) * 5
    X_new, gold_new, groups_new = _longest_wins(rng, 200)
    chosen = model.predict_choice(X_new, groups_new)
    assert np.array_equal(chosen, np.flatnonzero(gold_new) % 4)


def test_is_invariant_to_the_order_of_options_within_an_item(seed: int) -> None:
    rng = np.random.default_rng(seed)
    X, is_gold, groups = _longest_wins(rng, 150)
    X[:, 0] += rng.normal(scale=3.0, size=X.shape[0])  # make the rule noisy so the fit is not trivial
    is_gold = np.zeros_like(is_gold)
    is_gold[np.arange(150) * 4 + rng.integers(0, 4, 150)] = True
    order = np.concatenate([4 * item + rng.permutation(4) for item in rng.permutation(150)])
    for penalty in ("l2", "l1"):
        original = ConditionalLogit(penalty=penalty, C=0.5).fit(X, is_gold, groups)
        shuffled = ConditionalLogit(penalty=penalty, C=0.5).fit(X[order], is_gold[order], groups[order])
        np.testing.assert_allclose(original.coef_, shuffled.coef_, atol=1e-4)
        # The same option is chosen, wherever it sits.
        chosen_original = np.arange(4) + 4 * np.arange(150)[:, None]
        picked = chosen_original[np.arange(150), original.predict_choice(X, groups)]
        rows_by_group = [order[groups[order] == g] for g in range(150)]
        picked_shuffled = [
            rows[k] for rows, k in zip(rows_by_group, shuffled.predict_choice(X[order], groups[order]), strict=True)
        ]
        assert np.array_equal(picked, picked_shuffled)


@pytest.mark.parametrize("penalty", ["l2", "l1"])
def test_two_option_items_match_sklearn_logistic_regression_on_differences(penalty: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 200
    gold_rows, other_rows = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    gold_rows[:, 0] += 0.8
    X = np.empty((2 * n, 3))
    X[0::2], X[1::2] = gold_rows, other_rows
    is_gold = np.tile([True, False], n)
    groups = np.repeat(np.arange(n), 2)
    model = ConditionalLogit(C=0.3, penalty=penalty, tol=1e-8, max_iter=5000).fit(X, is_gold, groups)
    flip = rng.random(n) < 0.5  # a logistic regression needs both classes: present half the pairs reversed
    differences = np.where(flip[:, None], other_rows - gold_rows, gold_rows - other_rows)
    solver = "liblinear" if penalty == "l1" else "lbfgs"
    reference = LogisticRegression(
        C=0.3, l1_ratio=1.0 if penalty == "l1" else 0.0, solver=solver, fit_intercept=False, tol=1e-10, max_iter=5000
    ).fit(differences, ~flip)
    np.testing.assert_allclose(model.coef_, reference.coef_.ravel(), atol=2e-3)


def test_l1_sets_irrelevant_weights_exactly_to_zero(seed: int) -> None:
    rng = np.random.default_rng(seed)
    X, is_gold, groups = _longest_wins(rng, 200)
    X = np.column_stack([X, rng.normal(size=(X.shape[0], 20))])
    model = ConditionalLogit(penalty="l1", C=0.05).fit(X, is_gold, groups)
    assert model.coef_[0] > 0
    assert np.count_nonzero(model.coef_[2:] == 0.0) >= 15


def test_sparse_and_dense_inputs_give_the_same_fit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    X, is_gold, groups = _longest_wins(rng, 100)
    dense = ConditionalLogit().fit(X, is_gold, groups)
    sparse = ConditionalLogit().fit(sp.csr_matrix(X), is_gold, groups)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, atol=1e-8)
    np.testing.assert_allclose(dense.decision_function(X), sparse.decision_function(sp.csr_matrix(X)))


def test_row_probabilities_sum_to_one_within_each_item(seed: int) -> None:
    rng = np.random.default_rng(seed)
    X, is_gold, groups = _longest_wins(rng, 50, n_options=3)
    proba = ConditionalLogit().fit(X, is_gold, groups).predict_proba_rows(X, groups)
    np.testing.assert_allclose(np.bincount(groups, weights=proba), 1.0)


def test_items_may_have_different_numbers_of_options() -> None:
    X = np.array([[1.0], [4.0], [2.0], [9.0], [3.0], [5.0], [0.0]])
    is_gold = np.array([0, 1, 0, 1, 0, 1, 0], dtype=bool)
    groups = np.array([0, 0, 1, 1, 1, 2, 2])
    model = ConditionalLogit(C=10.0).fit(X, is_gold, groups)
    assert model.predict_choice(X, groups).tolist() == [1, 1, 0]


def test_ties_go_to_the_first_option_of_the_item() -> None:
    model = ConditionalLogit().fit(np.array([[1.0], [2.0]]), np.array([False, True]), np.array([0, 0]))
    assert model.predict_choice(np.array([[2.0], [1.0], [2.0]]), np.array([7, 7, 7])).tolist() == [0]


def test_fit_rejects_items_without_exactly_one_gold_option() -> None:
    X = np.ones((4, 1))
    with pytest.raises(DataError, match="exactly one gold row"):
        ConditionalLogit().fit(X, np.array([1, 1, 0, 0]), np.array([0, 0, 1, 1]))
    with pytest.raises(DataError, match="groups has 3 values for 4 rows"):
        ConditionalLogit().fit(X, np.array([1, 0, 1, 0]), np.array([0, 0, 1]))


def test_invalid_parameters_are_reported_in_fit_and_unfitted_use_raises() -> None:
    X, gold, groups = np.ones((2, 1)), np.array([1, 0]), np.array([0, 0])
    with pytest.raises(ValueError, match="penalty must be 'l1' or 'l2'"):
        ConditionalLogit(penalty="elasticnet").fit(X, gold, groups)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="C must be positive"):
        ConditionalLogit(C=0).fit(X, gold, groups)
    with pytest.raises(NotFittedError):
        ConditionalLogit().decision_function(X)


def test_running_out_of_iterations_warns(seed: int) -> None:
    X, is_gold, groups = _longest_wins(np.random.default_rng(seed), 100)
    with pytest.warns(ConvergenceWarning, match="stopped after 1 of max_iter=1 iterations"):
        ConditionalLogit(max_iter=1).fit(X, is_gold, groups)


def test_follows_scikit_learn_parameter_conventions() -> None:
    model = ConditionalLogit(C=0.1, penalty="l1")
    assert clone(model).get_params() == {"C": 0.1, "penalty": "l1", "max_iter": 500, "tol": 1e-6}


def test_a_seeded_choice_breaks_ties_at_random_not_towards_the_first_option() -> None:
    model = ConditionalLogit().fit(np.array([[1.0], [0.0]]), np.array([1, 0]), np.array([0, 0]))
    X = np.zeros((3 * 600, 1))  # every option scores the same
    groups = np.repeat(np.arange(600), 3)
    assert set(model.predict_choice(X, groups).tolist()) == {0}
    chosen = model.predict_choice(X, groups, seed=0)
    assert np.allclose(np.bincount(chosen, minlength=3) / 600, 1 / 3, atol=0.06)
    assert model.predict_choice(X, groups, seed=0).tolist() == chosen.tolist()
