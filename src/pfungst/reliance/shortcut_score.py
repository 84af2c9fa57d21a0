"""One shortcut score per item: every shortcut pfungst measures, joined by item id, and how many solve the item.

The shortcuts (the table's columns), each saying per item whether it answers the item right:

- ``probe:<feature set>``: the audit's verdict (best) probe, or the one ``feature_set`` names, right out of fold in
  more than ``min_share`` of its repeats (:mod:`pfungst.reliance.shortcut`);
- ``probe:options_1-grams_presence``: the classifier choices-only probe (options without the question), where the
  audit ran it and it is not already the probe above;
- ``heuristic:longest_option`` and ``heuristic:gold_position``: the audit's zero-training heuristics (the audit JSON
  holds their per-item rows when written with items, as ``pfungst audit --json`` does); an abstention is no verdict;
- ``model-choices-only:<model>``: a model asked without the question (the ``choices-only`` stress perturbation, read
  from a stress file with :data:`CHOICES_ONLY_VARIANT`), right or wrong per item.

Definition. For item ``i``, ``n_shortcuts(i)`` is the number of shortcuts with a verdict on it and ``n_solving(i)``
the number that answer it right; its **shortcut score** is ``n_solving(i) / n_shortcuts(i)`` (the unweighted share
of shortcuts that solve it, NaN without any verdict). The item is *solvable by some shortcut* when
``n_solving(i) >= 1`` and *solvable by none* when ``n_shortcuts(i) >= 1`` and ``n_solving(i) == 0``; items without
a verdict are left out of the split and counted. A shortcut at chance still "solves" about ``1/K`` of the items by
luck, so the any-shortcut split is a union of true shortcuts and lucky guesses: the per-shortcut splits say which
shortcut carries a difference. A model's own choices-only column is correlated with its full-question answers by
construction (the same model answering nearly the same prompt): read its per-shortcut split as an upper bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from pfungst.audit.result import AuditResult
from pfungst.data.item import FrozenMapping
from pfungst.errors import DataError
from pfungst.reliance.outcomes import ModelOutcomes
from pfungst.reliance.reliance_config import ANY_SHORTCUT
from pfungst.reliance.shortcut import AuditInput, ShortcutItems, read_audit, shortcut_items

__all__ = [
    "ANY_SHORTCUT",
    "CHOICES_ONLY_PROBE",
    "CHOICES_ONLY_VARIANT",
    "HEURISTICS",
    "ShortcutSummary",
    "ShortcutTable",
    "shortcut_table",
]

HEURISTICS = ("longest_option", "gold_position")
"""The audit heuristics joined as shortcuts."""
CHOICES_ONLY_PROBE = "options_1-grams_presence"
"""The audit's classifier choices-only feature set."""
CHOICES_ONLY_VARIANT = "choices-only:choices only"
"""The stress outcomes of the model choices-only probe (``variant=`` of :func:`~pfungst.reliance.read_outcomes`)."""


@dataclass(frozen=True)
class ShortcutSummary:
    """The counts of one dataset's shortcut table, as a result file holds them."""

    dataset: str
    shortcuts: tuple[str, ...]
    n_predicted: tuple[int, ...]
    """Per shortcut, the items it has a verdict on."""
    n_solving: tuple[int, ...]
    """Per shortcut, the items it solves."""
    n_items: int
    """Items with at least one verdict."""
    n_any: int
    """Items some shortcut solves."""
    n_none: int
    """Items with a verdict that no shortcut solves."""
    score_counts: tuple[int, ...]
    """``score_counts[k]``: items solved by exactly ``k`` shortcuts."""
    mean_score: float
    """Mean shortcut score (share of shortcuts solving) over the items with a verdict."""
    definition: str = (
        "score = shortcuts solving the item / shortcuts with a verdict on it; any-shortcut: at least one solves"
    )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "dataset": self.dataset,
            "shortcuts": list(self.shortcuts),
            "n_predicted": list(self.n_predicted),
            "n_solving": list(self.n_solving),
            "n_items": self.n_items,
            "n_any": self.n_any,
            "n_none": self.n_none,
            "score_counts": list(self.score_counts),
            "mean_score": None if math.isnan(self.mean_score) else self.mean_score,
            "definition": self.definition,
        }


