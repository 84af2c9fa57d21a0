"""What a stress run decides about the model: does its score ride on the answer's position, the prompt format or the
scoring rule? Each check is a figure with its interval against a named threshold; the verdict sums them up in words,
a board status and one sentence, which every report (board, HTML, Markdown, console, demo) shows as written.

A check is a problem (``bad``) when its interval's lower bound clears the threshold, a caution (``warn``) when only
its value does, ok (``good``) otherwise, and ``info`` ("not measured") when the perturbation it needs was not run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pfungst.blocks import Block, Table, Text, format_estimate, format_number
from pfungst.schema import Fields
from pfungst.stats import ConfidenceInterval, Estimate
from pfungst.stress.analysis import Analysis
from pfungst.stress.metrics import CircularMetrics, MovedAnswerAccuracy, SelectionBias, VariantAccuracy
from pfungst.stress.perturbations.formats.metric import FormatSpread

__all__ = [
    "ANSWER_MOVED_GAP_THRESHOLD",
    "CIRCULAR_DROP_THRESHOLD",
    "FORMAT_SPREAD_THRESHOLD",
    "RSTD_THRESHOLD",
    "RULE_SPREAD_THRESHOLD",
    "StressCheck",
    "StressVerdict",
    "judge",
]

ANSWER_MOVED_GAP_THRESHOLD = 0.10
"""Position dependence: best minus worst accuracy with the gold moved to each slot (``answer-moved``). A slot-blind
model has a gap near 0; ten points of accuracy between slots is a score that depends on where the answer sits."""
RSTD_THRESHOLD = 10.0
"""Position dependence: RStd (Zheng et al.; standard deviation of the per-position recalls x 100) of the plain pass.
A model that always answers one of four slots has 43.3; 10 is a recall that moves by about ten points per slot."""
CIRCULAR_DROP_THRESHOLD = 0.25
"""Position dependence: plain accuracy minus circular accuracy (right under every rotation, ``cyclic`` or
``permutations``). Some drop is expected of any imperfect model; a quarter of the items lost to rotation is far below
plain."""
FORMAT_SPREAD_THRESHOLD = 0.10
"""Format sensitivity: best minus worst accuracy over prompt formats (``formats``), ten points of accuracy."""
RULE_SPREAD_THRESHOLD = 0.10
"""Rule sensitivity: best minus worst accuracy over the scoring rules compared (``rules``), ten points of accuracy."""

_ORDER = ("bad", "warn", "good", "info")
"""Board statuses, most severe first: an aspect takes its most severe measured check."""
_ASPECTS: dict[str, dict[str, str]] = {
    "position": {
        "bad": "position dependent",
        "warn": "possibly position dependent",
        "good": "no position dependence found",
        "info": "position not measured",
    },
    "format": {
        "bad": "format sensitive",
        "warn": "possibly format sensitive",
        "good": "no format sensitivity found",
        "info": "formats not measured",
    },
    "rule": {
        "bad": "rule sensitive",
        "warn": "possibly rule sensitive",
        "good": "no rule sensitivity found",
        "info": "rules not measured",
    },
}
"""Per aspect, the words of each status."""
_POSITION_FINDING = {
    "bad": "Clever Hans: the score rides on where the answer sits, not on what it says.",
    "warn": "The score may ride on where the answer sits: a figure is above its threshold, its interval is not.",
    "good": "No evidence that the score rides on where the answer sits.",
    "info": "Whether the score rides on where the answer sits was not measured (run answer-moved, cyclic or identity).",
}
"""The finding's sentence per position status."""


