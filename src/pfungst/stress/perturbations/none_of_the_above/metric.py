"""What "None of the above" does to accuracy (WiCkeD, arXiv 2502.18316, 2025): a seeded half of the items has its
gold option replaced by "None of the above" (which becomes the gold), the other half one distractor.

A model that answers by elimination of implausible options, or by recognising the familiar right answer, loses
accuracy on the gold-replaced half (it must now reject every shown option); one that reads the content loses little.
Items that already offer a "none / all of the above" option are skipped and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pfungst.blocks import Block, Facts, format_number
from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate
from pfungst.stress.estimates import estimates_table
from pfungst.stress.metrics.accuracy import proportion_estimate
from pfungst.stress.metrics.arrangement_effects import PairedDifference, paired_difference

__all__ = ["GOLD_REPLACED", "DISTRACTOR_REPLACED", "NoneOfTheAboveEffect", "none_of_the_above_effect"]

GOLD_REPLACED = "gold replaced"
"""The variant whose gold option was replaced (``None of the above`` is right)."""
DISTRACTOR_REPLACED = "distractor replaced"
"""The variant whose replaced option was a distractor (``None of the above`` is wrong)."""
_SHOWN = 30


@dataclass(frozen=True)
class NoneOfTheAboveEffect:
    """Accuracy with one option replaced by "None of the above" against the original items, per half and overall."""

    KIND: ClassVar[str] = "none-of-the-above"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "None of the above substitution (WiCkeD)"
    """The result's heading in reports."""

    overall: PairedDifference
    """Substituted versus original accuracy over every substituted item (paired bootstrap, exact McNemar)."""
    gold_replaced: PairedDifference
    """The same on the half whose gold was replaced."""
    distractor_replaced: PairedDifference
    """The same on the half whose replaced option was a distractor."""
    nota_chosen: Estimate
    """Share of the distractor-replaced items where the model chose "None of the above" (wrongly); Wilson, baseline
    chance (mean ``1 / K``)."""
    skipped: tuple[str, ...]
    """Ids of the items left out because an option already refers to the others ("All of the above")."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "overall": self.overall.to_dict(),
            "gold_replaced": self.gold_replaced.to_dict(),
            "distractor_replaced": self.distractor_replaced.to_dict(),
            "nota_chosen": self.nota_chosen.to_dict(),
            "skipped": list(self.skipped),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> NoneOfTheAboveEffect:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """Original and substituted accuracy and their change for all items and each half; what was skipped."""
        named: list[tuple[str, Estimate]] = []
        for name, paired in (
            ("all substituted items", self.overall),
            (GOLD_REPLACED, self.gold_replaced),
            (DISTRACTOR_REPLACED, self.distractor_replaced),
        ):
            named += [
                (f"{name}: original", paired.second_accuracy),
                (f"{name}: with None of the above", paired.first_accuracy),
                (f"{name}: change", paired.difference),
            ]
        named.append(('"None of the above" chosen where a distractor was replaced', self.nota_chosen))
        shown = self.skipped[:_SHOWN]
        more = len(self.skipped) - len(shown)
        facts = Facts(
            (
                ("items substituted", format_number(self.overall.n_items)),
                ("items skipped (already offer none / all of the above)", format_number(len(self.skipped))),
                ("skipped items", ", ".join(shown) + (f" ... and {more} more" if more else "") or "none"),
            )
        )
        return estimates_table('Accuracy with "None of the above" substituted', named), facts

    def __repr__(self) -> str:
        return (
            f"NoneOfTheAboveEffect(change={self.overall.difference.value:+.3f}, "
            f"gold replaced {self.gold_replaced.difference.value:+.3f}, "
            f"distractor replaced {self.distractor_replaced.difference.value:+.3f}, skipped={len(self.skipped)})"
        )


def none_of_the_above_effect(
    substituted: Sequence[Outcome],
    original: Sequence[Outcome],
    *,
    skipped: Sequence[str] = (),
    seed: int,
    n_bootstrap: int = 1000,
    level: float = 0.95,
) -> NoneOfTheAboveEffect:
    """Substituted versus original accuracy, paired by item, overall and per half.

    Args:
        substituted: One outcome per substituted item, variant :data:`GOLD_REPLACED` or :data:`DISTRACTOR_REPLACED`
            ("None of the above" is the last option).
        original: The plain outcomes (one rule and format); only the substituted items are used.
        skipped: Ids of the items left out, to report.
        seed: Seed of the bootstrap resampling of items.
        n_bootstrap: Bootstrap resamples for the paired intervals.
        level: Coverage of every interval.

    Raises:
        ConfigError: a half has no item, or an item has no original outcome.
    """
    halves = {name: [o for o in substituted if o.variant == name] for name in (GOLD_REPLACED, DISTRACTOR_REPLACED)}
    for name, half in halves.items():
        if not half:
            raise ConfigError(f"none_of_the_above_effect needs items in both halves, but '{name}' has none")
    by_item = {outcome.item_id: outcome for outcome in original}
    missing = [o.item_id for o in substituted if o.item_id not in by_item]
    if missing:
        raise ConfigError(f"none_of_the_above_effect: item '{missing[0]}' has no original outcome")

    def compare(outcomes: Sequence[Outcome]) -> PairedDifference:
        plain = [by_item[outcome.item_id] for outcome in outcomes]
        return paired_difference(
            outcomes, plain, names=("none of the above", "original"), seed=seed, n_bootstrap=n_bootstrap, level=level
        )

    distractor = halves[DISTRACTOR_REPLACED]
    chose = sum(o.status == "ok" and o.chosen == o.n_options - 1 for o in distractor)
    chance = sum(1.0 / o.n_options for o in distractor) / len(distractor)
    return NoneOfTheAboveEffect(
        overall=compare([o for o in substituted if o.variant in halves]),
        gold_replaced=compare(halves[GOLD_REPLACED]),
        distractor_replaced=compare(distractor),
        nota_chosen=proportion_estimate(chose, len(distractor), baseline=chance, level=level),
        skipped=tuple(skipped),
    )