@dataclass(frozen=True, eq=False)
class ShortcutTable:
    """One dataset's items with, per shortcut, whether it solves them (absent: no verdict)."""

    base: ShortcutItems
    """The audit's probe split: the dataset, each item's gold class and the chance rate."""
    solved: Mapping[str, Mapping[str, bool]]
    """Shortcut name -> item id -> whether it answers the item right (items it has a verdict on)."""

    @property
    def dataset(self) -> str:
        return self.base.dataset

    @property
    def shortcuts(self) -> tuple[str, ...]:
        return tuple(self.solved)

    def counts(self, item: str) -> tuple[int, int]:
        """``(n_shortcuts, n_solving)`` of one item."""
        verdicts = [column[item] for column in self.solved.values() if item in column]
        return len(verdicts), sum(verdicts)

    def score(self, item: str) -> float:
        """The share of shortcuts with a verdict on ``item`` that solve it (NaN without any)."""
        n, solving = self.counts(item)
        return solving / n if n else math.nan

    def items(self) -> tuple[str, ...]:
        """Items with at least one verdict, in audit order, then the others'."""
        seen = dict.fromkeys(self.base.item_ids)
        for column in self.solved.values():
            seen.update(dict.fromkeys(column))
        return tuple(item for item in seen if self.counts(item)[0])

    def split(self, shortcut: str = ANY_SHORTCUT) -> ShortcutItems:
        """The items ``shortcut`` solves (``any-shortcut``: that some shortcut solves) versus the rest, as the
        reliance analysis reads a probe's split."""
        if shortcut == ANY_SHORTCUT:
            solvable = {item: self.counts(item)[1] >= 1 for item in self.items()}
        elif shortcut in self.solved:
            solvable = dict(self.solved[shortcut])
        else:
            raise DataError(f"{self.dataset}: no shortcut {shortcut!r}; the table has {', '.join(self.shortcuts)}")
        gold = {item: self.base.gold.get(item, "?") for item in solvable}
        probe = shortcut.startswith("probe:")
        return ShortcutItems(
            dataset=self.dataset,
            feature_set=shortcut,
            protocol=self.base.protocol if probe else "shortcut table",
            item_ids=tuple(solvable),
            solvable=FrozenMapping(solvable),
            gold=FrozenMapping(gold),
            chance=self.base.chance,
            kappa=self.base.kappa if shortcut == f"probe:{self.base.feature_set}" else math.nan,
            kappa_pvalue=self.base.kappa_pvalue if shortcut == f"probe:{self.base.feature_set}" else math.nan,
            n_repeats=self.base.n_repeats,
            min_share=self.base.min_share,
            constant=len(set(solvable.values())) <= 1,
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per item with a verdict: gold class, one boolean column per shortcut (NA: no verdict),
        ``n_shortcuts``, ``n_solving``, ``score`` and ``any_shortcut``."""
        rows = []
        for item in self.items():
            n, solving = self.counts(item)
            row: dict[str, Any] = {"item_id": item, "gold": self.base.gold.get(item)}
            row.update({name: column.get(item, pd.NA) for name, column in self.solved.items()})
            row.update(n_shortcuts=n, n_solving=solving, score=solving / n, any_shortcut=solving >= 1)
            rows.append(row)
        frame = pd.DataFrame(rows)
        for name in self.solved:
            if name in frame:
                frame[name] = frame[name].astype("boolean")
        return frame

    def summary(self) -> ShortcutSummary:
        """The table's counts."""
        items = self.items()
        counts = [self.counts(item) for item in items]
        histogram = [0] * (len(self.solved) + 1)
        for _, solving in counts:
            histogram[solving] += 1
        return ShortcutSummary(
            dataset=self.dataset,
            shortcuts=self.shortcuts,
            n_predicted=tuple(len(column) for column in self.solved.values()),
            n_solving=tuple(sum(column.values()) for column in self.solved.values()),
            n_items=len(items),
            n_any=sum(solving >= 1 for _, solving in counts),
            n_none=sum(solving == 0 for _, solving in counts),
            score_counts=tuple(histogram),
            mean_score=sum(s / n for n, s in counts) / len(counts) if counts else math.nan,
        )

    def __repr__(self) -> str:
        summary = self.summary()
        return (
            f"ShortcutTable({self.dataset!r}, {len(self.solved)} shortcuts, {summary.n_any} of {summary.n_items} "
            "items solvable by some shortcut)"
        )


def shortcut_table(
    audit: AuditInput,
    choices_only: Sequence[ModelOutcomes] = (),
    feature_set: str | None = None,
    min_share: float = 0.5,
) -> ShortcutTable:
    """Join one audit's probes and heuristics, and models' choices-only outcomes on its dataset, per item.

    Args:
        audit: An :class:`AuditResult`, the dict of ``pfungst audit --json``, or that file's path.
        choices_only: Per-item outcomes of models asked without the question (``read_outcomes(stress_json,
            format="pfungst-stress", variant=CHOICES_ONLY_VARIANT)``); those naming another dataset are ignored.
        feature_set: The audit probe to use; None for the verdict's (best) probe.
        min_share: A probe solves an item when more than this share of its repeats predicted it right.

    Raises:
        ConfigError: an unknown feature set; DataError: an audit without per-item predictions.

    Example:
        >>> from pfungst.data.synthetic import make_synthetic
        >>> import pfungst
        >>> result = pfungst.audit.audit(make_synthetic("longest-option", 100), feature_sets=("options",),
        ...                        n_bootstrap=20, n_permutations=20, cues=False)
        >>> shortcut_table(result).shortcuts
        ('probe:options', 'heuristic:longest_option', 'heuristic:gold_position')
    """
    loaded = read_audit(audit)
    base = shortcut_items(loaded, feature_set, min_share)
    solved: dict[str, Mapping[str, bool]] = {f"probe:{base.feature_set}": base.solvable}
    if base.feature_set != CHOICES_ONLY_PROBE and CHOICES_ONLY_PROBE in _probe_names(loaded):
        solved[f"probe:{CHOICES_ONLY_PROBE}"] = shortcut_items(loaded, CHOICES_ONLY_PROBE, min_share).solvable
    for name, column in _heuristics(loaded).items():
        solved[f"heuristic:{name}"] = column
    for outcomes in choices_only:
        if outcomes.dataset in ("", base.dataset):
            solved[f"model-choices-only:{outcomes.model}"] = FrozenMapping(dict(outcomes.correct))
    return ShortcutTable(base=base, solved=solved)


def _probe_names(audit: AuditResult) -> list[str]:
    return [probe.feature_set for probe in audit.probes]


def _heuristics(audit: AuditResult) -> dict[str, Mapping[str, bool]]:
    """Per joined heuristic, the items it has a verdict on and whether it is right (abstentions left out)."""
    found: dict[str, Mapping[str, bool]] = {}
    for result in audit.heuristics.results if audit.heuristics else ():
        if result.name in HEURISTICS and result.item_ids:
            found[result.name] = FrozenMapping(
                {
                    item: p == g
                    for item, p, g in zip(result.item_ids, result.predictions, result.gold, strict=True)
                    if p >= 0
                }
            )
    return found
