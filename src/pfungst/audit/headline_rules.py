"""The rules that turn an audit's findings into its :class:`~pfungst.audit.headline.Headline`.

Computed once, in the audit stage, from the verdict, the position / content split, the controls, the named cue
(:mod:`~pfungst.audit.cue_naming`) and the task's declaration (:mod:`~pfungst.audit.task_declaration`):

1. **Position first** when position explains the score: the gold-position artifact is flagged and the position-only
   baseline (the cross-fitted gold slot) reaches the winning probe's lower bound (or the content alone is not
   predictable); the content verdict goes into ``besides``.
2. **A label prior is a finding of its own** (shared labels): where always giving the majority answer scores far
   above chance, i.e. the majority share's lower bound, chance-corrected (``(low - 1/K) / (1 - 1/K)`` for ``K``
   labels), exceeds the threshold. It leads unless a predictable content finding does (Cohen's kappa already
   discounts the prior, so such a finding is more than the prior); then it goes into ``besides``.
3. **Lexical is a finding unless declared**: a full-input finding on a shared-label task explains the score as
   ``content``, like any other, unless the task was declared to be answered from its words (``expected``).
4. **The cue is named** where one survives multiple-testing correction (:func:`~pfungst.audit.cue_naming.name_cue`).
5. **Three states** (the verdict's own label): ``predictable`` (lower bound above the threshold), ``no evidence``
   (every feature set's upper bound below it, with :func:`detectable`) and ``inconclusive`` (neither, with
   :func:`items_needed`).

Both resolution figures read the standard error off the deciding interval (``Verdict.deciding``: the best feature
set's, or the one with the highest upper bound where the label is not "predictable"), ``se = (high - low) / (2 z_L)``
with ``z_L`` the normal critical value of the interval's own (simultaneous) level ``L``, and assume it shrinks as
``1 / sqrt(n)``; ``z_b = 0.8416`` is the normal quantile of 80% power.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from pfungst.audit.headline import Certainty, Explains, Headline, NamedCue, statistic_words
from pfungst.audit.position_content import POSITION_FIX, PositionArtifact
from pfungst.blocks import format_estimate
from pfungst.stats import ConfidenceInterval, Estimate, binomial_pvalue, normal_critical_value

if TYPE_CHECKING:
    from pfungst.audit.controls import AuditControls
    from pfungst.audit.position_content import PositionContentSplit
    from pfungst.audit.verdict import Verdict

__all__ = ["POWER", "detectable", "headline_of", "items_needed", "label_prior"]

POWER = 0.8
"""The power at which :func:`detectable` and :func:`items_needed` are computed."""
_Z_POWER = 0.8416212335729143  # the standard normal quantile at POWER

_LABEL_PRIOR_FIX = (
    "balance the answer key (or report accuracy beside the majority baseline and a chance-corrected statistic such "
    "as Cohen's kappa)"
)


def _standard_error(estimate: Estimate) -> float:
    ci = estimate.ci
    if ci is None or not math.isfinite(ci.low) or not math.isfinite(ci.high):
        return math.nan
    return (ci.high - ci.low) / (2 * normal_critical_value(ci.level))


def detectable(estimate: Estimate) -> float:
    """The smallest true effect whose interval excludes 0 with 80% probability, at this audit's size and level.

    ``(z_L + z_b) * se`` (see the module docstring): an audit of that effect would report a signal 80% of the time.
    NaN without a finite interval.

    Example:
        >>> from pfungst.stats import ConfidenceInterval, Estimate
        >>> round(detectable(Estimate(0.03, "m", 400, ConfidenceInterval(-0.05, 0.11, 0.95))), 3)
        0.114
    """
    ci, se = estimate.ci, _standard_error(estimate)
    if ci is None or math.isnan(se):
        return math.nan
    return (normal_critical_value(ci.level) + _Z_POWER) * se


def items_needed(estimate: Estimate, threshold: float) -> int | None:
    """About how many items would settle an inconclusive verdict: ``ceil(n * ((z_L + z_b) * se / threshold) ** 2)``.

    That is the size at which the smallest effect detectable at 80% power (:func:`detectable`) equals the threshold:
    with that many items a cue of the threshold's size would be detected (its interval excludes 0) 80% of the time,
    and where there is no cue the upper bound would fall below the threshold 80% of the time. It reads the spread of
    the interval, not its point, so the best of several probes (biased upward on small samples) does not sway it.
    None without a finite interval, a count or a positive threshold.

    Example:
        >>> from pfungst.stats import ConfidenceInterval, Estimate
        >>> items_needed(Estimate(0.144, "m", 60, ConfidenceInterval(-0.042, 0.322, 0.95)), 0.2)
        102
    """
    smallest = detectable(estimate)
    if math.isnan(smallest) or estimate.n <= 0 or not threshold > 0:
        return None
    return math.ceil(estimate.n * (smallest / threshold) ** 2)


def label_prior(controls: AuditControls | None, labels: tuple[str, ...]) -> tuple[NamedCue, Estimate] | None:
    """The majority answer of a shared-label task as a cue, and the chance-corrected share of always giving it
    (``(share - 1/K) / (1 - 1/K)``, its Wilson interval rescaled); None for per-item choices (whose majority is the
    gold position) or without controls."""
    if controls is None or len(labels) < 2:
        return None
    share, n = controls.label_only.majority_share, controls.label_only.majority_share.n
    chance = 1 / len(labels)
    hits = round(share.value * n)

    def rescale(value: float) -> float:
        return (value - chance) / (1 - chance)

    ci = share.ci
    estimate = Estimate(
        rescale(share.value),
        f"chance-corrected share of the majority answer (always answering it; chance 1/{len(labels)}); the Wilson "
        "interval of the share, rescaled",
        n,
        ci=ConfidenceInterval(rescale(ci.low), rescale(ci.high), ci.level) if ci else None,
        pvalue=binomial_pvalue(hits, n, chance, alternative="greater") if n else math.nan,
        baseline=0.0,
    )
    majority = controls.label_only.majority
    cue = NamedCue(
        f"'{majority}' is gold",
        f"'{majority}' is gold in {hits} of {n} items",
        "label prior",
        hits,
        n,
        n,
        estimate.pvalue,
    )
    return cue, estimate


def headline_of(
    verdict: Verdict,
    parts: PositionContentSplit | None,
    controls: AuditControls | None,
    cue: NamedCue | None,
    *,
    declared: str = "",
    labels: tuple[str, ...] = (),
) -> Headline:
    """The headline of an audit (the rules in the module docstring).

    Args:
        verdict: The audit's verdict (every probe).
        parts: Its position / content split (None where the audit has none).
        controls: Its controls (the label-only baseline).
        cue: The named content cue (:func:`~pfungst.audit.cue_naming.name_cue`), or None.
        declared: Where word-level answering was declared; empty when it was not.
        labels: The shared labels (empty for per-item choices).
    """
    content = _content_headline(verdict, cue, declared)
    content_verdict = parts.content if parts is not None else verdict
    position = parts.position if parts is not None else None
    flagged = position if position is not None and position.flagged else None
    prior = label_prior(controls, labels)
    prior = prior if prior is not None and _flagged(prior[1], verdict.threshold) else None
    prior_clause = (
        [f"besides, {prior[0].sentence}: always answering it scores {format_estimate(prior[1])}"] if prior else []
    )
    if flagged is not None and _position_explains(verdict, parts):
        lead = _position_headline(flagged, declared)
        besides = [_content_clause(content_verdict, cue), *prior_clause]
    elif prior is not None and content.certainty != "predictable":
        lead = _prior_headline(*prior, verdict.threshold, declared)
        besides = [_content_clause(verdict, cue)]
    else:
        lead, besides = content, [*prior_clause]
    if flagged is not None and lead.explains != "position":
        besides.append(_position_clause(flagged))
    kinds = [lead.explains] if lead.certainty == "predictable" else []
    kinds += ["position"] if flagged is not None else []
    if content_verdict.label == "predictable":
        kinds.append("expected" if content_verdict.evidence.lexical and declared else "content")
    kinds += ["label prior"] if prior is not None else []
    findings = tuple(dict.fromkeys(kinds))
    return replace(lead, besides=(*lead.besides, *besides), findings=findings)


def _flagged(estimate: Estimate, threshold: float) -> bool:
    return estimate.ci is not None and estimate.ci.low > threshold


def _position_explains(verdict: Verdict, parts: PositionContentSplit | None) -> bool:
    """The gold slot alone reaches the winning probe's lower bound, or the content alone is not predictable."""
    if parts is None or parts.position is None:
        return False
    ci = verdict.estimate.ci
    reaches = ci is None or not math.isfinite(ci.low) or parts.position.position_only.value >= ci.low
    return reaches or parts.content.label != "predictable" or verdict.label != "predictable"


