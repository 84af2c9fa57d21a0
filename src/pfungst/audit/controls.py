"""Controls beside a verdict: what the label prior alone scores, whether gold strings recur, and null copies.

- :class:`AuditControls` (computed once by :func:`pfungst.audit.audit`, the result's ``controls``): the label-only
  baseline (the majority answer's share, its kappa, and a cross-fitted label-prior classifier on the verdict's
  scale), and for per-item benchmarks the constant-answer check (distinct gold strings, their coverage, how often a
  gold string recurs as gold versus as a distractor). A verdict is read next to them, so that a label prior or a
  recurring answer is never read as content.
- :func:`shuffled_copy`: a copy whose gold answers carry no signal, to check an audit's false-positive rate. An
  audit of a shuffled copy must find no evidence: whatever it finds there is noise the real verdict must beat.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from pfungst.audit.folds import fold_ids, is_grouped
from pfungst.data.benchmark import Benchmark
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import ConfidenceInterval, Estimate, chance_corrected_accuracy, cohen_kappa, wilson_interval

__all__ = [
    "COVERAGE_TOP",
    "GOLD_RECURRENCE_THRESHOLD",
    "RECURRING_COVERAGE_THRESHOLD",
    "SHOWN_GOLD_STRINGS",
    "AuditControls",
    "ConstantAnswerCheck",
    "GoldString",
    "LabelOnlyBaseline",
    "audit_controls",
    "constant_answer_check",
    "label_only_baseline",
    "shuffled_copy",
]


def shuffled_copy(benchmark: Benchmark, seed: int = 0) -> Benchmark:
    """A copy whose gold answers are independent of the items (seeded).

    Shared labels: the gold labels are permuted across items (the label distribution is kept). Per-item choices:
    each item's gold becomes a uniformly random position among its options.

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> null = shuffled_copy(make_synthetic("gold-position", 200), seed=1)
        >>> sum(item.gold == 0 for item in null) < 100
        True
    """
    rng = np.random.default_rng([seed, 104729])
    golds = benchmark.option_kind.null_golds(
        [item.gold for item in benchmark], [item.n_options for item in benchmark], rng
    )
    items = tuple(replace(item, gold=int(gold)) for item, gold in zip(benchmark, golds, strict=True))
    provenance = replace(
        benchmark.provenance, steps=(*benchmark.provenance.steps, f"gold answers shuffled (null control, seed {seed})")
    )
    return replace(benchmark, name=f"{benchmark.name} (shuffled)", items=items, provenance=provenance)


GOLD_RECURRENCE_THRESHOLD = 3.0
"""Flag a per-item benchmark whose gold options are gold in other items more than this many times as often as its
distractors are (:attr:`ConstantAnswerCheck.recurrence_ratio`). Where the gold does not depend on which string an
option is, a string is as likely to be gold elsewhere whether it is the gold or a distractor here: the ratio is
about 1 for any number of options. Past 3, "pick the option that is gold elsewhere" answers without reading the
question: a choices-only shortcut (BIG-bench movie_recommendation: 98 famous gold titles among 1,388 one-off
distractors)."""
RECURRING_COVERAGE_THRESHOLD = 0.1
"""The flag also needs the recurring gold strings to be the gold of at least this share of the items: a handful of
repeated answers among thousands gives a shortcut too little to take."""
COVERAGE_TOP = 10
"""The coverage figure counts the items whose gold is one of this many most common gold strings."""
SHOWN_GOLD_STRINGS = 5
"""How many of the most common gold strings the check lists with their gold and distractor counts."""


@dataclass(frozen=True)
class GoldString:
    """One gold string: how often it is the gold answer and how often it is offered as a wrong option."""

    text: str
    as_gold: int
    as_distractor: int


@dataclass(frozen=True)
class ConstantAnswerCheck:
    """Per-item benchmarks: do the same gold strings recur, so that the choices alone give the answer away?

    Strings are compared after collapsing whitespace and case.
    """

    n_items: int
    distinct_gold: int
    """Number of distinct gold strings."""
    top_coverage: Estimate
    """Share of the items whose gold is one of the :data:`COVERAGE_TOP` most common gold strings (Wilson)."""
    top_gold: tuple[GoldString, ...]
    """The :data:`SHOWN_GOLD_STRINGS` most common gold strings."""
    recurring_items: int
    """Items whose gold string is the gold of at least one other item."""
    recurrence_ratio: float
    """How often an item's gold string is the gold of other items, over how often its average distractor is, summed
    over the items, add-one smoothed: (gold elsewhere + 1) / (distractor gold elsewhere + 1); about 1 when the gold
    does not depend on which string an option is."""
    threshold: float = GOLD_RECURRENCE_THRESHOLD

    @property
    def flagged(self) -> bool:
        """True when gold strings recur as gold far more than as distractors, on enough items to matter."""
        covered = self.recurring_items >= RECURRING_COVERAGE_THRESHOLD * self.n_items
        return covered and self.recurrence_ratio > self.threshold

    @property
    def explanation(self) -> str:
        text = (
            f"{self.distinct_gold} distinct gold strings in {self.n_items} items; the {COVERAGE_TOP} most common are "
            f"the gold of {self.top_coverage.value:.1%}; gold options are gold elsewhere "
            f"{self.recurrence_ratio:.2f} times as often as distractors (flag above {self.threshold:g})"
        )
        if self.flagged:
            return f"GOLD STRINGS RECUR AS GOLD FAR MORE THAN AS DISTRACTORS: {text}; the choices alone answer it"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "top_coverage": self.top_coverage.to_dict(),
            "top_gold": [asdict(entry) for entry in self.top_gold],
            "flagged": self.flagged,
        }


@dataclass(frozen=True)
class LabelOnlyBaseline:
    """What the label prior alone scores: the majority label (or gold position) and a classifier that knows only it.

    Always answering one label scores Cohen's kappa 0 by construction (its agreement equals chance agreement), so a
    shared-label verdict in kappa already discounts it; the cross-fitted prior shows it on the verdict's scale.
    """

    majority: str
    """The label (shared labels) or gold position letter (per-item) most often gold."""
    majority_share: Estimate
    """Share of the items whose gold is the majority answer (Wilson)."""
    constant_kappa: Estimate
    """Cohen's kappa of always answering the majority: 0 by construction."""
    prior_accuracy: Estimate
    """Accuracy of answering, for each held-out fold, the training folds' majority (Wilson)."""
    prior_score: Estimate
    """The same predictions on the verdict's statistic (kappa for shared labels, chance-corrected accuracy per item)."""

    @property
    def explanation(self) -> str:
        """The baseline in one sentence: the majority answer, its share, and what the prior scores."""
        return (
            f"majority answer {self.majority} on {self.majority_share.value:.1%} of the items; the label prior alone "
            f"scores {self.prior_score.value:.3f} on the verdict's statistic"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "majority": self.majority,
            "explanation": self.explanation,
            **{name: getattr(self, name).to_dict() for name in _ESTIMATES},
        }


