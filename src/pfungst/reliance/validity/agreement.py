"""The wrong-key test: do more models agree on one non-gold answer than their own error habits explain?

For an item keyed ``g`` and a candidate answer ``a != g``, model ``m`` picks ``a`` with probability ``p[m, a]``
if the key is right, estimated from the model's other items: the share of the items keyed other than ``a`` (this
item left out) on which it chose ``a``, with add-one smoothing over the labels so that a habit never seen is not
impossible. The number of models that chose ``a`` is then a sum of independent Bernoulli draws (a Poisson-binomial
count); its upper tail is the p-value that the agreement is chance. Each non-gold answer some model chose is tested
and the smallest p-value kept, multiplied by the number tested (Bonferroni within the item).

What the null leaves out: models also err together on hard or ambiguous items, so a small p-value says "more
agreement than these models' error rates explain", which a wrong key, an ambiguous item or a shared
misconception can each cause; the IRT discrimination (a negative one: stronger models miss the item more) and a
reader's judgement tell these apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AgreementTest", "ChoiceRates", "agreement_test", "poisson_binomial_upper_tail"]


def poisson_binomial_upper_tail(probabilities: np.ndarray, count: int) -> float:
    """P(at least ``count`` successes) among independent draws with the given success probabilities.

    Example:
        >>> round(poisson_binomial_upper_tail(np.array([0.5, 0.5, 0.5]), 3), 3)
        0.125
    """
    distribution = np.zeros(len(probabilities) + 1)
    distribution[0] = 1.0
    for p in probabilities:
        distribution[1:] = distribution[1:] * (1 - p) + distribution[:-1] * p
        distribution[0] *= 1 - p
    return float(min(1.0, distribution[count:].sum()))


@dataclass(frozen=True)
class ChoiceRates:
    """Per model, how often it chose each label on the items keyed otherwise: the counts behind ``p[m, a]``."""

    chosen: np.ndarray
    """``chosen[m, a]``: items not keyed ``a`` on which model ``m`` chose ``a``."""
    eligible: np.ndarray
    """``eligible[m, a]``: items not keyed ``a`` that model ``m`` answered (chose something or nothing)."""

    @classmethod
    def count(cls, choices: np.ndarray, keys: np.ndarray, answered: np.ndarray, n_labels: int) -> ChoiceRates:
        """Count from ``choices[i, m]`` (label code, -1 none), ``keys[i]`` and ``answered[i, m]`` (has a record)."""
        n_models = choices.shape[1]
        chosen = np.zeros((n_models, n_labels))
        eligible = np.zeros((n_models, n_labels))
        for label in range(n_labels):
            other = keys != label
            chosen[:, label] = ((choices == label) & answered & other[:, None]).sum(axis=0)
            eligible[:, label] = (answered & other[:, None]).sum(axis=0)
        return cls(chosen, eligible)

    def rates(self, choice_row: np.ndarray, key: int, answered_row: np.ndarray, label: int) -> np.ndarray:
        """``p[m, label]`` for one item keyed ``key`` with this item left out, add-one smoothed over labels."""
        own = (choice_row == label) & answered_row & (key != label)
        chosen = self.chosen[:, label] - own
        eligible = self.eligible[:, label] - (answered_row & (key != label))
        n_labels = self.chosen.shape[1]
        return (chosen + 1.0) / (eligible + n_labels)


@dataclass(frozen=True)
class AgreementTest:
    """One item's wrong-key test."""

    answer: int
    """Code of the non-gold answer most models agreeing on it explains least well (-1: no model chose one)."""
    n_agreed: int
    """Models that chose ``answer``."""
    expected: float
    """How many would, on average, if the key were right (sum of ``p[m, answer]`` over the models answering)."""
    pvalue: float
    """Upper tail of the Poisson-binomial count, Bonferroni-multiplied by the answers tested (1 when none)."""
    n_tested: int
    """Non-gold answers tested (chosen by at least one model)."""


def agreement_test(choice_row: np.ndarray, key: int, answered_row: np.ndarray, rates: ChoiceRates) -> AgreementTest:
    """The wrong-key test of one item (module docstring).

    Args:
        choice_row: Per model, the code of the label it chose (-1: none).
        key: The code of the keyed label.
        answered_row: Per model, whether it has an answer record for the item.
        rates: The models' choice habits over the dataset.
    """
    valid = answered_row & (choice_row >= 0) & (choice_row != key)
    candidates = sorted(set(choice_row[valid].tolist()))
    best = AgreementTest(answer=-1, n_agreed=0, expected=0.0, pvalue=1.0, n_tested=0)
    for label in candidates:
        p = rates.rates(choice_row, key, answered_row, label)[answered_row]
        n_agreed = int((choice_row[answered_row] == label).sum())
        pvalue = poisson_binomial_upper_tail(p, n_agreed)
        better = best.answer < 0 or (pvalue, -n_agreed) < (best.pvalue, -best.n_agreed)
        if better:
            best = AgreementTest(int(label), n_agreed, float(p.sum()), pvalue, len(candidates))
    if best.answer >= 0:
        best = AgreementTest(
            best.answer, best.n_agreed, best.expected, min(1.0, best.pvalue * len(candidates)), len(candidates)
        )
    return best
