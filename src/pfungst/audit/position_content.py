"""Tell a file-layout artifact from a content artifact: the gold-position finding apart from the content verdict.

A per-item benchmark can come out "predictable" for two different reasons. Its file may list the gold option in
the same place for every item (BIG-bench ``target_scores`` that always put the answer first): true, and worth a
loud warning, since anyone who renders the options in file order hands the model the answer, but fixed by
shuffling. Or its options themselves may give the answer (the longest option, a telltale word): a content cue that
no shuffling removes. The overall verdict reads every probe, including those that see positions (the ``options``
set's position columns; item-level probes, which predict the gold *position* from the text), so it mixes both.

:func:`pfungst.audit.audit` separates them once, into the result's ``position_content``
(a :class:`PositionContentSplit`):

- the **position** finding (:class:`PositionArtifact`): the gold-position heuristic's out-of-sample accuracy (the
  position most often gold in the other folds, chance-corrected, with its interval), the chi-squared test of
  uniform gold positions and the gold counts per position, with the slot pattern in words ("gold is the last option
  (D) in 1000 of 1000 items (uniform: 250)"), flagged when the heuristic's lower bound exceeds the verdict threshold;
- the **content** verdict: the verdict recomputed over the probes that cannot see positions only
  (the feature sets that declare option level and no position column,
  :attr:`~pfungst.audit.feature_sets.FeatureSet.position_blind`: option features without position, choices-only
  n-grams), with its own Bonferroni correction over those probes.

For shared-label benchmarks there are no positions: the content verdict is the verdict, and there is no position
finding. Reports, the card, the board, the suite and the release gate read the split from the result.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pfungst.audit.feature_sets import position_blind_sets
from pfungst.audit.heuristics import GoldPositionResult, HeuristicsReport
from pfungst.audit.verdict import Verdict
from pfungst.blocks import format_estimate
from pfungst.errors import ConfigError
from pfungst.schema import Fields
from pfungst.stats import Estimate

if TYPE_CHECKING:
    from pfungst.audit.result import AuditResult

__all__ = [
    "POSITION_FIX",
    "SLOT_PATTERN_LEVEL",
    "PositionArtifact",
    "PositionContentSplit",
    "no_blind_probe_message",
    "position_artifact",
    "split",
]

POSITION_FIX = (
    "shuffle each item's options before rendering them (or write a counterbalanced copy with `pfungst audit DATA "
    "--fix DIR`)"
)
"""What removes a gold-position artifact."""

SLOT_PATTERN_LEVEL = 0.05
"""The level at which the chi-squared test must reject uniform gold positions before a slot pattern is named."""


@dataclass(frozen=True)
class PositionArtifact:
    """Where the gold options sit, and how far guessing the most common position goes (per-item benchmarks)."""

    position_counts: tuple[int, ...]
    """Gold answers at each position (0-based: A, B, ...)."""
    expected_counts: tuple[float, ...]
    """What uniform positions would give at each position (mixed option counts allowed for)."""
    most_common: str
    """The letter of the position most often gold."""
    most_common_share: float
    """The share of items whose gold sits there."""
    uniformity: Estimate
    """Chi-squared test of "gold positions are uniform" (its p-value)."""
    position_only: Estimate
    """Chance-corrected accuracy of guessing the position most often gold in the other folds (cross-fitted)."""
    threshold: float
    """The artifact is flagged when ``position_only``'s lower bound exceeds this (the verdict threshold)."""

    @property
    def flagged(self) -> bool:
        """True when guessing the usual gold position alone clears the verdict threshold."""
        ci = self.position_only.ci
        return ci is not None and ci.low > self.threshold

    @property
    def slot_pattern(self) -> str:
        """The slot most often gold, in words, named only when the uniformity test rejects at
        :data:`SLOT_PATTERN_LEVEL` (``gold is the last option (D) in 1000 of 1000 items (uniform: 250)``); otherwise
        ``no slot pattern``, since the most common slot of uniform positions is noise.

        "first" and "last" are named when every item has the same number of options (equal uniform counts).

        Example:
            >>> from pfungst.stats import Estimate
            >>> found = PositionArtifact((0, 0, 0, 8), (2.0,) * 4, "D", 1.0, Estimate(24.0, "chi2", 8, pvalue=5e-5),
            ...                          Estimate(1.0, "ccacc", 8), 0.2)
            >>> found.slot_pattern
            'gold is the last option (D) in 8 of 8 items (uniform: 2)'
            >>> noise = PositionArtifact((2, 3, 1, 2), (2.0,) * 4, "B", 0.375, Estimate(1.0, "chi2", 8, pvalue=0.8),
            ...                          Estimate(0.0, "ccacc", 8), 0.2)
            >>> noise.slot_pattern
            'no slot pattern (gold positions consistent with uniform: p = 0.8)'
        """
        counts = self.position_counts
        if not counts:
            return "no gold position recorded"
        pvalue = self.uniformity.pvalue
        if pvalue is None or not pvalue < SLOT_PATTERN_LEVEL:
            return f"no slot pattern (gold positions consistent with uniform: p = {_pvalue_words(pvalue)})"
        top = max(range(len(counts)), key=lambda k: counts[k])
        same_size = len({round(value, 9) for value in self.expected_counts}) == 1
        slot = f"option {self.most_common}"
        if same_size and len(counts) > 1 and top in (0, len(counts) - 1):
            slot = f"the {'first' if top == 0 else 'last'} option ({self.most_common})"
        expected = self.expected_counts[top] if top < len(self.expected_counts) else math.nan
        return f"gold is {slot} in {counts[top]} of {sum(counts)} items (uniform: {expected:.4g})"

    @property
    def fix(self) -> str:
        """What removes a gold-position artifact, in words (:data:`POSITION_FIX`), for every renderer to show."""
        return POSITION_FIX

    @property
    def explanation(self) -> str:
        pattern = self.slot_pattern
        if not pattern.startswith("no "):  # a named pattern with its test; "no slot pattern (...)" already has it
            pattern += f"; uniformity p = {_pvalue_words(self.uniformity.pvalue)}"
        figure = format_estimate(self.position_only)
        text = f"{pattern}; guessing that position scores chance-corrected accuracy {figure}"
        return f"POSITION ARTIFACT: {text}. Fix: {self.fix}" if self.flagged else text

    @classmethod
    def from_fields(cls, fields: Fields) -> PositionArtifact:
        """Read :meth:`to_dict` back (flag, slot pattern and explanation are recomputed from the fields).

        Raises:
            ReaderError: a value of the wrong type or a missing key.
        """
        return cls(
            position_counts=tuple(int(v) for v in fields.items("position_counts")),
            expected_counts=tuple(float(v) for v in fields.items("expected_counts")),
            most_common=fields.string("most_common"),
            most_common_share=fields.number("most_common_share"),
            uniformity=fields.estimate("uniformity"),
            position_only=fields.estimate("position_only"),
            threshold=fields.number("threshold"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "position_counts": list(self.position_counts),
            "expected_counts": list(self.expected_counts),
            "most_common": self.most_common,
            "most_common_share": self.most_common_share,
            "uniformity": self.uniformity.to_dict(),
            "position_only": self.position_only.to_dict(),
            "threshold": self.threshold,
            "flagged": self.flagged,
            "slot_pattern": self.slot_pattern,
            "fix": self.fix,
            "explanation": self.explanation,
        }


@dataclass(frozen=True)
class PositionContentSplit:
    """An audit's verdict split into what the content gives away and what the file layout gives away."""

    benchmark: str
    content: Verdict
    """The verdict over the position-blind probes only (shared labels: the audit's verdict)."""
    position: PositionArtifact | None
    """The gold-position finding; None for shared-label benchmarks, which have no positions."""
    content_feature_sets: tuple[str, ...]
    """The probes the content verdict reads."""

    @classmethod
    def from_fields(cls, fields: Fields) -> PositionContentSplit:
        """Read :meth:`to_dict` back.

        Raises:
            ReaderError: a value of the wrong type or a missing key.
        """
        return cls(
            benchmark=fields.string("benchmark"),
            content=Verdict.from_fields(fields.sub("content")),
            position=PositionArtifact.from_fields(fields.sub("position")) if fields.has("position") else None,
            content_feature_sets=tuple(str(name) for name in fields.items("content_feature_sets")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "content": self.content.to_dict(),
            "position": self.position.to_dict() if self.position else None,
            "content_feature_sets": list(self.content_feature_sets),
        }


def no_blind_probe_message(name: str) -> str:
    """Why a per-item audit has no content / position split: none of its probes is blind to positions."""
    return (
        f"the audit of '{name}' has no probe that is blind to positions, so its content cannot be told from its "
        f"layout. Add --feature-set {position_blind_sets()[0]} (or keep the default feature sets)"
    )


def split(result: AuditResult) -> PositionContentSplit:
    """``result``'s verdict split into the content verdict and the gold-position finding (its ``position_content``).

    Raises:
        ConfigError: a per-item audit without any position-blind probe (name one with ``--feature-set``).

    Example:
        >>> from pfungst.audit import audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> result = audit(make_synthetic("gold-position", 200), feature_sets=("options", "options_no_position"),
        ...                n_bootstrap=100, n_permutations=50, cues=False)
        >>> parts = split(result)
        >>> parts.position.flagged, parts.content.label
        (True, 'no evidence')
    """
    if result.position_content is None:
        raise ConfigError(no_blind_probe_message(str(result.benchmark.get("name", "?"))))
    return result.position_content


def position_artifact(heuristics: HeuristicsReport | None, threshold: float) -> PositionArtifact | None:
    """The gold-position finding from the gold-position heuristic (None when heuristics were off)."""
    found = [r for r in (heuristics.results if heuristics else ()) if isinstance(r, GoldPositionResult)]
    if not found:
        return None
    gold = found[0]
    counts = gold.position_counts
    total = sum(counts)
    top = max(range(len(counts)), key=lambda k: counts[k]) if counts else 0
    return PositionArtifact(
        position_counts=counts,
        expected_counts=gold.expected_counts,
        most_common=string.ascii_uppercase[top] if top < 26 else str(top + 1),
        most_common_share=counts[top] / total if total else math.nan,
        uniformity=gold.uniformity,
        position_only=gold.chance_corrected_accuracy,
        threshold=threshold,
    )


def _pvalue_words(pvalue: float | None) -> str:
    """A p-value to three significant digits, or ``n/a`` where none was computed."""
    return "n/a" if pvalue is None or math.isnan(pvalue) else f"{pvalue:.3g}"