def _content_headline(verdict: Verdict, cue: NamedCue | None, declared: str) -> Headline:
    """The headline the verdict alone gives: its three states, its input, the named cue."""
    certainty: Certainty = verdict.label
    explains: Explains = "none"
    if certainty == "predictable":
        explains = "expected" if verdict.evidence.lexical and declared else "content"
        if verdict.evidence.input == "position":
            explains = "position"
    return Headline(
        certainty=certainty,
        explains=explains,
        input=verdict.evidence.description,
        cue=cue if certainty != "no evidence" else None,
        statistic=verdict.statistic,
        estimate=verdict.estimate,
        threshold=verdict.threshold,
        resolution=_resolution(certainty, verdict.deciding, verdict.threshold),
        detectable=detectable(verdict.deciding),
        items_needed=items_needed(verdict.deciding, verdict.threshold) if certainty == "inconclusive" else None,
        besides=(),
        action=_action(certainty, explains, cue, verdict),
        declared=declared,
    )


def _resolution(certainty: Certainty, estimate: Estimate, threshold: float) -> str:
    ci = estimate.ci
    if certainty == "predictable" and ci is not None:
        return f"lower bound {ci.low:.3f} is above the threshold {threshold:g}"
    if certainty == "no evidence":
        smallest = detectable(estimate)
        return f"rules out a cue of {threshold:g} or more (smallest detectable at 80% power: {smallest:.3f})"
    needed = items_needed(estimate, threshold)
    more = f"; about {needed} would resolve one (80% power)" if needed is not None else ""
    if not estimate.value >= threshold:
        return f"{estimate.n} items are too few to rule out a cue of {threshold:g}{more}"
    return f"{estimate.n} items are too few to tell whether a cue reaches {threshold:g}{more}"


