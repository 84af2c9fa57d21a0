"""Per-item shortcut flags: which items a shortcut solves, one row per item, every flag with its evidence.

An audit's estimates say how far a shortcut goes on the whole benchmark; a maintainer who wants to fix the items
needs to know *which* ones. :class:`ItemFlags` is that table, one :class:`FlagColumn` per shortcut:

- ``options-only`` (per-item choices): the cross-fitted probe that reads the options alone (no question, no
  position; the strongest of those the audit ran) predicts the gold option out of fold (repeat 0, the prediction
  every per-item table shows; the evidence gives the probe's out-of-fold gold probability,
  :attr:`~pfungst.audit.probe_outcome.ProbeOutcome.gold_probability`, and in how many repeats it was right);
- ``probe`` (shared labels, which have no options): the same for the verdict's probe;
- ``heuristic``: the strongest content heuristic (longest or shortest option; HANS lexical overlap or subsequence
  for NLI items) picks the gold answer;
- ``gold-position`` (per-item choices): the gold sits in the position most often gold in the other folds (the
  cross-fitted gold-position heuristic);
- ``wrong-key``: the validity screen of several models' outcomes suspects the key (added by the reliance stage,
  :func:`pfungst.reliance.validity.wrong_key_flags`, since the audit sees no model).

Every column carries its base rate: how many items it flags against how many guessing would (``share`` with an exact
binomial interval, its ``baseline`` the chance share, a one-sided binomial test), so that "solvable from the options
alone in 260 of 1000 items" is read against the 250 expected by chance. Computed once by
:func:`pfungst.audit.audit` (:func:`item_flags`); reports render it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pfungst.audit.verdict import verdict_label
from pfungst.blocks import Block, Table, format_estimate, format_number
from pfungst.schema import Fields
from pfungst.stats import (
    ConfidenceInterval,
    Estimate,
    binomial_pvalue,
    bonferroni_level,
    bonferroni_pvalue,
    clopper_pearson_interval,
)

__all__ = ["FlagColumn", "ItemFlags", "flag_share"]


def flag_share(count: int, n: int, expected: float, level: float = 0.95, candidates: int = 1) -> Estimate:
    """``count`` flagged of ``n`` items as a share with an exact binomial (Clopper-Pearson) interval, against the
    ``expected`` count of chance (the ``baseline`` share, tested one-sided; NaN where no chance level applies).

    A flag raised by the strongest of several ``candidates`` (probes, heuristics) was picked for being strong: its
    interval and p-value are Bonferroni-corrected over them, as the verdict's are over its feature sets.

    Example:
        >>> share = flag_share(30, 100, 25.0)
        >>> share.value, share.baseline, round(share.pvalue, 3)
        (0.3, 0.25, 0.15)
        >>> round(flag_share(30, 100, 25.0, candidates=2).ci.level, 3)
        0.975
    """
    baseline = expected / n if n and not math.isnan(expected) else math.nan
    coverage = bonferroni_level(level, candidates)
    pvalue = binomial_pvalue(count, n, baseline, "greater") if not math.isnan(baseline) else math.nan
    among = f"; Bonferroni over the {candidates} candidates the strongest was picked from" if candidates > 1 else ""
    return Estimate(
        value=count / n if n else math.nan,
        method="share of items flagged; exact binomial (Clopper-Pearson) interval; one-sided binomial test against "
        f"the share chance would flag{among}",
        n=n,
        ci=clopper_pearson_interval(count, n, coverage) if n else ConfidenceInterval(math.nan, math.nan, coverage),
        pvalue=bonferroni_pvalue(pvalue, candidates) if candidates > 1 and not math.isnan(pvalue) else pvalue,
        baseline=baseline,
    )


@dataclass(frozen=True)
class FlagColumn:
    """One shortcut's flag on every item, with the evidence behind each flag and the flag's base rate."""

    code: str
    """Stable id: ``options-only``, ``probe``, ``heuristic``, ``gold-position`` or ``wrong-key``."""
    title: str
    """The flag in words: ``solvable from the options alone``."""
    source: str
    """What raised it: the feature set, the heuristic's name, or ``validity``."""
    flagged: tuple[bool, ...]
    """Per item (in :attr:`ItemFlags.item_ids` order), whether the shortcut solves it."""
    evidence: tuple[str, ...]
    """Per item, why it is flagged in words (``predicted B = gold out of fold in 5 of 5 repeats``); empty where not
    flagged."""
    share: Estimate
    """Flagged items over all items (:func:`flag_share`): exact interval, chance share as ``baseline``, p-value."""
    threshold: float
    """The audit's verdict threshold, read on the chance-corrected share (:attr:`certainty`); NaN where no chance
    level applies (``wrong-key``)."""
    method: str
    """How the flag is decided, in words."""
    fix: str
    """What a benchmark maintainer should do about the flagged items."""

    @property
    def count(self) -> int:
        """Items flagged."""
        return sum(self.flagged)

    @property
    def n(self) -> int:
        """Items examined."""
        return len(self.flagged)

    @property
    def expected(self) -> float:
        """Items chance would flag (NaN where no chance level applies)."""
        return self.share.baseline * self.n

    @property
    def corrected(self) -> ConfidenceInterval | None:
        """The share's interval corrected for chance, ``(share - baseline) / (1 - baseline)``; None without one."""
        base, ci = self.share.baseline, self.share.ci
        if math.isnan(base) or base >= 1 or ci is None:
            return None
        return ConfidenceInterval((ci.low - base) / (1 - base), (ci.high - base) / (1 - base), ci.level)

    @property
    def certainty(self) -> str:
        """The verdict's states on the chance-corrected share against :attr:`threshold`: ``predictable`` (lower
        bound above it), ``inconclusive`` (the interval spans it), ``signal below threshold`` (above chance, the
        lower bound above 0, but a shortcut as large as the threshold ruled out) or ``no evidence`` (the interval
        reaches chance). Without a chance level, ``found`` when any item is flagged (each was tested on its own) and
        ``no evidence`` otherwise.

        Example:
            >>> def column(count):
            ...     share = flag_share(count, 10000, 2500.0)
            ...     return FlagColumn("heuristic", "t", "s", (True,) * 10000, ("",) * 10000, share, 0.2, "m", "f")
            >>> column(2500).certainty, column(2900).certainty, column(5000).certainty
            ('no evidence', 'signal below threshold', 'predictable')
        """
        interval = self.corrected
        if interval is None or math.isnan(self.threshold):
            return "found" if self.count else "no evidence"
        label = verdict_label(interval, self.threshold)
        return "signal below threshold" if label == "no evidence" and interval.low > 0 else label

    def to_dict(self, item_ids: Sequence[str]) -> dict[str, Any]:
        """A JSON-safe dict: the column's facts and its flagged items (id and evidence); ``item_ids`` name the rows."""
        return {
            "code": self.code,
            "title": self.title,
            "source": self.source,
            "count": self.count,
            "n": self.n,
            "expected": None if math.isnan(self.expected) else self.expected,
            "certainty": self.certainty,
            "share": self.share.to_dict(),
            "threshold": None if math.isnan(self.threshold) else self.threshold,
            "method": self.method,
            "fix": self.fix,
            "flagged": [
                {"item_id": item_id, "evidence": why}
                for item_id, hit, why in zip(item_ids, self.flagged, self.evidence, strict=True)
                if hit
            ],
        }

    @classmethod
    def from_fields(cls, fields: Fields, item_ids: Sequence[str]) -> FlagColumn:
        """Read :meth:`to_dict` back onto the rows ``item_ids``.

        Raises:
            ReaderError: a wrong type, a missing key, or a flagged id that is no item.
        """
        row = {item_id: index for index, item_id in enumerate(item_ids)}
        flagged, evidence = [False] * len(item_ids), [""] * len(item_ids)
        for number, record in enumerate(fields.records("flagged")):
            item_id = record.string("item_id")
            if item_id not in row:
                raise fields.error(f"flagged[{number}].item_id", f"{item_id!r} is not an item of 'item_ids'")
            flagged[row[item_id]], evidence[row[item_id]] = True, record.string("evidence")
        threshold = fields.number("threshold") if fields.raw("threshold") is not None else math.nan
        return cls(
            code=fields.string("code"),
            title=fields.string("title"),
            source=fields.string("source"),
            flagged=tuple(flagged),
            evidence=tuple(evidence),
            share=fields.estimate("share"),
            threshold=threshold,
            method=fields.string("method"),
            fix=fields.string("fix"),
        )


