"""``permutations``: all orders of each item's options, or a seeded sample of them: the metrics of ``cyclic``
over those orders."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import ClassVar, Literal

from pfungst.data.item import Item
from pfungst.errors import ConfigError
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.engine import Cell
from pfungst.evaluate.variants import Presentation, item_rng
from pfungst.stress.metrics import CircularMetrics, circular_metrics
from pfungst.stress.perturbations.base import BY_ITEM, Asked, Findings, StressRun, own_outcomes_findings
from pfungst.stress.perturbations.params import check_param, is_count

__all__ = ["PermutationsPerturbation", "Permutations"]


@dataclass(frozen=True)
class Permutations:
    """All ``n!`` orders, or a seeded sample of ``sample`` distinct orders that always includes the original."""

    sample: int | None = None
    """How many orders per item; ``None`` for all of them."""
    name: str = "permutations"

    def __post_init__(self) -> None:
        if self.sample is not None and (
            isinstance(self.sample, bool) or not isinstance(self.sample, int) or self.sample < 1
        ):
            raise ConfigError(f"permutations: sample must be a positive number of orders or None, got {self.sample!r}")

    def present(self, item: Item, labels: tuple[str, ...], seed: int) -> tuple[Presentation, ...]:
        """Orders named ``order 0`` (the original), ``order 1``, ... in lexicographic or drawn order."""
        n = item.n_options
        identity = tuple(range(n))
        if self.sample is None or self.sample >= math.factorial(n):
            orders = list(itertools.permutations(identity))
        else:
            rng = item_rng(seed, item)
            chosen = {identity}
            orders = [identity]
            while len(orders) < self.sample:
                order = tuple(rng.sample(identity, n))
                if order not in chosen:
                    chosen.add(order)
                    orders.append(order)
        return tuple(Presentation(f"order {index}", ArrangedItem(item, order)) for index, order in enumerate(orders))


@dataclass(frozen=True)
class PermutationsPerturbation:
    """All orders of each item's options, or a seeded sample of them: the metrics of cyclic over those orders.

    Raises:
        ConfigError: ``n`` is neither a whole number of at least 1 nor ``"all"``.
    """

    name: ClassVar[str] = "permutations"
    description: ClassVar[str] = "a seeded sample of n orders, or all of them (n=all): the same metrics over them"
    stage: ClassVar[int] = BY_ITEM

    n: int | Literal["all"] = 6
    """Orders per item: a seeded sample of this many (fewer where the item has fewer), or ``"all"`` ``n!``."""

    def __post_init__(self) -> None:
        ok = self.n == "all" or is_count(self.n)
        check_param(self.name, "n", self.n, ok, "a whole number of at least 1, or 'all'")

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Each item in every arrangement."""
        variant = Permutations(None if self.n == "all" else self.n)
        return [cell for item in run.benchmark for cell in run.cells(item, variant, self.name)]

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """Circular accuracy, consistency and fluctuation over the arrangements."""
        return own_outcomes_findings(self.name, run, asked, CircularMetrics, "permutations", circular_metrics)
