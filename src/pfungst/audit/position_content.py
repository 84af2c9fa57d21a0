"""Tell a file-layout artifact from a content artifact: the gold-position finding apart from the content verdict.

A per-item benchmark can come out "predictable" for two different reasons. Its file may list the gold option in
the same place for every item (BIG-bench ``target_scores`` that always put the answer first): true, and worth a
loud warning, since anyone who renders the options in file order hands the model the answer, but fixed by
shuffling. Or its options themselves may give the answer (the longest option, a telltale word): a content cue that
no shuffling removes. The overall verdict reads every probe, including those that see positions (the ``options``
set's position columns; item-level probes, which predict the gold *position* from the text), so it mixes both.

:func:`split_position_content` separates them:

- the **position** finding: the gold-position heuristic's out-of-sample accuracy (the position most often gold in
  the other folds, chance-corrected, with its interval), the chi-squared test of uniform gold positions and the
  gold counts per position, flagged when the heuristic's lower bound exceeds the verdict threshold;
- the **content** verdict: the verdict recomputed over the probes that cannot see positions only
  (:data:`POSITION_BLIND_FEATURE_SETS`: option features without position, choices-only n-grams), with its own
  Bonferroni correction over those probes.

For shared-label benchmarks there are no positions: the content verdict is the verdict, and there is no position
finding.
"""

from __future__ import annotations

import dataclasses
import math
import string
from dataclasses import dataclass
from typing import Any

from pfungst.audit.heuristics import GoldPositionResult
from pfungst.audit.result import AuditResult, Verdict
from pfungst.audit.run import AuditConfig, verdict_of
from pfungst.errors import ConfigError
from pfungst.stats import Estimate

__all__ = ["POSITION_BLIND_FEATURE_SETS", "POSITION_FIX", "PositionArtifact", "PositionContentSplit", "split"]

POSITION_BLIND_FEATURE_SETS: tuple[str, ...] = ("options_no_position", "options_1-grams_presence")
"""Option-level feature sets with no position column: a conditional logit over them cannot prefer a slot."""

POSITION_FIX = (
    "shuffle each item's options before rendering them (or write a counterbalanced copy with `pfungst audit DATA "
    "--fix DIR`)"
)
"""What removes a gold-position artifact."""


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
    def explanation(self) -> str:
        ci = self.position_only.ci
        bound = f" [{ci.low:.3f}, {ci.high:.3f}]" if ci else ""
        text = (
            f"gold at {self.most_common} in {self.most_common_share:.1%} of items (uniformity p = "
            f"{self.uniformity.pvalue:.3g}); guessing that position scores chance-corrected accuracy "
            f"{self.position_only.value:.3f}{bound}"
        )
        return f"POSITION ARTIFACT: {text}. Fix: {POSITION_FIX}" if self.flagged else text

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
            "fix": POSITION_FIX,
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "content": self.content.to_dict(),
            "position": self.position.to_dict() if self.position else None,
            "content_feature_sets": list(self.content_feature_sets),
        }


def split(result: AuditResult) -> PositionContentSplit:
    """Split ``result``'s verdict into the content verdict and the gold-position finding.

    The result must hold per-item predictions (an audit just run, or its JSON written with items).

    Raises:
        ConfigError: a per-item audit without any position-blind probe (name one with ``--feature-set``).

    Example:
        >>> from pfungst import audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> result = audit(make_synthetic("gold-position", 200), feature_sets=("options", "options_no_position"),
        ...                n_bootstrap=100, n_permutations=50, cues=False)
        >>> parts = split(result)
        >>> parts.position.flagged, parts.content.label
        (True, 'no evidence')
    """
    name = str(result.benchmark.get("name", "?"))
    if result.benchmark.get("option_kind") != "per_item":
        return PositionContentSplit(name, result.verdict, None, tuple(p.feature_set for p in result.probes))
    blind = [p for p in result.probes if p.feature_set in POSITION_BLIND_FEATURE_SETS]
    if not blind:
        raise ConfigError(
            f"the audit of '{name}' has no probe that is blind to positions, so its content cannot be told from its "
            f"layout. Add --feature-set {POSITION_BLIND_FEATURE_SETS[0]} (or keep the default feature sets)"
        )
    config = _config(result.settings)
    content = verdict_of(blind, config, result.verdict.statistic)
    return PositionContentSplit(name, content, _position(result, config.threshold), tuple(p.feature_set for p in blind))


def _config(settings: dict[str, Any]) -> AuditConfig:
    """The settings a verdict needs (seed, resamples, level, threshold), read back from ``result.settings``."""
    names = {"seed", "n_bootstrap", "level", "threshold"}
    return AuditConfig(**{f.name: settings[f.name] for f in dataclasses.fields(AuditConfig) if f.name in names})


def _position(result: AuditResult, threshold: float) -> PositionArtifact | None:
    found = [r for r in (result.heuristics.results if result.heuristics else ()) if isinstance(r, GoldPositionResult)]
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
