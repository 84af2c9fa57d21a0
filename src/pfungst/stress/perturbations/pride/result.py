"""What PriDe found (:func:`~pfungst.stress.perturbations.pride.estimate.run_pride`): the estimated prior over
positions, the debiased answers, and what debiasing cost."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pfungst.blocks import Block, Facts, Table, format_number
from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.schema import Fields, read_dataclass
from pfungst.stats import Estimate
from pfungst.stress.estimates import estimates_table

__all__ = ["Prior", "PrideResult"]

_SHOWN_IDS = 5
"""Item ids of the estimation sample shown in reports (the JSON has all of them)."""


def _by_count(fields: Fields, key: str, hint: Any) -> dict[int, Any]:
    """The object at ``key`` keyed by option count (written as strings), each value read as ``hint``."""
    counts = fields.sub(key)
    if not all(name.isdigit() for name in counts.data):
        bad = next(name for name in counts.data if not name.isdigit())
        raise counts.error(bad, "expected an option count as key")
    return {int(name): counts.typed(name, hint) for name in counts.data}


@dataclass(frozen=True)
class Prior:
    """The model's prior over option IDs (arranged positions), one per option count."""

    by_n_options: Mapping[int, tuple[float, ...]]
    """Option count K -> prior probability of each of the K positions (sums to 1)."""
    n_items: Mapping[int, int]
    """Option count K -> how many estimation items the prior was averaged over."""

    def for_options(self, n_options: int) -> tuple[float, ...]:
        """The prior for items with ``n_options`` options.

        Raises:
            ConfigError: No estimation item had that many options.
        """
        if n_options not in self.by_n_options:
            raise ConfigError(
                f"no prior for items with {n_options} options; priors exist for {sorted(self.by_n_options)} options. "
                f"Add estimation items with {n_options} options."
            )
        return self.by_n_options[n_options]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (option counts as strings)."""
        return {
            "by_n_options": {str(k): list(prior) for k, prior in sorted(self.by_n_options.items())},
            "n_items": {str(k): n for k, n in sorted(self.n_items.items())},
        }

    @classmethod
    def from_fields(cls, fields: Fields) -> Prior:
        """The prior that :meth:`to_dict` wrote, every value's type checked (a wrong one named by its field path)."""
        return cls(
            by_n_options=_by_count(fields, "by_n_options", tuple[float, ...]), n_items=_by_count(fields, "n_items", int)
        )


@dataclass(frozen=True)
class PrideResult:
    """PriDe applied to a benchmark: the estimated prior, the debiased answers and what it cost."""

    KIND: ClassVar[str] = "pride"
    """The result's kind in JSON (stable across renames of the class)."""
    TITLE: ClassVar[str] = "PriDe debiasing"
    """The result's heading in reports."""

    prior: Prior
    """The prior estimated on the estimation items."""
    fraction: float
    """Share of items used to estimate the prior (the paper's K%)."""
    estimation_items: tuple[str, ...]
    """Ids of the items scored in every cyclic arrangement."""
    outcomes: tuple[Outcome, ...]
    """One debiased outcome per item, in the order of the plain outcomes."""
    plain: Estimate
    """Accuracy of the plain pass over all items (Wilson interval; baseline: chance)."""
    debiased: Estimate
    """Accuracy after debiasing, all items."""
    debiased_rest: Estimate
    """Accuracy after debiasing, items outside the estimation set only (debiased from one pass)."""
    passes: int
    """Arrangements scored: every arrangement of the estimation items plus one per other item."""
    plain_passes: int
    """Arrangements a plain evaluation scores: one per item."""
    cost_ratio: float
    """``passes / plain_passes``: the extra inference PriDe costs."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "prior": self.prior.to_dict(),
            "fraction": self.fraction,
            "estimation_items": list(self.estimation_items),
            "outcomes": [outcome.to_dict() for outcome in self.outcomes],
            "plain": self.plain.to_dict(),
            "debiased": self.debiased.to_dict(),
            "debiased_rest": self.debiased_rest.to_dict(),
            "passes": self.passes,
            "plain_passes": self.plain_passes,
            "cost_ratio": self.cost_ratio,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> PrideResult:
        """The result that :meth:`to_dict` wrote, every value's type checked (a wrong one named by field path)."""
        return read_dataclass(cls, Fields(data, source))

    def blocks(self) -> tuple[Block, ...]:
        """Accuracy before and after debiasing, the estimation sample and cost, the estimated prior per option count."""
        named = [
            ("plain", self.plain),
            ("debiased", self.debiased),
            ("debiased, items outside the estimation set", self.debiased_rest),
        ]
        chosen = list(self.estimation_items)
        shown = ", ".join(chosen[:_SHOWN_IDS]) + (", ..." if len(chosen) > _SHOWN_IDS else "")
        facts = Facts(
            (
                ("estimation items", f"{len(chosen)} ({format_number(self.fraction, 2)} of the items): {shown}"),
                (
                    "passes",
                    f"{format_number(self.passes)} against {format_number(self.plain_passes)} "
                    f"plain (cost ratio {format_number(self.cost_ratio, 2)})",
                ),
            )
        )
        blocks: list[Block] = [estimates_table("Accuracy before and after PriDe", named), facts]
        by_k = dict(sorted(self.prior.by_n_options.items()))
        if by_k:
            width = max(len(values) for values in by_k.values())
            rows = tuple(
                (
                    str(k),
                    format_number(self.prior.n_items.get(k)),
                    *(format_number(values[p]) if p < len(values) else "" for p in range(width)),
                )
                for k, values in by_k.items()
            )
            columns = ("options", "estimated on items", *(f"position {p + 1}" for p in range(width)))
            blocks.append(Table("Estimated prior over positions", columns, rows))
        return tuple(blocks)