@dataclass(frozen=True)
class StressCheck:
    """One figure of the verdict against its threshold."""

    aspect: str
    """What it is evidence of: ``position``, ``format`` or ``rule``."""
    name: str
    """The figure in words (``answer-moved gap``)."""
    estimate: Estimate
    """Its value and interval; NaN with ``n`` 0 when not measured (the method says what to run)."""
    threshold: float
    """The value it must clear (one of this module's ``*_THRESHOLD`` constants)."""
    status: str
    """``bad`` (interval above the threshold), ``warn`` (value above, interval not), ``good``, or ``info`` (not
    measured)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "aspect": self.aspect,
            "name": self.name,
            "estimate": self.estimate.to_dict(),
            "threshold": self.threshold,
            "status": self.status,
        }

    @classmethod
    def from_fields(cls, fields: Fields) -> StressCheck:
        """The check that :meth:`to_dict` wrote, every value's type checked (a wrong one named by its field path).

        Raises:
            ReaderError: a value of the wrong type, or a status that is none of ``bad``, ``warn``, ``good``, ``info``.
        """
        return cls(
            aspect=fields.string("aspect"),
            name=fields.string("name"),
            estimate=fields.estimate("estimate"),
            threshold=fields.number("threshold"),
            status=_status(fields),
        )


@dataclass(frozen=True)
class StressVerdict:
    """What the stress run decides: a label, a board status, one sentence, and the checks they rest on."""

    label: str
    """Each aspect in words (``position dependent; formats not measured; no rule sensitivity found``)."""
    status: str
    """The board status (``bad``, ``warn``, ``good``, ``info``): the most severe of the measured checks."""
    finding: str
    """The finding in one sentence, position first."""
    headline: str
    """The figure that decided, with its interval and threshold
    (``answer-moved gap 1.000 [1.000, 1.000], above 0.100``)."""
    checks: tuple[StressCheck, ...]
    """Every check, measured or not."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "label": self.label,
            "status": self.status,
            "finding": self.finding,
            "headline": self.headline,
            "checks": [check.to_dict() for check in self.checks],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>", path: str = "") -> StressVerdict:
        """The verdict that :meth:`to_dict` wrote.

        Raises:
            ReaderError: a value of the wrong type, or a status that is none of ``bad``, ``warn``, ``good``, ``info``
                (named by ``source`` and its field path: ``verdict.checks[1].status``).
        """
        return cls.from_fields(Fields(data, source, path))

    @classmethod
    def from_fields(cls, fields: Fields) -> StressVerdict:
        """The verdict at ``fields`` (see :meth:`from_dict`)."""
        return cls(
            label=fields.string("label"),
            status=_status(fields),
            finding=fields.string("finding"),
            headline=fields.string("headline"),
            checks=tuple(StressCheck.from_fields(entry) for entry in fields.records("checks")),
        )

    def blocks(self) -> tuple[Block, ...]:
        """The finding as a verdict paragraph, then each check with its interval and threshold."""
        rows = tuple(
            (
                check.aspect,
                check.name,
                _WORDS[check.status],
                format_estimate(check.estimate.to_dict()),
                format_number(check.threshold),
            )
            for check in self.checks
        )
        tone = {"bad": "bad", "good": "good"}.get(self.status, "")
        return (
            Text(self.finding, tone=tone),
            Table(
                "Verdict checks",
                ("aspect", "figure", "against the threshold", "value [CI]", "threshold"),
                rows,
                text_columns=3,
            ),
        )


_WORDS = {"bad": "above (interval)", "warn": "above (value only)", "good": "below", "info": "not measured"}
"""How a check's status reads in the checks table."""


def _status(fields: Fields) -> str:
    """The ``status`` at ``fields``: one of :data:`_ORDER`."""
    value = fields.string("status")
    if value not in _ORDER:
        raise fields.error("status", f"expected one of {', '.join(_ORDER)}, found {value!r}")
    return value


def judge(accuracies: Sequence[VariantAccuracy], analyses: Sequence[Analysis], rule: str = "") -> StressVerdict:
    """The verdict of a stress run from its accuracies and analyses (computed by :func:`~pfungst.stress.suite.stress`
    and when a file without a verdict is read).

    Args:
        accuracies: The run's accuracy per perturbation and variant (the ``rules`` entries give the rule spread).
        analyses: The run's analyses (answer-moved, selection bias, circular, format spread).
        rule: The main scoring rule; the plain pass's selection bias under it is used (any rule when empty).
    """
    checks = (*_position_checks(analyses, rule), _format_check(analyses), _rule_check(accuracies))
    statuses = {aspect: _worst([c.status for c in checks if c.aspect == aspect]) for aspect in _ASPECTS}
    label = "; ".join(_ASPECTS[aspect][status] for aspect, status in statuses.items())
    finding = _POSITION_FINDING[statuses["position"]]
    others = [_ASPECTS[a][s] for a, s in statuses.items() if a != "position" and s in ("bad", "warn")]
    if others:
        finding = finding.removesuffix(".") + f"; and the model is {' and '.join(others)}."
    return StressVerdict(label, _worst(list(statuses.values())), finding, _headline(checks), checks)