@dataclass(frozen=True)
class ItemFlags:
    """Every shortcut flag of one benchmark's items: one row per item, one :class:`FlagColumn` per shortcut.

    Example:
        >>> column = FlagColumn("heuristic", "solved by the longest option", "longest_option", (True, False),
        ...                     ("picks A = gold", ""), flag_share(1, 2, 0.5), 0.2, "rule", "rewrite")
        >>> flags = ItemFlags(("q1", "q2"), (column,))
        >>> flags.flagged_ids("heuristic")
        ('q1',)
        >>> list(flags.to_frame().columns)
        ['item_id', 'n_flags', 'heuristic', 'heuristic.evidence']
    """

    item_ids: tuple[str, ...]
    """The items, in benchmark order."""
    columns: tuple[FlagColumn, ...]
    """One column per shortcut, in the order above (a shortcut the audit did not run has none)."""

    def __post_init__(self) -> None:
        for column in self.columns:
            if column.n != len(self.item_ids):
                raise ValueError(f"flag {column.code!r} has {column.n} rows; the table has {len(self.item_ids)} items")

    def __iter__(self) -> Iterator[FlagColumn]:
        return iter(self.columns)

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes of the columns held, in order."""
        return tuple(column.code for column in self.columns)

    def __getitem__(self, code: str) -> FlagColumn:
        """The column with ``code``.

        Raises:
            KeyError: naming the codes held.
        """
        for column in self.columns:
            if column.code == code:
                return column
        raise KeyError(f"No flag {code!r}. Held: {', '.join(self.codes) or 'none'}.")

    def flagged_ids(self, code: str) -> tuple[str, ...]:
        """The ids of the items the flag ``code`` marks, in item order."""
        column = self[code]
        return tuple(item_id for item_id, hit in zip(self.item_ids, column.flagged, strict=True) if hit)

    def with_column(self, column: FlagColumn) -> ItemFlags:
        """These flags with ``column`` added (replacing one of the same code)."""
        kept = tuple(existing for existing in self.columns if existing.code != column.code)
        return ItemFlags(self.item_ids, (*kept, column))

    def blocks(self) -> tuple[Block, ...]:
        """Its part of the audit's chapter: one row per flag with its count against chance and its state (the ids
        are in the JSON, ``to_frame()`` and ``--findings``)."""
        rows = tuple(
            (
                column.title,
                column.source,
                f"{column.count} of {column.n}",
                format_estimate(column.share.to_dict()),
                format_number(column.expected, 1),
                column.certainty,
            )
            for column in self.columns
        )
        columns = ("flag", "raised by", "items", "share [interval]", "chance would flag", "state")
        note = "; ".join(dict.fromkeys(column.share.method for column in self.columns))
        return (Table("Items each shortcut solves", columns, rows, text_columns=2, note=note),)

    def to_frame(self) -> pd.DataFrame:
        """Tidy: one row per item, with how many flags it has, then each flag and its evidence."""
        frame = pd.DataFrame({"item_id": list(self.item_ids)})
        frame["n_flags"] = np.sum([column.flagged for column in self.columns], axis=0, dtype=int) if self.columns else 0
        for column in self.columns:
            frame[column.code] = list(column.flagged)
            frame[f"{column.code}.evidence"] = list(column.evidence)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: the item ids once, then each column with its flagged items."""
        return {"item_ids": list(self.item_ids), "columns": [column.to_dict(self.item_ids) for column in self.columns]}

    @classmethod
    def from_fields(cls, fields: Fields) -> ItemFlags:
        """Read :meth:`to_dict` back from checked fields."""
        item_ids = fields.typed("item_ids", tuple[str, ...])
        return cls(item_ids, tuple(FlagColumn.from_fields(record, item_ids) for record in fields.records("columns")))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ItemFlags:
        """Read :meth:`to_dict` back.

        Raises:
            ReaderError: a value of the wrong type or a missing key, naming ``source`` and the field.
        """
        return cls.from_fields(Fields(data, source))

    def __repr__(self) -> str:
        counts = ", ".join(f"{column.code}={column.count}" for column in self.columns) or "no flags"
        return f"ItemFlags(n={len(self.item_ids)}: {counts})"
