"""Selection bias: does the model favour an answer position or an answer label, whatever the content?

Zheng et al. (ICLR 2024, "Large Language Models Are Not Robust Multiple Choice Selectors") measure it as RStd, the
standard deviation of the per-ID recalls (x 100): a model that picks the gold option equally well wherever it is
shown has RStd 0; one that always answers "A" on 4-option items with the gold spread evenly has RStd 43.3.
Counting by position or by label separates position bias from token bias when the labels were shuffled.

RStd is blind to a gold distribution that is not uniform: a model that answers every ID equally often on items whose
gold sits mostly at "A" has equal recalls (RStd 0) but a predicted-ID distribution unlike the gold one. CKLD (Choi et
al., ACL 2025, "Mitigating Selection Bias with Node Pruning and Auxiliary Options") measures that: the Kullback-Leibler
divergence ``sum_i p_i log(p_i / q_i)`` of the gold-ID shares ``p`` against the predicted-ID shares ``q``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple

import numpy as np

from pfungst.blocks import Block, Facts, Figure, Table, format_estimate, format_number, format_pvalue, methods_note
from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate, bootstrap_interval, chisquare_test
from pfungst.stress.estimates import shared_baseline
from pfungst.stress.metrics.accuracy import proportion_estimate

__all__ = ["SelectionBias", "selection_bias"]

_BY = ("position", "label")


@dataclass(frozen=True)
class SelectionBias:
    """How unevenly a model chooses among answer IDs (positions or labels), with its test against uniform choice."""

    KIND: ClassVar[str] = "selection-bias"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "Selection bias"
    """The result's heading in reports."""

    by: Literal["position", "label"]
    """What an ID is: an arranged position or the label text shown there."""
    ids: tuple[str, ...]
    """The IDs: 1-based positions (``"1"``, ``"2"``, ...) or labels in natural order (``"A"``, ``"B"``, ...)."""
    recalls: tuple[Estimate, ...]
    """Per ID, the share of items whose gold is at that ID where the model chose it (unanswered items count as
    not chosen); Wilson interval, baseline the mean ``1 / K`` of those items; NaN where no gold is at that ID."""
    rstd: Estimate
    """Population standard deviation of the defined per-ID recalls x 100 (Zheng et al.'s RStd); percentile
    bootstrap interval over items; baseline 0 (no bias)."""
    predicted: tuple[int, ...]
    """How often each ID was chosen (answered items only)."""
    expected: tuple[float, ...]
    """Expected counts under uniform choice: each answered item adds ``1 / K`` to each of its ``K`` IDs."""
    uniformity: Estimate
    """Chi-squared goodness-of-fit test of ``predicted`` against ``expected`` (the statistic and its p-value)."""
    top_share: Estimate
    """Share of answered items choosing the most chosen ID, Wilson interval, baseline that ID's expected share."""
    n_unanswered: int
    """Items whose status is not ``ok`` (refused or unparseable generations)."""
    ckld: Estimate
    """CKLD (Choi et al. 2025): KL divergence ``sum_i p_i log(p_i / q_i)`` in nats of the gold-ID shares ``p`` from
    the predicted-ID shares ``q`` of the answered items, ``q`` smoothed by adding 0.5 to every ID's count so an ID
    never chosen keeps it finite; percentile bootstrap interval over items; baseline 0 (predictions distributed like
    the gold)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "by": self.by,
            "ids": list(self.ids),
            "recalls": [recall.to_dict() for recall in self.recalls],
            "rstd": self.rstd.to_dict(),
            "predicted": list(self.predicted),
            "expected": list(self.expected),
            "uniformity": self.uniformity.to_dict(),
            "top_share": self.top_share.to_dict(),
            "n_unanswered": self.n_unanswered,
            "ckld": self.ckld.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> SelectionBias:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """RStd, the favourite's share and the uniformity test; recall per ID as a table and as bars."""
        recalls = [recall.to_dict() for recall in self.recalls]
        uniformity, top = self.uniformity.to_dict(), self.top_share.to_dict()
        facts = Facts(
            (
                ("RStd (std of recalls x 100)", format_estimate(self.rstd.to_dict(), 1)),
                ("CKLD (gold-ID from predicted-ID shares, nats)", format_estimate(self.ckld.to_dict(), 3)),
                ("top share", f"{format_estimate(top)}, chance {format_number(top.get('baseline'))}"),
                (
                    "choices uniform",
                    f"chi-squared {format_number(uniformity.get('value'), 2)}, "
                    f"p {format_pvalue(uniformity.get('pvalue'))}",
                ),
                ("unanswered", format_number(self.n_unanswered)),
            )
        )
        rows = tuple(
            (
                name,
                format_estimate(recall),
                format_number(recall.get("baseline")),
                format_number(self.predicted[k] if k < len(self.predicted) else None),
                format_number(self.expected[k] if k < len(self.expected) else None, 1),
                format_number(recall.get("n")),
            )
            for k, (name, recall) in enumerate(zip(self.ids, recalls, strict=False))
        )
        table = Table(
            f"Recall per {self.by} (share of the items whose gold is there that the model answered right)",
            (self.by, "recall [CI]", "chance", "chosen", "expected", "items"),
            rows,
            note=methods_note([*recalls, self.rstd.to_dict(), self.ckld.to_dict(), top, uniformity]),
        )
        data = {"labels": list(self.ids), "estimates": recalls, "references": shared_baseline(self.recalls)}
        figure = Figure("bars", f"Recall per {self.by} (95% intervals)", {**data, "axis": "recall"})
        return facts, table, figure

    def __repr__(self) -> str:
        return (
            f"SelectionBias(by={self.by!r}, rstd={self.rstd.value:.2f}, ckld={self.ckld.value:.3f}, "
            f"uniformity p={self.uniformity.pvalue:.3g}, n={self.rstd.n}, n_unanswered={self.n_unanswered})"
        )