def _position_checks(analyses: Sequence[Analysis], rule: str) -> list[StressCheck]:
    moved = _find(analyses, MovedAnswerAccuracy)
    bias = _find(analyses, SelectionBias, perturbation="identity", by="position", rule=rule or None)
    circular = _find(analyses, CircularMetrics, perturbation="cyclic") or _find(analyses, CircularMetrics)
    return [
        _check(
            "position",
            "answer-moved gap",
            moved.gap if moved else _unmeasured("answer-moved"),
            ANSWER_MOVED_GAP_THRESHOLD,
        ),
        _check("position", "RStd by position", bias.rstd if bias else _unmeasured("identity"), RSTD_THRESHOLD),
        _check(
            "position",
            "plain - circular accuracy",
            _difference(circular.plain, circular.circular, "plain - circular") if circular else _unmeasured("cyclic"),
            CIRCULAR_DROP_THRESHOLD,
        ),
    ]


def _format_check(analyses: Sequence[Analysis]) -> StressCheck:
    spread = _find(analyses, FormatSpread)
    return _check(
        "format", "format spread", spread.spread if spread else _unmeasured("formats"), FORMAT_SPREAD_THRESHOLD
    )


def _rule_check(accuracies: Sequence[VariantAccuracy]) -> StressCheck:
    """Best minus worst accuracy over the rules compared (the base format's), with the conservative interval of
    two Wilson intervals (covers at least at their level when both do)."""
    by_rule = [entry.accuracy for entry in accuracies if entry.perturbation == "rules"]
    by_rule = [a for a in by_rule if not math.isnan(a.value)]
    if len(by_rule) < 2:
        return _check("rule", "rule spread", _unmeasured("rules with two --rules"), RULE_SPREAD_THRESHOLD)
    best = max(by_rule, key=lambda a: a.value)
    worst = min(by_rule, key=lambda a: a.value)
    return _check("rule", "rule spread", _difference(best, worst, "best - worst rule"), RULE_SPREAD_THRESHOLD)


def _difference(first: Estimate, second: Estimate, what: str) -> Estimate:
    """``first - second``, its interval from the two intervals' far ends (conservative)."""
    ci = None
    if first.ci is not None and second.ci is not None:
        ci = ConfidenceInterval(first.ci.low - second.ci.high, first.ci.high - second.ci.low, first.ci.level)
    method = f"{what} accuracy; interval from the two Wilson intervals' far ends (conservative)"
    return Estimate(value=first.value - second.value, method=method, n=min(first.n, second.n), ci=ci, baseline=0.0)


def _unmeasured(perturbation: str) -> Estimate:
    return Estimate(value=math.nan, method=f"not measured: run the {perturbation} perturbation", n=0)


def _check(aspect: str, name: str, estimate: Estimate, threshold: float) -> StressCheck:
    if math.isnan(estimate.value):
        status = "info"
    elif estimate.ci is not None and estimate.ci.low > threshold:
        status = "bad"
    elif estimate.value > threshold:
        status = "warn"
    else:
        status = "good"
    return StressCheck(aspect, name, estimate, threshold, status)


def _worst(statuses: Sequence[str]) -> str:
    measured = [status for status in statuses if status != "info"]
    return min(measured, key=_ORDER.index) if measured else "info"


def _headline(checks: Sequence[StressCheck]) -> str:
    """The most severe measured check (position first on ties) as a figure against its threshold."""
    measured = [check for check in checks if check.status != "info"]
    if not measured:
        return "no position, format or rule check measured"
    lead = min(measured, key=lambda check: _ORDER.index(check.status))
    side = "above" if lead.estimate.value > lead.threshold else "not above"
    return f"{lead.name} {format_estimate(lead.estimate.to_dict())}, {side} {format_number(lead.threshold)}"


def _find(analyses: Sequence[Analysis], kind: type[Any], **keys: str | None) -> Any:
    """The result of the first analysis of ``kind`` with the keys given; None when the run has none."""
    return next((analysis.result for analysis in analyses if analysis.matches(kind, **keys)), None)
