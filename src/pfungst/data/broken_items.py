"""Broken items: options that repeat, a keyed answer at two positions, empty options, catch-all options, an answer
outside the options.

Each check looks at one item's options (per-item options only: a shared label set is the same for every item) and
gives an :class:`~pfungst.data.item_findings.ItemFinding` with the ids of the items it holds for. Rows a reader
rejected never became items; where a rejection's reason is one of these problems (an empty option, an answer that
is no option), the finding counts the rejected rows too, from the benchmark's provenance, in its breakdown.

Example:
    >>> from pfungst.data import Benchmark, Item
    >>> items = [Item("a", "q", ("Paris", "paris.", "Rome"), 0), Item("b", "q", ("x", "All of the above"), 1)]
    >>> found = {f.code: f.item_ids for f in broken_item_findings(Benchmark("toy", items)) if f.count}
    >>> found["key-at-two-positions"], found["all-or-none-of-the-above"]
    (('a',), ('b',))
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable

from pfungst.data.benchmark import Benchmark, Rejection
from pfungst.data.duplicates import Forms, normalised_forms
from pfungst.data.item import Item
from pfungst.data.item_findings import ItemFinding

__all__ = ["CATCH_ALL", "broken_item_findings"]

CATCH_ALL = re.compile(r"^(all|none|both|neither) of (the )?(above|these|them|the options|the answers)$")
"""A catch-all option ("All of the above", "none of these", ...), matched on the normalised option."""

_EMPTY_REJECTION = re.compile(r"option \d+ is empty|the label '' is empty")
_OUTSIDE_REJECTION = re.compile(r"not an option letter|out of range|not the text of any option|is not one of")


def _letter(position: int) -> str:
    return string.ascii_uppercase[position] if position < 26 else str(position + 1)


def _duplicate_options(item: Item, forms: tuple[str, ...]) -> bool:
    return len(set(item.options)) < len(item.options)


def _equal_up_to_case(item: Item, forms: tuple[str, ...]) -> bool:
    """Two options that differ as written but are equal once normalised."""
    if len(set(forms)) == len(forms):
        return False
    by_form: dict[str, set[str]] = {}
    for option, form in zip(item.options, forms, strict=True):
        by_form.setdefault(form, set()).add(option)
    return any(len(written) > 1 for written in by_form.values())


def _key_at_two_positions(item: Item, forms: tuple[str, ...]) -> bool:
    if not 0 <= item.gold < len(forms):
        return False
    return forms.count(forms[item.gold]) > 1


def _empty_option(item: Item, forms: tuple[str, ...]) -> bool:
    return any(not option.strip() for option in item.options)


def _answer_outside(item: Item) -> bool:
    return not 0 <= item.gold < len(item.options)


_CHECKS: dict[str, tuple[str, Callable[[Item, tuple[str, ...]], bool], str, str]] = {
    "key-at-two-positions": (
        "keyed answer at two positions",
        _key_at_two_positions,
        "the keyed option equals another option of the item after case folding, collapsing white space and "
        "stripping sentence punctuation and quotes at both ends",
        "make the options distinct; as it stands two positions are correct and position-based scoring is wrong",
    ),
    "duplicate-options": (
        "duplicate options",
        _duplicate_options,
        "two options of the item are the same string, exactly as written",
        "replace the repeated option with a real distractor",
    ),
    "empty-option": (
        "empty options",
        _empty_option,
        "an option that is empty or white space only (rows a reader rejected for it counted from provenance)",
        "write the missing option or remove the slot",
    ),
    "options-equal-up-to-case": (
        "options equal up to case and punctuation",
        _equal_up_to_case,
        "two options differ as written but are equal after case folding, collapsing white space and stripping "
        "sentence punctuation and quotes at both ends",
        "make the options distinct: a model cannot tell them apart",
    ),
}


def broken_item_findings(benchmark: Benchmark, forms: Forms | None = None) -> tuple[ItemFinding, ...]:
    """The findings about broken items, in the order of :data:`~pfungst.data.item_findings.FINDING_CODES` (``forms``:
    the benchmark's :func:`~pfungst.data.duplicates.normalised_forms`, computed when omitted)."""
    forms = normalised_forms(benchmark) if forms is None else forms
    per_item = benchmark.option_kind.has_positions
    n, rejected = len(benchmark), benchmark.provenance.rejected
    found = []
    for code, (title, check, method, fix) in _CHECKS.items():
        ids = [item.id for item, (_, f) in zip(benchmark, forms, strict=True) if check(item, f)] if per_item else []
        if not per_item:
            method = "not applicable: every item offers one shared label set"
        rows = _rejections(rejected, _EMPTY_REJECTION) if code == "empty-option" else 0
        breakdown = {"items": len(ids), "rejected rows": rows} if rows else {}
        found.append(
            ItemFinding.of(
                code, title, ids, n + len(rejected), breakdown=breakdown, method=method, fix=fix, rows_without_ids=rows
            )
        )
    found.append(_catch_all(benchmark, forms) if per_item else _inapplicable(benchmark, "all-or-none-of-the-above"))
    outside = [item.id for item in benchmark if _answer_outside(item)]
    rows = _rejections(rejected, _OUTSIDE_REJECTION)
    found.append(
        ItemFinding.of(
            "answer-outside-options",
            "answer outside the options",
            outside,
            n + len(rejected),
            breakdown={"items": len(outside), "rejected rows": rows} if rows else {},
            rows_without_ids=rows,
            method="the key names no option of the item (rows a reader rejected for it counted from provenance)",
            fix="correct the key, or add the option it names",
        )
    )
    return tuple(found)


def _rejections(rejected: tuple[Rejection, ...], pattern: re.Pattern[str]) -> int:
    """Rows a reader rejected (not items, so without ids) for the problem ``pattern`` matches in the reason."""
    return sum(bool(pattern.search(rejection.reason)) for rejection in rejected)


def _inapplicable(benchmark: Benchmark, code: str) -> ItemFinding:
    return ItemFinding.of(
        code,
        "all / none of the above",
        (),
        len(benchmark),
        method="not applicable: every item offers one shared label set",
        fix="nothing to do",
    )


def _catch_all(benchmark: Benchmark, forms: Forms) -> ItemFinding:
    """Items with an "all / none of the above" option, by phrase, by position (last or not) and whether keyed."""
    ids, breakdown = [], Counter[str]()
    for item, (_, options) in zip(benchmark, forms, strict=True):
        positions = [p for p, option in enumerate(options) if option[:1] in "abn" and CATCH_ALL.match(option)]
        if not positions:
            continue
        ids.append(item.id)
        for position in positions:
            breakdown[f"{options[position].split(' of ')[0]} of ..."] += 1
            breakdown["last option" if position == len(options) - 1 else f"option {_letter(position)}"] += 1
        breakdown["keyed"] += item.gold in positions
    return ItemFinding.of(
        "all-or-none-of-the-above",
        "all / none of the above",
        ids,
        len(benchmark),
        breakdown=dict(breakdown.most_common()),
        method=f"an option matching {CATCH_ALL.pattern!r} once normalised; breakdown: options by phrase, by position "
        "(last or its letter), and items where one is the key",
        fix="replace catch-all options, or keep them last in every item and check that they are true where keyed: "
        "a permuted or subsampled item changes their meaning",
    )