_ESTIMATES = ("majority_share", "constant_kappa", "prior_accuracy", "prior_score")


@dataclass(frozen=True)
class AuditControls:
    """Two cheap controls read beside every verdict, so that a label prior is never read as content."""

    label_only: LabelOnlyBaseline
    constant_answer: ConstantAnswerCheck | None
    """None for shared labels (every item offers the same labels)."""

    @classmethod
    def from_fields(cls, fields: Fields) -> AuditControls:
        """Read :meth:`to_dict` back (flags and explanations are recomputed).

        Raises:
            ReaderError: a value of the wrong type or a missing key.
        """
        return read_dataclass(cls, fields)

    @property
    def explanation(self) -> str:
        """Both controls in one line, for a card or a suite row."""
        text = f"label-only baseline: {self.label_only.explanation}"
        if self.constant_answer is not None:
            text += f"; constant answer: {self.constant_answer.explanation}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "explanation": self.explanation,
            "label_only": self.label_only.to_dict(),
            "constant_answer": self.constant_answer.to_dict() if self.constant_answer else None,
        }


def audit_controls(
    benchmark: Benchmark,
    *,
    n_splits: int = 5,
    seed: int = 0,
    level: float = 0.95,
    groups: np.ndarray | None = None,
) -> AuditControls:
    """The label-only baseline and (per-item) the constant-answer check of ``benchmark``; ``groups`` (a group id per
    item) keeps siblings in one fold of the label-only baseline's cross-fitting.

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> controls = audit_controls(make_synthetic("gold-position", 200))
        >>> controls.label_only.majority, controls.constant_answer.flagged
        ('A', False)
    """
    return AuditControls(
        label_only=label_only_baseline(benchmark, n_splits=n_splits, seed=seed, level=level, groups=groups),
        constant_answer=constant_answer_check(benchmark, level) if benchmark.option_kind.has_positions else None,
    )


