"""Pacchiardi et al. 2024's second experiment, as they computed it (to reproduce it; not pfungst's analysis).

Their question: do models do better on the items that a surface-feature classifier gets right? Their computation
(notebook 2 of ``Kinds-of-Intelligence-CFI/benchmark-ground-truth-predictability``, "without XGBoost"):

1. Per dataset, the (feature set, logistic regression) with the highest validation accuracy under their protocol
   (:mod:`pfungst.audit.paper_protocol`); ties go to the first fitted, readability before the n-grams, then by n,
   weighting, classifier and word before GPT-2 tokens.
2. Its test items are split by whether it predicted them right.
3. Each model's success rate on either side becomes their "kappa", ``(s - 1/K) / (1 - 1/K)``, with K the number of
   distinct gold labels among the test items.
4. Datasets whose best classifier has "kappa" <= 0.2 on the test items are left out.
5. Per family of models (their names' provider: every OpenAI model is one family), a one-sided paired t-test over
   the (model, dataset) pairs that the right side's kappa exceeds the wrong side's; Benjamini-Hochberg across
   families.

What is flawed, and what :func:`pfungst.reliance.reliance` does instead:

- The split is confounded with the gold label: a classifier that mostly predicts one class is "right" on that
  class's items, so a model biased towards that label looks reliant without using any cue. pfungst's reliance also
  reports the difference within each gold label.
- Their "kappa" rescales both sides with the same 1/K, so it changes nothing in the test; it is not Cohen's kappa.
- The split rests on one 20% test set and the best of 39 (feature set, classifier) candidates; pfungst uses
  cross-fitted predictions of every item, with intervals.
- The (model, dataset) pairs share items, so they are not independent as the t-test assumes; with one family the
  "per-family" correction is one test; and the 0.2 filter reads the same test split's point estimate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from pfungst.audit.pacchiardi2024_protocol import Pacchiardi2024
from pfungst.audit.probe_outcome import ProbeOutcome
from pfungst.errors import ConfigError
from pfungst.reliance.outcomes import ModelOutcomes
from pfungst.stats import benjamini_hochberg

__all__ = ["PAPER_MODEL_NAMES", "PaperDataset", "PaperKappaTests", "paper_kappa_tests"]

PAPER_MODEL_NAMES: Mapping[str, str] = {
    name: f"openai/{name}"
    for name in [
        "ada",
        "babbage",
        "curie",
        "davinci",
        "text-ada-001",
        "text-babbage-001",
        "text-curie-001",
        "text-davinci-001",
        "text-davinci-002",
        "text-davinci-003",
        "gpt-3.5-turbo-0301",
        "gpt-3.5-turbo-0613",
        "gpt-3.5-turbo-1106",
        "gpt-3.5-turbo-0125",
        "gpt-4-0314",
        "gpt-4-0613",
        "gpt-4-1106-preview",
        "gpt-4-0125-preview",
    ]
}
"""Their provider-qualified model names; a family is the part before ``/`` (a model not listed is its own)."""

_PAPER_SETS = ("readability",) + tuple(
    f"{n}-grams_{weighting}{level}"
    for n in (1, 2)
    for weighting in ("tf", "tfidf", "presence")
    for level in ("", "_gpt2")
)
_GRID = ("l2_C1", "l1_C1", "l1_C0.1")


@dataclass(frozen=True)
class PaperDataset:
    """One dataset in their second experiment: the best classifier and each model's success on either side."""

    dataset: str
    feature_set: str
    classifier: str
    validation_accuracy: float
    kappa: float
    """Their "kappa" of the best classifier on the test items."""
    n_right: int
    n_wrong: int
    kept: bool
    """Whether ``kappa`` exceeds the threshold (their step 4)."""
    models: pd.DataFrame
    """One row per model: model, family, success_right, success_wrong, kappa_right, kappa_wrong."""


@dataclass(frozen=True)
class PaperKappaTests:
    """Their second experiment: per dataset the split, per family the paired t-test and its BH q-value."""

    datasets: tuple[PaperDataset, ...]
    families: pd.DataFrame
    """One row per family: family, n_pairs, mean_difference, t_stat, pvalue, qvalue, significant."""
    threshold: float

    def to_frame(self) -> pd.DataFrame:
        """The (model, dataset) pairs of the kept datasets, as the t-tests used them."""
        frames = [d.models.assign(dataset=d.dataset) for d in self.datasets if d.kept]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def paper_kappa_tests(
    probes: Mapping[str, Sequence[ProbeOutcome]],
    outcomes: Sequence[ModelOutcomes],
    *,
    threshold: float = 0.2,
    alpha: float = 0.05,
    families: Mapping[str, str] | None = None,
) -> PaperKappaTests:
    """Pacchiardi et al.'s second experiment, computed as they did (theirs; flawed, see the module docstring).

    Args:
        probes: Per dataset name, its pacchiardi2024 probe outcomes (one per feature set, same items).
        outcomes: Per-item model outcomes, keyed by the same item ids; each joins the dataset it names.
        threshold: Their step 4: keep a dataset whose best classifier's "kappa" exceeds this.
        alpha: The false discovery rate of the Benjamini-Hochberg step.
        families: Model -> provider-qualified name (``openai/gpt-4-0613``); default :data:`PAPER_MODEL_NAMES`.

    Raises:
        ConfigError: a probe not run under the pacchiardi2024 protocol, or a dataset without probes.
    """
    names = PAPER_MODEL_NAMES if families is None else families
    datasets = []
    for dataset, found in probes.items():
        joined = [o for o in outcomes if o.dataset == dataset]
        datasets.append(_dataset(dataset, found, joined, names, threshold))
    return PaperKappaTests(tuple(datasets), _family_tests(datasets, alpha), threshold)


