"""Several models' outcomes on one dataset as arrays: items x models, for the screens to read.

Items are the union of the ids in the outcomes, in first-seen order; a model without a record for an item leaves
its cell unanswered (``answered`` False). The key and text of an item come from the first answer record that has
them; a later record that names another key is counted in ``n_key_conflicts`` (the logs disagree on the key).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pfungst.reliance.outcomes import ModelOutcomes

__all__ = ["Responses", "responses"]


@dataclass(frozen=True, eq=False)
class Responses:
    """Outcomes of several models on one dataset, aligned by item."""

    dataset: str
    models: tuple[str, ...]
    """Column order: one name per outcome set (repeated names get ``#2``, ``#3``)."""
    item_ids: tuple[str, ...]
    """Row order."""
    texts: tuple[str, ...]
    """Per item, its text (``""`` where no source gave one)."""
    labels: tuple[str, ...]
    """Every label seen as a key or a choice, sorted; codes index this."""
    keys: np.ndarray
    """``keys[i]``: code of item ``i``'s key; -1 where no answer record gave one."""
    choices: np.ndarray
    """``choices[i, m]``: code of the label model ``m`` chose; -1 for none or no record."""
    answered: np.ndarray
    """``answered[i, m]``: model ``m`` has an answer record (chosen label) for item ``i``."""
    correct: np.ndarray
    """``correct[i, m]``: right (1.0), wrong (0.0), or no outcome (NaN)."""
    probabilities: np.ndarray
    """``probabilities[i, m, label]``: the model's option probabilities; NaN where the source has none."""
    n_key_conflicts: int
    """Items whose key differs between sources (the first is used)."""


def responses(dataset: str, outcomes: Sequence[ModelOutcomes]) -> Responses:
    """Align the outcomes of one dataset (module docstring)."""
    models = _model_names(outcomes)
    ids = list(dict.fromkeys(item for o in outcomes for item in o.correct))
    row = {item: number for number, item in enumerate(ids)}
    labels = sorted(
        {a.gold for o in outcomes for a in o.answers.values() if a.gold}
        | {a.chosen for o in outcomes for a in o.answers.values() if a.chosen}
        | {label for o in outcomes for a in o.answers.values() for label in a.probabilities}
    )
    code = {label: number for number, label in enumerate(labels)}
    shape = (len(ids), len(models))
    keys, choices = np.full(len(ids), -1), np.full(shape, -1)
    answered, correct = np.zeros(shape, dtype=bool), np.full(shape, np.nan)
    probabilities = np.full((*shape, len(labels)), np.nan)
    texts = [""] * len(ids)
    conflicts: set[int] = set()
    for column, outcome in enumerate(outcomes):
        for item, right in outcome.correct.items():
            correct[row[item], column] = float(right)
        for item, answer in outcome.answers.items():
            i = row[item]
            answered[i, column] = True
            choices[i, column] = code.get(answer.chosen, -1)
            if answer.gold and keys[i] < 0:
                keys[i] = code[answer.gold]
            elif answer.gold and keys[i] != code[answer.gold]:
                conflicts.add(i)
            texts[i] = texts[i] or answer.text
            if answer.probabilities:
                probabilities[i, column, :] = 0.0
                for label, p in answer.probabilities.items():
                    probabilities[i, column, code[label]] = p
    return Responses(
        dataset=dataset,
        models=models,
        item_ids=tuple(ids),
        texts=tuple(texts),
        labels=tuple(labels),
        keys=keys,
        choices=choices,
        answered=answered,
        correct=correct,
        probabilities=probabilities,
        n_key_conflicts=len(conflicts),
    )


def _model_names(outcomes: Sequence[ModelOutcomes]) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    names = []
    for outcome in outcomes:
        seen[outcome.model] = seen.get(outcome.model, 0) + 1
        names.append(outcome.model if seen[outcome.model] == 1 else f"{outcome.model}#{seen[outcome.model]}")
    return tuple(names)