def label_only_baseline(
    benchmark: Benchmark, *, n_splits: int, seed: int, level: float, groups: np.ndarray | None = None
) -> LabelOnlyBaseline:
    """The majority answer's share, and the accuracy and verdict statistic of a cross-fitted majority guess (folds
    stratified and keeping each of ``groups`` whole when given)."""
    gold = np.array([item.gold for item in benchmark], dtype=int)
    n = len(gold)
    counts = np.bincount(gold) if n else np.zeros(1, dtype=int)
    top = int(np.argmax(counts))
    share = float(counts[top] / n) if n else math.nan
    predicted = _crossfit_majority(gold, n_splits, seed, groups)
    correct = int(np.sum(predicted == gold))
    prior_accuracy = Estimate(
        correct / n if n else math.nan,
        f"accuracy of the training folds' majority answer on each held-out fold ({n_splits} folds); wilson",
        n,
        ci=wilson_interval(correct, n, level) if n else None,
        baseline=share,
    )
    return LabelOnlyBaseline(
        majority=benchmark.option_kind.answer_name(benchmark.labels, top),
        majority_share=Estimate(
            share,
            "share of the items whose gold is the majority answer; wilson",
            n,
            ci=wilson_interval(int(counts[top]), n, level) if n else None,
        ),
        constant_kappa=Estimate(0.0, "Cohen's kappa of always answering the majority: 0 by construction", n),
        prior_score=_prior_score(benchmark, gold, predicted, prior_accuracy),
        prior_accuracy=prior_accuracy,
    )


def _crossfit_majority(gold: np.ndarray, n_splits: int, seed: int, groups: np.ndarray | None) -> np.ndarray:
    """For each item, the majority gold of the other folds (seeded, shuffled folds, or stratified group folds when
    siblings are grouped; ties: the smallest answer)."""
    predicted = np.zeros(len(gold), dtype=int)
    if groups is not None and is_grouped(groups):
        folds = fold_ids(gold, groups, max(2, min(n_splits, int(np.unique(groups).size))), [seed, 31337])
    else:
        folds = np.random.default_rng([seed, 31337]).permutation(len(gold)) % max(2, n_splits)
    for fold in np.unique(folds):
        train = gold[folds != fold]
        predicted[folds == fold] = int(np.argmax(np.bincount(train))) if train.size else 0
    return predicted


def _prior_score(benchmark: Benchmark, gold: np.ndarray, predicted: np.ndarray, accuracy: Estimate) -> Estimate:
    """The cross-fitted prior on the verdict's scale: Cohen's kappa (shared labels) or chance-corrected accuracy."""
    n = len(gold)
    if not benchmark.option_kind.has_positions:
        value = float(cohen_kappa(gold, predicted)) if n else math.nan
        return Estimate(value, "Cohen's kappa of the cross-fitted majority answer", n, baseline=0.0)
    classes = 1.0 / float(np.mean([1.0 / item.n_options for item in benchmark])) if n else 2.0
    ci = accuracy.ci
    return Estimate(
        chance_corrected_accuracy(accuracy.value, classes) if n else math.nan,
        "chance-corrected accuracy of the cross-fitted majority gold position (interval: the accuracy's, rescaled)",
        n,
        ci=ConfidenceInterval(
            chance_corrected_accuracy(ci.low, classes), chance_corrected_accuracy(ci.high, classes), ci.level
        )
        if ci
        else None,
        baseline=0.0,
    )


def constant_answer_check(benchmark: Benchmark, level: float = 0.95) -> ConstantAnswerCheck:
    """How many distinct gold strings there are, how much the commonest cover, and how often they are distractors."""
    gold_counts: Counter[str] = Counter()
    distractor_counts: Counter[str] = Counter()
    for item in benchmark:
        options = [_normal(option) for option in item.options]
        gold_counts[options[item.gold]] += 1
        distractor_counts.update(text for k, text in enumerate(options) if k != item.gold)
    n = len(benchmark)
    covered = sum(count for _, count in gold_counts.most_common(COVERAGE_TOP))
    recurring = sum(count for count in gold_counts.values() if count > 1)
    return ConstantAnswerCheck(
        n_items=n,
        distinct_gold=len(gold_counts),
        top_coverage=Estimate(
            covered / n if n else math.nan,
            f"share of the items whose gold is one of the {COVERAGE_TOP} most common gold strings; wilson",
            n,
            ci=wilson_interval(covered, n, level) if n else None,
        ),
        top_gold=tuple(
            GoldString(text, count, distractor_counts[text])
            for text, count in gold_counts.most_common(SHOWN_GOLD_STRINGS)
        ),
        recurring_items=recurring,
        recurrence_ratio=_recurrence_ratio(benchmark, gold_counts),
    )


def _recurrence_ratio(benchmark: Benchmark, gold_counts: Counter[str]) -> float:
    """(times each item's gold string is gold in another item + 1) / (the same for its average distractor + 1)."""
    gold_elsewhere, distractor_elsewhere = 0.0, 0.0
    for item in benchmark:
        options = [_normal(option) for option in item.options]
        gold_elsewhere += gold_counts[options[item.gold]] - 1
        distractors = [gold_counts[text] for k, text in enumerate(options) if k != item.gold]
        distractor_elsewhere += sum(distractors) / len(distractors) if distractors else 0.0
    return (gold_elsewhere + 1) / (distractor_elsewhere + 1)


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()
