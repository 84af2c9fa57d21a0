"""An audit's verdict: "predictable", "inconclusive" or "no evidence", with the statistic, its interval, the
threshold, and the input its evidence needed (:class:`Evidence`: options alone, partial input, full input, or file
position)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

from pfungst.audit.feature_sets import EvidenceInput, FeatureSet
from pfungst.audit.verdict_interval import IntervalWidening
from pfungst.data.option_kind import OptionKind
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import ConfidenceInterval, Estimate

__all__ = ["LABELS", "Evidence", "Label", "ProbeBound", "Verdict", "verdict_label"]

Label = Literal["predictable", "inconclusive", "no evidence"]
"""The three states: the lower bound is above the threshold, the interval spans it, or the upper bound is below it."""
LABELS: tuple[str, ...] = get_args(Label)


def verdict_label(interval: ConfidenceInterval, threshold: float, *, highest_upper: float = math.nan) -> Label:
    """The three states: the lower bound above ``threshold``, the upper bound below it, or (spanning it) neither.

    ``highest_upper`` is the highest upper bound of the other simultaneous intervals, where the best probe's is one
    of several: "no evidence" needs every one of them below ``threshold`` too (NaN: no other).

    Example:
        >>> from pfungst.stats import ConfidenceInterval
        >>> [verdict_label(ConfidenceInterval(low, high), 0.2) for low, high in ((0.3, 0.5), (-0.1, 0.1), (0.1, 0.3))]
        ['predictable', 'no evidence', 'inconclusive']
        >>> verdict_label(ConfidenceInterval(-0.1, 0.1), 0.2, highest_upper=0.25)
        'inconclusive'
    """
    if interval.low > threshold:
        return "predictable"
    high = interval.high if math.isnan(highest_upper) else max(interval.high, highest_upper)
    return "no evidence" if high < threshold else "inconclusive"


@dataclass(frozen=True)
class ProbeBound:
    """A feature set other than the best whose simultaneous upper bound is higher than the best one's: the figure
    that "no evidence" must also clear."""

    feature_set: str
    estimate: Estimate
    """Its repeat-averaged statistic with its simultaneous interval (Bonferroni over the same feature sets)."""

    @classmethod
    def from_fields(cls, fields: Fields) -> ProbeBound:
        """Read :meth:`to_dict` back.

        Raises:
            ReaderError: a value of the wrong type, or a missing key.
        """
        return read_dataclass(cls, fields)

    def to_dict(self) -> dict[str, Any]:
        return {"feature_set": self.feature_set, "estimate": self.estimate.to_dict()}


_INPUTS: tuple[str, ...] = get_args(EvidenceInput)


@dataclass(frozen=True)
class Evidence:
    """The input a verdict's evidence needed, from the declarations of its best feature set (what that set sees)."""

    input: EvidenceInput = "full"
    """``options`` alone (no question), ``partial`` input (:attr:`fields`), the ``full`` input, or the ``position``
    of the gold option in the file (the verdict holds only with position-aware probes, and the gold slot is skewed)."""
    fields: tuple[str, ...] = ()
    """The named fields the item text was built from (partial input); empty otherwise."""
    shared_labels: bool = False
    """The task has one label set shared by every item (classification: sentiment, intent, topic, NLI)."""

    @classmethod
    def of(cls, feature_set: FeatureSet, fields: tuple[str, ...], option_kind: OptionKind) -> Evidence:
        """The input a finding of ``feature_set`` needed (its declarations), on item texts built from ``fields``.

        Example:
            >>> from pfungst.audit.feature_sets import get_feature_set
            >>> Evidence.of(get_feature_set("options_no_position"), (), OptionKind.PER_ITEM).description
            'options alone, no question'
        """
        found = feature_set.evidence_input(fields, per_item=option_kind.has_positions)
        return cls(found, fields if found == "partial" else (), shared_labels=not option_kind.has_positions)

    @property
    def lexical(self) -> bool:
        """Full input on a shared-label task: the words of the input give the label (a content finding unless the
        task is declared to be answered from its words: :mod:`pfungst.audit.task_declaration`)."""
        return self.input == "full" and self.shared_labels

    @property
    def description(self) -> str:
        """The input in words: ``options alone, no question``, ``partial input: hypothesis``, ``full input``, ..."""
        if self.input == "options":
            return "options alone, no question"
        if self.input == "partial":
            return f"partial input: {', '.join(self.fields)}"
        if self.input == "position":
            return "gold position in the file"
        return "full input"

    @classmethod
    def from_fields(cls, fields: Fields) -> Evidence:
        """Read :meth:`to_dict` back.

        Raises:
            ReaderError: a value of the wrong type, a missing key, or an input that is none of the kinds.
        """
        found = fields.string("input")
        if found not in _INPUTS:
            raise fields.error("input", f"expected one of {', '.join(_INPUTS)}, found {found!r}")
        return cls(
            input=cast(EvidenceInput, found),
            fields=fields.typed("fields", tuple[str, ...]),
            shared_labels=fields.boolean("shared_labels"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "fields": list(self.fields),
            "shared_labels": self.shared_labels,
            "lexical": self.lexical,
            "description": self.description,
        }


@dataclass(frozen=True)
class Verdict:
    """ "predictable", "inconclusive" or "no evidence", never a bare yes or no: the statistic, its interval and the
    threshold."""

    label: Label
    """``predictable`` (the lower bound exceeds :attr:`threshold`), ``no evidence`` (the upper bound is below it, and
    so is every other feature set's: :attr:`highest_upper`) or ``inconclusive`` (neither: too few items to tell)."""
    feature_set: str
    """The feature set with the highest point estimate."""
    statistic: str
    """``kappa`` (Cohen's: shared labels, under both protocols) or ``chance_corrected_accuracy`` (per-item choices)."""
    estimate: Estimate
    """The statistic with a simultaneous interval: Bonferroni over the feature sets tried, so that picking the best
    of several does not inflate the evidence."""
    threshold: float
    """The lower bound must exceed this for "predictable"; the upper bound must be below it for "no evidence"."""
    n_feature_sets: int
    note: str = ""
    """Why this statistic, where the protocol's own headline differs (pacchiardi2024); appended to the explanation."""
    refit: Estimate | None = None
    """The refit-aware interval of the best feature set's statistic (label permutations, the probe refitted each
    time; see :mod:`~pfungst.audit.refit_check`), at the same simultaneous level. Computed only where
    :attr:`estimate`'s interval excludes 0 but is not :attr:`clear` and the label is not "predictable"; else None."""
    evidence: Evidence = field(default_factory=Evidence)
    """The input the evidence needed (from the best feature set's declarations), named in the explanation."""
    widening: IntervalWidening | None = None
    """How :attr:`estimate`'s interval covers the refit: the fixed-prediction bootstrap interval and the spread across
    cross-fitting repeats added to it, with the method's name (:mod:`~pfungst.audit.verdict_interval`); None for a
    verdict built without it."""
    highest_upper: ProbeBound | None = None
    """The feature set whose simultaneous upper bound is the highest, where that is not the best one: a cue that any
    feature set's interval leaves room for is not ruled out, so "no evidence" needs it below the threshold too. None
    where the best feature set's upper bound is the highest (or no other has an interval)."""

    @property
    def deciding(self) -> Estimate:
        """The estimate whose interval decides the label: the best feature set's for "predictable", else the one with
        the highest upper bound (:attr:`highest_upper` where there is one)."""
        if self.label == "predictable" or self.highest_upper is None:
            return self.estimate
        return self.highest_upper.estimate

    @property
    def lexical(self) -> bool:
        """A "predictable" finding from the full input of a shared-label task (a content finding unless declared)."""
        return self.label == "predictable" and self.evidence.lexical

    @property
    def kind(self) -> Literal["none", "shortcut", "position"]:
        """What the finding is: ``none`` (not "predictable"), ``position`` (the gold slot), or ``shortcut`` (options
        alone, partial input, or the full input: a full-input finding on a shared-label task is one too, unless the
        task is declared to be answered from its words, which the audit's headline records)."""
        if self.label != "predictable":
            return "none"
        return "position" if self.evidence.input == "position" else "shortcut"

    @property
    def explanation(self) -> str:
        ci = self.estimate.ci
        bound = f"[{ci.low:.3f}, {ci.high:.3f}]" if ci else "(no interval)"
        level = f"{ci.level:.4g}" if ci else ""
        comparison = {
            "predictable": "the lower bound is above",
            "inconclusive": "the interval spans",
            "no evidence": "the upper bound is below",
        }[self.label]
        if self.label == "inconclusive" and ci is not None and ci.high < self.threshold:
            comparison = "the upper bound is below"
        text = (
            f"{self.label} ({self.evidence.description}): best feature set {self.feature_set}, "
            f"{self.statistic} {self.estimate.value:.3f} "
            f"{bound} ({level} simultaneous interval over {self.n_feature_sets} feature sets); {comparison} "
            f"the threshold {self.threshold:g}{self._other_bound()}"
        )
        if self.label != "predictable" and self.signal_below_threshold and self.refit is None:
            text += " (a signal is present, since the interval excludes 0 even when widened twofold, but it is smaller "
            text += "than the threshold)"
        elif self.label != "predictable" and self.refit is not None and self.refit.ci is not None:
            refit = self.refit.ci
            span = f"[{refit.low:.3f}, {refit.high:.3f}] over {self.refit.n} refits"
            if self.signal_below_threshold:
                text += f" (a signal is present, since the interval and its refit-aware one {span} exclude 0, "
                text += "but it is smaller than the threshold)"
            else:
                text += f" (no signal is claimed: the refit-aware interval {span} does not exclude 0)"
        return f"{text}; {self.note}" if self.note else text

    def _other_bound(self) -> str:
        """The other feature set's upper bound in words, where it keeps "no evidence" from being claimed or was
        cleared besides the best one's."""
        other = self.highest_upper
        if other is None or other.estimate.ci is None or self.label == "predictable":
            return ""
        ci = other.estimate.ci
        figures = f"{other.feature_set}, {self.statistic} {other.estimate.value:.3f} [{ci.low:.3f}, {ci.high:.3f}]"
        if self.label == "no evidence":
            return f", as is every feature set's (the highest: {figures})"
        best = self.estimate.ci
        if best is not None and best.high < self.threshold:
            return f", but not that of feature set {figures}: a cue of that size is not ruled out"
        return ""

    @property
    def signal_below_threshold(self) -> bool:
        """True when the simultaneous interval excludes 0 even when widened twofold about the point (:attr:`clear`),
        or excludes 0 and so does its refit-aware one (:attr:`refit`), although the lower bound is not above the
        threshold; at most 2.5% of audits of benchmarks without signal raise it."""
        ci, refit = self.estimate.ci, self.refit.ci if self.refit is not None else None
        confirmed = self.clear or (refit is not None and refit.low > 0)
        return ci is not None and ci.low > 0 and confirmed and self.label != "predictable"

    @property
    def clear(self) -> bool:
        """True when the interval excludes 0 and the fixed-prediction bootstrap interval (before the between-repeat
        widening, :attr:`widening`) has its lower bound more than halfway from 0 to the point: widened twofold about
        the point it still excludes 0, far beyond what refits widen it by, so no refits are needed."""
        ci = self.estimate.ci
        if ci is None or not ci.low > 0:
            return False
        low = self.widening.bootstrap_low if self.widening is not None else ci.low
        return low > self.estimate.value / 2

    @classmethod
    def from_fields(cls, fields: Fields) -> Verdict:
        """Read :meth:`to_dict` back (the explanation is recomputed from the fields).

        Raises:
            ReaderError: a value of the wrong type, a missing key, or a label that is no verdict.
        """
        return cls(
            label=fields.typed("label", Label),
            feature_set=fields.string("feature_set"),
            statistic=fields.string("statistic"),
            estimate=fields.estimate("estimate"),
            threshold=fields.number("threshold"),
            n_feature_sets=fields.integer("n_feature_sets"),
            note=fields.string("note") if fields.has("note") else "",
            evidence=Evidence.from_fields(fields.sub("evidence")),
            refit=fields.estimate("refit") if fields.has("refit") else None,
            widening=IntervalWidening.from_fields(fields.sub("widening")) if fields.has("widening") else None,
            highest_upper=ProbeBound.from_fields(fields.sub("highest_upper")) if fields.has("highest_upper") else None,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "feature_set": self.feature_set,
            "statistic": self.statistic,
            "estimate": self.estimate.to_dict(),
            "threshold": self.threshold,
            "n_feature_sets": self.n_feature_sets,
            "note": self.note,
            "refit": self.refit.to_dict() if self.refit is not None else None,
            "widening": self.widening.to_dict() if self.widening is not None else None,
            "highest_upper": self.highest_upper.to_dict() if self.highest_upper is not None else None,
            "signal_below_threshold": self.signal_below_threshold,
            "evidence": self.evidence.to_dict(),
            "kind": self.kind,
            "explanation": self.explanation,
        }
