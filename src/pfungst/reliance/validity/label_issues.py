"""Confident-learning label-issue scores (cleanlab) from the models' own option probabilities.

Where models gave option probabilities (lm-eval log-likelihoods, pfungst letter or cloze scores), the mean over
those models is the out-of-sample ``pred_probs`` cleanlab expects: the models never trained on these keys. Each
item gets cleanlab's label quality score (``normalized_margin``: the key's probability minus the largest other,
mapped to [0, 1]; low means the key looks wrong) and whether ``cleanlab.filter.find_label_issues`` (the
confident joint, pruned by noise rate) flags it. Items without probabilities get NaN and are not flagged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pfungst.errors import ConfigError

__all__ = ["LabelIssues", "label_issues"]

METHOD = "cleanlab get_label_quality_scores (normalized_margin) and find_label_issues (prune_by_noise_rate)"


@dataclass(frozen=True)
class LabelIssues:
    """cleanlab's reading of one dataset."""

    quality: np.ndarray
    """Per item, the label quality score in [0, 1]; NaN where no model gave probabilities."""
    flagged: np.ndarray
    """Per item, whether cleanlab finds a label issue."""
    n_scored: int
    """Items with probabilities (scored)."""
    note: str
    """What was done, or why nothing was (no probabilities, cleanlab missing, too few classes)."""


def label_issues(probabilities: np.ndarray, keys: np.ndarray) -> LabelIssues:
    """Score each item's key with cleanlab (module docstring).

    Args:
        probabilities: ``[item, model, label]`` option probabilities, NaN where a model gave none.
        keys: ``[item]`` code of the key (-1: unknown, not scored).
    """
    n_items = len(keys)
    quality, flagged = np.full(n_items, np.nan), np.zeros(n_items, dtype=bool)
    given = ~np.isnan(probabilities).any(axis=2) if probabilities.size else np.zeros(probabilities.shape[:2], bool)
    scored = given.any(axis=1) & (keys >= 0)
    if not scored.any():
        return LabelIssues(quality, flagged, 0, "no model gave option probabilities: no label-issue score")
    try:
        from cleanlab.filter import find_label_issues
        from cleanlab.rank import get_label_quality_scores
    except ImportError as exc:
        raise ConfigError("The label-issue score needs cleanlab: pip install 'pfungst[validity]'") from exc
    mean = np.nanmean(np.where(given[:, :, None], probabilities, np.nan)[scored], axis=1)
    mean = np.clip(mean, 1e-12, None)
    mean /= mean.sum(axis=1, keepdims=True)
    labels = keys[scored]
    quality[scored] = get_label_quality_scores(labels, mean, method="normalized_margin")
    present = np.unique(labels)
    if len(present) < 2:
        return LabelIssues(quality, flagged, int(scored.sum()), f"{METHOD}; only one keyed class, nothing flagged")
    # cleanlab wants every class among the labels: drop columns no item is keyed to, renumber the rest
    columns = {int(old): new for new, old in enumerate(present)}
    issues = find_label_issues(
        np.array([columns[int(k)] for k in labels]),
        _renormalised(mean[:, present]),
        filter_by="prune_by_noise_rate",
    )
    flagged[np.flatnonzero(scored)] = issues
    return LabelIssues(quality, flagged, int(scored.sum()), METHOD)


def _renormalised(matrix: np.ndarray) -> np.ndarray:
    return matrix / matrix.sum(axis=1, keepdims=True)