class _Coded(NamedTuple):
    """The outcomes as ID indices: one entry per item."""

    ids: tuple[str, ...]
    gold: np.ndarray  # ID index of the gold option
    chosen: np.ndarray  # ID index of the chosen option; -1 when unanswered
    members: list[list[int]]  # ID indices the item showed
    n_options: np.ndarray


def selection_bias(
    outcomes: Sequence[Outcome],
    *,
    by: Literal["position", "label"] = "position",
    seed: int,
    n_bootstrap: int = 1000,
    level: float = 0.95,
) -> SelectionBias:
    """Per-ID recalls, RStd, chosen-ID counts against uniform choice, and the share of the favourite ID.

    Args:
        outcomes: One outcome per item (one variant, rule and format).
        by: ``"position"`` counts arranged positions; ``"label"`` counts the label text at the gold and chosen
            positions (with shuffled labels this is token bias, apart from position bias).
        seed: Seed of the bootstrap resampling of items.
        n_bootstrap: Bootstrap resamples for the RStd interval.
        level: Coverage of every interval.

    Raises:
        ConfigError: ``by`` is unknown, there are no outcomes, or an item appears more than once.

    Example:
        >>> outcomes = [Outcome(item_id=f"q{gold}", perturbation="identity", variant="identity", rule="letter",
        ...                     format="mmlu", order=(0, 1), labels=("A", "B"), gold=gold, chosen=0,
        ...                     chosen_position=0, status="ok", scores=(0.0, -1.0)) for gold in (0, 1)]
        >>> bias = selection_bias(outcomes, seed=0)
        >>> bias.ids, [recall.value for recall in bias.recalls], bias.rstd.value, bias.predicted
        (('1', '2'), [1.0, 0.0], 50.0, (2, 0))
    """
    if by not in _BY:
        raise ConfigError(f"selection_bias counts by 'position' or 'label', not {by!r}. Pass by='position' or 'label'.")
    _check_one_per_item(outcomes)
    coded = _code_positions(outcomes) if by == "position" else _code_labels(outcomes)
    m = len(coded.ids)
    hit = (coded.chosen == coded.gold).astype(float)
    recalls = tuple(_recall(coded, hit, index, level) for index in range(m))
    rstd_value = _rstd(coded.gold, hit, m, np.arange(len(coded.gold)))
    ci = bootstrap_interval(
        lambda idx: _rstd(coded.gold, hit, m, idx), len(coded.gold), n_resamples=n_bootstrap, seed=seed, level=level
    )
    rstd = Estimate(
        value=rstd_value,
        method=f"population std of per-{by} recall x 100; bootstrap over items",
        n=len(coded.gold),
        ci=ci,
        baseline=0.0,
    )
    answered = coded.chosen >= 0
    predicted = np.bincount(coded.chosen[answered], minlength=m)
    expected = np.zeros(m)
    for members, k, is_answered in zip(coded.members, coded.n_options, answered, strict=True):
        if is_answered:
            expected[members] += 1.0 / k
    uniformity = chisquare_test(predicted.tolist(), expected.tolist(), f"chosen {by}s against uniform choice")
    return SelectionBias(
        by=by,
        ids=coded.ids,
        recalls=recalls,
        rstd=rstd,
        predicted=tuple(int(count) for count in predicted),
        expected=tuple(float(count) for count in expected),
        uniformity=uniformity,
        top_share=_top_share(predicted, expected, level),
        n_unanswered=sum(outcome.status != "ok" for outcome in outcomes),
        ckld=_ckld_estimate(coded, by, seed=seed, n_bootstrap=n_bootstrap, level=level),
    )


