"""Weigh each model's vote on a key by how good the model is: the strongest models rejecting a key count most.

A wrong key and a hard item both gather many models on one non-gold answer; what tells them apart is *who* agrees.
On a wrong key the strongest models reject the key together; on an item built to make models fail (a lure, a
belief-bias syllogism) the strongest models keep the key and the weak ones take the lure. This module turns that
into one number per item under the one-coin model of Dawid & Skene (1979): model ``m`` picks the true answer with
probability ``p_m`` (its accuracy on the *other* items, add-one smoothed) and any other of the ``K`` labels with
probability ``(1 - p_m) / (K - 1)``. The log-likelihood ratio of "the agreed answer is right" against "the key is
right" is then a weighted vote,

    log-odds = sum over models that chose the agreed answer of w_m  -  sum over models that chose the key of w_m,
    w_m = log(p_m (K - 1) / (1 - p_m)),

so a model at chance weighs 0, a strong model far more than a weak one, and a model below chance is given weight
0 (its answers carry no evidence either way). Models that chose a third answer or none add nothing. Positive:
the strength-weighted evidence favours the agreed answer over the key.
"""

from __future__ import annotations

import numpy as np

from pfungst.reliance.validity.responses import Responses

__all__ = ["model_weights", "strength_log_odds"]

_SHARED_LABELS = 10
"""A dataset with at most this many labels shares one label set (A-D, yes/no); above it, labels are per item."""


def model_weights(table: Responses) -> np.ndarray:
    """``[item, model]``: each model's vote weight on each item, from its accuracy on the other items.

    Example: a model right on 9 of its other 10 items outweighs one right on 6 of 10 (3 labels).

        >>> from pfungst.reliance.validity.responses import Responses
        >>> correct = np.array([[1.0] * 9 + [0.0] + [1.0], [1.0] * 6 + [0.0] * 4 + [1.0]]).T
        >>> n_items = correct.shape[0]
        >>> table = Responses("toy", ("strong", "weak"), tuple(map(str, range(n_items))), ("",) * n_items,
        ...     ("a", "b", "c"), np.zeros(n_items, int), np.zeros((n_items, 2), int), np.ones((n_items, 2), bool),
        ...     correct, np.full((n_items, 2, 3), np.nan), 0)
        >>> [round(float(w), 2) for w in model_weights(table)[-1]]
        [2.3, 1.03]
    """
    known = ~np.isnan(table.correct)
    values = np.where(known, table.correct, 0.0)
    right_elsewhere = values.sum(axis=0)[None, :] - values
    answered_elsewhere = known.sum(axis=0)[None, :] - known
    accuracy = (right_elsewhere + 1.0) / (answered_elsewhere + 2.0)
    n_labels = _label_counts(table)[:, None]
    weights = np.log(accuracy * (n_labels - 1) / (1.0 - accuracy))
    return np.clip(weights, 0.0, None)


def strength_log_odds(table: Responses, agreed: np.ndarray) -> np.ndarray:
    """Per item, the strength-weighted log-odds that ``agreed[i]`` (a label code; -1 for none) rather than the key
    is the right answer (module docstring); 0 where there is no key or no agreed answer."""
    weights = model_weights(table)
    keys = table.keys[:, None]
    chose_agreed = table.answered & (table.choices == agreed[:, None]) & (agreed[:, None] >= 0)
    chose_key = table.answered & (table.choices == keys) & (keys >= 0)
    log_odds = (weights * chose_agreed).sum(axis=1) - (weights * chose_key).sum(axis=1)
    return np.where((table.keys >= 0) & (agreed >= 0), log_odds, 0.0)


def _label_counts(table: Responses) -> np.ndarray:
    """``K`` per item: the dataset's label set where it is shared, else the labels seen on the item (at least 2)."""
    n_items = len(table.item_ids)
    if len(table.labels) <= _SHARED_LABELS:
        return np.full(n_items, float(max(2, len(table.labels))))
    counts = np.empty(n_items)
    for i in range(n_items):
        seen = set(table.choices[i][table.answered[i] & (table.choices[i] >= 0)].tolist())
        if table.keys[i] >= 0:
            seen.add(int(table.keys[i]))
        counts[i] = max(2, len(seen))
    return counts
