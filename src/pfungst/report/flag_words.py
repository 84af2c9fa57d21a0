"""A shortcut flag's count in words, against chance and the threshold: the wording of the findings report.

The states are the verdicts' (:attr:`~pfungst.audit.item_flags.FlagColumn.certainty`): a flag whose count is at
chance is "no evidence", above chance but below the threshold "signal below threshold", spanning the threshold
"inconclusive", and above it "found"; each is said with its counts, its interval and what the ids are.
"""

from __future__ import annotations

import math
from typing import Any

from pfungst.audit.item_flags import FlagColumn
from pfungst.stats import Estimate

__all__ = ["STATUS", "flag_detail", "flag_status", "percent", "pvalue_words", "share_words"]

STATUS = {
    "predictable": "**found**: more items than chance, above the threshold",
    "inconclusive": "inconclusive: too few items to tell",
    "signal below threshold": "signal below threshold: above chance, too small to act on",
    "no evidence": "no evidence beyond chance",
    "found": "**found**",
}
"""A flag's certainty -> its status in the report."""


def flag_status(column: FlagColumn) -> str:
    """The flag's status, for the summary table and its section."""
    return STATUS[column.certainty] if column.count or column.certainty != "found" else "none flagged"


def flag_detail(column: FlagColumn) -> str:
    """The flag's counts read against chance, in the verdicts' words."""
    counts = f"{column.count} of {column.n} items ({share_words(column.share)})"
    if math.isnan(column.expected):
        if not column.count:
            return f"{counts}: no key is suspected."
        return f"{counts}; each item was tested on its own (no chance level applies to the count)."
    corrected = column.corrected
    interval = f"[{corrected.low:.3f}, {corrected.high:.3f}]" if corrected else "n/a"
    against = (
        f"{counts}; chance would flag {column.expected:.1f} ({percent(column.share.baseline)}; one-sided binomial "
        f"p = {pvalue_words(column.share.pvalue)}). Corrected for chance, the share is {interval} against the "
        f"threshold {column.threshold:g}"
    )
    if column.certainty == "predictable":
        return f"{against}: these items are solved by this shortcut more often than chance would explain."
    if column.certainty == "signal below threshold":
        return (
            f"{against}: more items than chance would flag, but a shortcut of {column.threshold:g} or more is ruled "
            "out. Most of the ids are items a guess would also hit; they are listed for completeness, not as items to "
            "fix one by one."
        )
    if column.certainty == "inconclusive":
        return f"{against}: the interval spans the threshold, so too few items to tell; the ids are listed to check."
    return (
        f"{against}: no evidence beyond chance. The ids are listed for completeness; they are what a guess would "
        "also hit, not a finding."
    )


def share_words(share: Estimate) -> str:
    """A share with its interval, in percent; the level named where it is not 95%."""
    ci = share.ci
    if ci is None or math.isnan(ci.low):
        return percent(share.value)
    level = "" if math.isclose(ci.level, 0.95) else f" ({100 * ci.level:g}% interval)"
    return f"{percent(share.value)} [{percent(ci.low)}, {percent(ci.high)}]{level}"


def pvalue_words(value: float) -> str:
    """A p-value to two significant digits, or n/a."""
    return "n/a" if math.isnan(value) else f"{value:.2g}"


def percent(value: Any) -> str:
    """A share in percent to one decimal, or n/a."""
    return "n/a" if value is None or math.isnan(value) else f"{100 * value:.1f}%"