def _best(probes: Sequence[ProbeOutcome]) -> ProbeOutcome:
    """The probe whose chosen classifier has the highest validation accuracy, ties as their code broke them."""
    if not probes:
        raise ConfigError("a dataset needs at least one pacchiardi2024 probe outcome")
    wrong = [p for p in probes if not isinstance(p.protocol, Pacchiardi2024)]
    if wrong:
        raise ConfigError(
            f"the paper's second experiment needs {Pacchiardi2024.name} probes; {wrong[0].feature_set} is "
            f"{wrong[0].protocol.name}"
        )

    def order(probe: ProbeOutcome) -> tuple[float, ...]:
        choice = probe.folds[0]
        accuracy = choice.validation_scores[choice.classifier]
        if probe.feature_set not in _PAPER_SETS:
            return (-accuracy, len(_PAPER_SETS), 0, 0)
        position = _PAPER_SETS.index(probe.feature_set)
        classifier = _GRID.index(choice.classifier) if choice.classifier in _GRID else len(_GRID)
        # Their rows: readability x 3 classifiers, then per (n, weighting): classifier, then word / GPT-2.
        block, level = (0, 0) if position == 0 else divmod(position - 1, 2)
        return (-accuracy, 0 if position == 0 else 1, block * len(_GRID) + classifier, level)

    return min(probes, key=order)


def _mean(values: np.ndarray) -> float:
    """The mean of the known values (NaN when there are none: an empty side, as in their code)."""
    known = values[~np.isnan(values)]
    return float(known.mean()) if known.size else math.nan


def _paper_kappa(success: float, n_labels: int) -> float:
    chance = 1.0 / n_labels
    return (success - chance) / (1.0 - chance)


def _dataset(
    name: str, probes: Sequence[ProbeOutcome], outcomes: Sequence[ModelOutcomes], names: Mapping[str, str], cut: float
) -> PaperDataset:
    best = _best(probes)
    tested = best.predicted
    ids = np.asarray(best.item_ids, dtype=object)[tested]
    right = best.prediction[tested] == best.gold[tested]
    n_labels = int(np.unique(best.gold[tested]).size)
    kappa = _paper_kappa(float(np.mean(right)), n_labels)
    rows = []
    for outcome in outcomes:
        success = np.array([float(outcome.correct.get(i, math.nan)) for i in ids])
        on_right, on_wrong = _mean(success[right]), _mean(success[~right])
        rows.append(
            {
                "model": outcome.model,
                "family": names.get(outcome.model, outcome.model).split("/")[0],
                "success_right": on_right,
                "success_wrong": on_wrong,
                "kappa_right": _paper_kappa(on_right, n_labels),
                "kappa_wrong": _paper_kappa(on_wrong, n_labels),
            }
        )
    choice = best.folds[0]
    return PaperDataset(
        dataset=name,
        feature_set=best.feature_set,
        classifier=choice.classifier,
        validation_accuracy=choice.validation_scores[choice.classifier],
        kappa=kappa,
        n_right=int(right.sum()),
        n_wrong=int((~right).sum()),
        kept=kappa > cut,
        models=pd.DataFrame(
            rows, columns=["model", "family", "success_right", "success_wrong", "kappa_right", "kappa_wrong"]
        ),
    )


def _family_tests(datasets: Sequence[PaperDataset], alpha: float) -> pd.DataFrame:
    """Their ``corrected_paired_t_test``: per family ``ttest_rel(right, wrong, alternative="greater")``, then BH."""
    frames = [d.models for d in datasets if d.kept]
    columns = ["family", "n_pairs", "mean_difference", "t_stat", "pvalue", "qvalue", "significant"]
    if not frames:
        return pd.DataFrame(columns=columns)
    pairs = pd.concat(frames, ignore_index=True).dropna(subset=["kappa_right", "kappa_wrong"])
    rows = []
    for family, group in pairs.groupby("family", sort=False):
        with np.errstate(all="ignore"):
            test = stats.ttest_rel(group.kappa_right, group.kappa_wrong, alternative="greater")
        difference = float(np.mean(group.kappa_right - group.kappa_wrong))
        rows.append([family, len(group), difference, float(test.statistic), float(test.pvalue)])
    frame = pd.DataFrame(rows, columns=columns[:5]).dropna()
    if frame.empty:
        return pd.DataFrame(columns=columns)
    adjusted = benjamini_hochberg(frame.pvalue.to_numpy(), alpha=alpha)
    return frame.assign(qvalue=list(adjusted.qvalues), significant=list(adjusted.rejected))