def _action(certainty: Certainty, explains: Explains, cue: NamedCue | None, verdict: Verdict) -> str:
    if certainty == "inconclusive":
        needed = items_needed(verdict.deciding, verdict.threshold)
        more = f" (about {needed})" if needed is not None else ""
        return f"audit more items{more} before reading the result as clean or as a finding"
    if certainty == "no evidence" or explains == "expected":
        return ""
    if explains == "position":
        return POSITION_FIX
    target = f"the cue ({cue.text})" if cue is not None else f"what the best probe ({verdict.feature_set}) reads"
    return (
        f"rewrite the items so that {target} no longer gives the answer away (or write a mitigated copy with "
        "`pfungst audit DATA --fix DIR`), then audit again"
    )


def _position_headline(position: PositionArtifact, declared: str) -> Headline:
    pattern = position.slot_pattern
    text = pattern.split(" in ", 1)[0]
    total = sum(position.position_counts)
    hits = max(position.position_counts) if position.position_counts else 0
    cue = NamedCue(text, pattern, "position", hits, total, total, position.uniformity.pvalue)
    estimate = position.position_only
    return Headline(
        certainty="predictable",
        explains="position",
        input="gold position in the file",
        cue=cue,
        statistic="chance_corrected_accuracy",
        estimate=estimate,
        threshold=position.threshold,
        resolution=_resolution("predictable", estimate, position.threshold),
        detectable=detectable(estimate),
        items_needed=None,
        besides=(),
        action=POSITION_FIX,
        declared=declared,
    )


def _prior_headline(cue: NamedCue, estimate: Estimate, threshold: float, declared: str) -> Headline:
    return Headline(
        certainty="predictable",
        explains="label prior",
        input="the answer key alone",
        cue=cue,
        statistic="chance_corrected_accuracy",
        estimate=estimate,
        threshold=threshold,
        resolution=_resolution("predictable", estimate, threshold),
        detectable=detectable(estimate),
        items_needed=None,
        besides=(),
        action=_LABEL_PRIOR_FIX,
        declared=declared,
    )


def _content_clause(verdict: Verdict, cue: NamedCue | None) -> str:
    """The content verdict beside a position or label-prior headline, in one clause."""
    figure = f"{statistic_words(verdict.statistic)} {format_estimate(verdict.estimate)}"
    if verdict.label == "predictable":
        named = f"; {cue.sentence}" if cue is not None else ""
        return f"besides, the content is predictable from the {verdict.evidence.description}: {figure}{named}"
    if verdict.label == "inconclusive":
        return f"besides, the content is inconclusive: {figure} spans the threshold {verdict.threshold:g}"
    return f"besides, no evidence of a content cue: {figure}"


def _position_clause(position: PositionArtifact) -> str:
    return f"besides, {position.slot_pattern}: guessing that slot scores {format_estimate(position.position_only)}"