def _check_one_per_item(outcomes: Sequence[Outcome]) -> None:
    if not outcomes:
        raise ConfigError("selection_bias needs outcomes, but none were given. Pass one outcome per item.")
    seen: set[str] = set()
    for outcome in outcomes:
        if outcome.item_id in seen:
            raise ConfigError(
                f"selection_bias needs one outcome per item, but item '{outcome.item_id}' appears more than once. "
                "Pass the outcomes of a single variant, rule and format."
            )
        seen.add(outcome.item_id)


def _answered_position(outcome: Outcome) -> int:
    return outcome.chosen_position if outcome.status == "ok" else -1


def _code_positions(outcomes: Sequence[Outcome]) -> _Coded:
    k_max = max(outcome.n_options for outcome in outcomes)
    return _Coded(
        ids=tuple(str(position + 1) for position in range(k_max)),
        gold=np.array([outcome.gold_position for outcome in outcomes], dtype=int),
        chosen=np.array([_answered_position(outcome) for outcome in outcomes], dtype=int),
        members=[list(range(outcome.n_options)) for outcome in outcomes],
        n_options=np.array([outcome.n_options for outcome in outcomes], dtype=int),
    )


def _natural_key(label: str) -> list[str | int]:
    # re.split with a group alternates text and digit runs, so keys compare text with text and numbers with numbers.
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", label)]


def _code_labels(outcomes: Sequence[Outcome]) -> _Coded:
    ids = tuple(sorted({label for outcome in outcomes for label in outcome.labels}, key=_natural_key))
    index = {label: number for number, label in enumerate(ids)}
    chosen = [_answered_position(outcome) for outcome in outcomes]
    return _Coded(
        ids=ids,
        gold=np.array([index[outcome.gold_label] for outcome in outcomes], dtype=int),
        chosen=np.array(
            [
                index[outcome.labels[position]] if position >= 0 else -1
                for outcome, position in zip(outcomes, chosen, strict=True)
            ],
            dtype=int,
        ),
        members=[[index[label] for label in outcome.labels] for outcome in outcomes],
        n_options=np.array([outcome.n_options for outcome in outcomes], dtype=int),
    )


def _recall(coded: _Coded, hit: np.ndarray, index: int, level: float) -> Estimate:
    at = coded.gold == index
    n = int(at.sum())
    chance = float(np.mean(1.0 / coded.n_options[at])) if n else math.nan
    return proportion_estimate(int(hit[at].sum()), n, baseline=chance, level=level)


def _rstd(gold: np.ndarray, hit: np.ndarray, m: int, idx: np.ndarray) -> float:
    counts = np.bincount(gold[idx], minlength=m)
    hits = np.bincount(gold[idx], weights=hit[idx], minlength=m)
    defined = counts > 0
    if not defined.any():
        return math.nan
    return float(np.std(hits[defined] / counts[defined]) * 100.0)


def _ckld_estimate(coded: _Coded, by: str, *, seed: int, n_bootstrap: int, level: float) -> Estimate:
    """CKLD of all items, with its bootstrap interval over items (baseline 0)."""
    m, n = len(coded.ids), len(coded.gold)
    return Estimate(
        value=_ckld(coded, m, np.arange(n)),
        method=f"KL divergence of gold-{by} from predicted-{by} shares (+0.5 smoothing); bootstrap over items",
        n=int((coded.chosen >= 0).sum()),
        ci=bootstrap_interval(lambda idx: _ckld(coded, m, idx), n, n_resamples=n_bootstrap, seed=seed, level=level),
        baseline=0.0,
    )


def _ckld(coded: _Coded, m: int, idx: np.ndarray) -> float:
    """CKLD of the items ``idx`` that were answered: ``sum_i p_i log(p_i / q_i)``, ``q`` from counts + 0.5."""
    answered = idx[coded.chosen[idx] >= 0]
    if not answered.size:
        return math.nan
    gold = np.bincount(coded.gold[answered], minlength=m) / answered.size
    predicted = np.bincount(coded.chosen[answered], minlength=m) + 0.5
    predicted = predicted / predicted.sum()
    present = gold > 0
    return float(np.sum(gold[present] * np.log(gold[present] / predicted[present])))


def _top_share(predicted: np.ndarray, expected: np.ndarray, level: float) -> Estimate:
    n = int(predicted.sum())
    if n == 0:
        return proportion_estimate(0, 0, level=level)
    top = int(np.argmax(predicted))
    return proportion_estimate(int(predicted[top]), n, baseline=float(expected[top] / expected.sum()), level=level)
