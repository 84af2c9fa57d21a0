"""Item findings: what is wrong with which items of a benchmark (duplicates, broken items), each with its ids.

A finding is a fact about the data a benchmark maintainer can act on: its stable ``code`` (``exact-duplicate``,
``key-at-two-positions``, ...), how many items it affects out of how many examined (a share with an exact binomial
interval), every affected item id in item order, the groups for duplicate-like findings, how it was found and
what to fix. :class:`ItemFindings` holds the findings of one benchmark with the settings that found them.

Example:
    >>> finding = ItemFinding.of(
    ...     "empty-option", "empty options", ("q2",), 4, method="an option that is empty after stripping",
    ...     fix="write the missing option or drop it")
    >>> finding.count, finding.share.value, finding.item_ids
    (1, 0.25, ('q2',))
    >>> ItemFinding.from_dict(finding.to_dict()) == finding
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from pfungst.data.item import FrozenMapping
from pfungst.schema import Fields
from pfungst.stats import Estimate, clopper_pearson_interval

__all__ = ["FINDING_CODES", "ItemFinding", "ItemFindings"]

FINDING_CODES: tuple[str, ...] = (
    "exact-duplicate",
    "near-duplicate",
    "cross-split-overlap",
    "conflicting-keys",
    "key-at-two-positions",
    "duplicate-options",
    "empty-option",
    "options-equal-up-to-case",
    "all-or-none-of-the-above",
    "answer-outside-options",
)
"""Every finding code, in the order results list them (duplicates first, then broken items)."""


def _share(count: int, n: int) -> Estimate:
    value = count / n if n else float("nan")
    return Estimate(value=value, method="exact binomial (Clopper-Pearson)", n=n, ci=clopper_pearson_interval(count, n))


@dataclass(frozen=True)
class ItemFinding:
    """One kind of problem found in a benchmark's items: how many, which ones, how found, and what to do."""

    code: str
    """Stable id of the kind of finding, one of :data:`FINDING_CODES` (``exact-duplicate``, ``empty-option``, ...)."""
    title: str
    """The finding in words, for a heading or a console line (``exact duplicates``)."""
    count: int
    """Items affected (every member of a duplicate group counts, the first one included)."""
    n: int
    """Items examined."""
    share: Estimate
    """``count / n`` with an exact binomial (Clopper-Pearson) 95% interval."""
    item_ids: tuple[str, ...]
    """Every affected item id, in item order."""
    groups: tuple[tuple[str, ...], ...] = ()
    """For duplicate-like findings, the groups of items that are copies of each other (ids in item order, groups
    ordered by their first item); empty for other findings."""
    breakdown: Mapping[str, int] = field(default_factory=FrozenMapping)
    """Affected items split by where they lie, e.g. ``{"within subject": 120, "across subjects": 53}``, or by
    position for ``all-or-none-of-the-above``; empty when no split applies."""
    method: str = ""
    """How it was found, in words, with its thresholds and normalisation."""
    fix: str = ""
    """What a benchmark maintainer should do about it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "item_ids", tuple(self.item_ids))
        object.__setattr__(self, "groups", tuple(tuple(group) for group in self.groups))
        if not isinstance(self.breakdown, FrozenMapping):
            object.__setattr__(self, "breakdown", FrozenMapping(self.breakdown))

    @classmethod
    def of(
        cls,
        code: str,
        title: str,
        item_ids: Iterable[str],
        n: int,
        *,
        groups: Iterable[Iterable[str]] = (),
        breakdown: Mapping[str, int] | None = None,
        method: str = "",
        fix: str = "",
    ) -> ItemFinding:
        """A finding whose count and share follow from its ids (``count = len(item_ids)``)."""
        ids = tuple(item_ids)
        return cls(
            code=code,
            title=title,
            count=len(ids),
            n=n,
            share=_share(len(ids), n),
            item_ids=ids,
            groups=tuple(tuple(group) for group in groups),
            breakdown=FrozenMapping(breakdown or {}),
            method=method,
            fix=fix,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "code": self.code,
            "title": self.title,
            "count": self.count,
            "n": self.n,
            "share": self.share.to_dict(),
            "item_ids": list(self.item_ids),
            "groups": [list(group) for group in self.groups],
            "breakdown": dict(self.breakdown),
            "method": self.method,
            "fix": self.fix,
        }

    @classmethod
    def from_fields(cls, fields: Fields) -> ItemFinding:
        """Read :meth:`to_dict` back from checked fields."""
        return cls(
            code=fields.string("code"),
            title=fields.string("title"),
            count=fields.integer("count"),
            n=fields.integer("n"),
            share=fields.estimate("share"),
            item_ids=fields.typed("item_ids", tuple[str, ...]),
            groups=fields.typed("groups", tuple[tuple[str, ...], ...]),
            breakdown=fields.typed("breakdown", dict[str, int]),
            method=fields.string("method"),
            fix=fields.string("fix"),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ItemFinding:
        """Read :meth:`to_dict` back.

        Raises:
            ReaderError: a value of the wrong type or a missing key, naming ``source`` and the field.
        """
        return cls.from_fields(Fields(data, source))

    def __repr__(self) -> str:
        return f"ItemFinding({self.code!r}, count={self.count}, n={self.n}, groups={len(self.groups)})"


@dataclass(frozen=True)
class ItemFindings:
    """Every item finding of one benchmark, with the settings that found them.

    A finding kind with no affected item is still listed (count 0), so "none found" is a result, not an absence.
    """

    findings: tuple[ItemFinding, ...]
    """The findings, in :data:`FINDING_CODES` order."""
    n: int
    """Items examined."""
    near_duplicate_threshold: float
    """Estimated Jaccard similarity of word shingles at or above which two items are near-duplicates."""
    seed: int
    """Seed of the MinHash permutations (near-duplicate candidates depend on it, very rarely)."""
    FRAME_COLUMNS: ClassVar[tuple[str, ...]] = ("code", "title", "item_id", "group")
    """Columns of :meth:`to_frame`."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "findings", tuple(self.findings))

    def __iter__(self) -> Iterator[ItemFinding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes of the findings held, in order."""
        return tuple(finding.code for finding in self.findings)

    def found(self) -> tuple[ItemFinding, ...]:
        """The findings that affect at least one item."""
        return tuple(finding for finding in self.findings if finding.count)

    def __getitem__(self, code: str) -> ItemFinding:
        """The finding with ``code``.

        Raises:
            KeyError: naming the codes held.
        """
        for finding in self.findings:
            if finding.code == code:
                return finding
        raise KeyError(f"No item finding {code!r}. Held: {', '.join(self.codes) or 'none'}.")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "n": self.n,
            "near_duplicate_threshold": self.near_duplicate_threshold,
            "seed": self.seed,
            "findings": [finding.to_dict() for finding in self.findings],
        }

    @classmethod
    def from_fields(cls, fields: Fields) -> ItemFindings:
        """Read :meth:`to_dict` back from checked fields."""
        return cls(
            findings=tuple(ItemFinding.from_fields(record) for record in fields.records("findings")),
            n=fields.integer("n"),
            near_duplicate_threshold=fields.number("near_duplicate_threshold"),
            seed=fields.integer("seed"),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ItemFindings:
        """Read :meth:`to_dict` back.

        Raises:
            ReaderError: a value of the wrong type or a missing key, naming ``source`` and the field.
        """
        return cls.from_fields(Fields(data, source))

    def to_frame(self) -> pd.DataFrame:
        """Tidy: one row per (finding, affected item id), with the 1-based number of the item's group (0 when the
        finding has no groups)."""
        rows = []
        for finding in self.findings:
            group_of = {item_id: number for number, group in enumerate(finding.groups, 1) for item_id in group}
            rows += [(finding.code, finding.title, item_id, group_of.get(item_id, 0)) for item_id in finding.item_ids]
        return pd.DataFrame(rows, columns=list(self.FRAME_COLUMNS))

    def __repr__(self) -> str:
        found = ", ".join(f"{finding.code}={finding.count}" for finding in self.found()) or "nothing found"
        return f"ItemFindings(n={self.n}: {found})"
