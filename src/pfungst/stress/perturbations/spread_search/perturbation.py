"""``spread-search``: Sclar et al.'s budgeted Thompson-sampling search for the best and the worst format.

The search decides what to ask from what it has seen, so it asks the model itself (stage :data:`ADAPTIVE`); its
outcomes serve only its analysis, which replays the same seeded search over them and so finds the same formats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from pfungst.evaluate.engine import Cell, plan_cell
from pfungst.evaluate.formats import FormatGrammar, PromptFormat
from pfungst.stress.perturbations.base import ADAPTIVE, Asked, Findings, FindingsBuilder, StressRun
from pfungst.stress.perturbations.params import check_count_param
from pfungst.stress.perturbations.spread_search.metric import SpreadSearch, search_spread

__all__ = ["SpreadSearchPerturbation"]

_STEP = "format search"
"""The progress step shown while searching."""


@dataclass(frozen=True)
class SpreadSearchPerturbation:
    """Formats drawn from the grammar, searched under a budget of item evaluations (half hunting the best format,
    half the worst): the best and worst found and their spread.

    Raises:
        ConfigError: ``n`` or ``budget`` is not a whole number of at least 1.
    """

    name: ClassVar[str] = "spread-search"
    description: ClassVar[str] = "Thompson-sampling search among n formats for the best and worst, within a budget"
    stage: ClassVar[int] = ADAPTIVE

    n: int = 24
    """Formats sampled (seeded) from the base format's grammar to search among."""
    budget: int = 400
    """Item evaluations the search may spend (half hunting the best format, half the worst)."""

    def __post_init__(self) -> None:
        for param in ("n", "budget"):
            check_count_param(self.name, param, getattr(self, param))

    def prompt_formats(self, run: StressRun) -> dict[str, PromptFormat]:
        """The formats searched, ``search format 0`` ..., drawn from the run's seed plus one."""
        drawn = FormatGrammar(base=run.base).sample(self.n, run.config.run.seed + 1)
        return {f"search format {index}": f for index, f in enumerate(drawn)}

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Run the search, asking as it goes; nothing is left to ask after it."""

        formats = self.prompt_formats(run)

        def ask_format(format_name: str, indices: Sequence[int]) -> list[bool]:
            cells = _cells(run, formats, format_name, indices)
            asked.progress(_STEP, len(asked.of(self.name)) + len(cells), self.budget)
            outcomes = asked.ask(cells, report=False)
            return [outcome.correct for outcome in outcomes]

        self._search(run, formats, ask_format)
        return []

    def max_requests(self, run: StressRun) -> int:
        """The most requests it may send: its budget of item evaluations, each costing at most what the rule asks
        of the costliest item (one request under the letter rule)."""
        n_items, formats = len(run.benchmark), self.prompt_formats(run)
        budget = min(self.budget, n_items * len(formats))
        if budget == 0:
            return 0
        first = next(iter(formats))
        return budget * max(len(plan_cell(cell).requests) for cell in _cells(run, formats, first, range(n_items)))

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """The search replayed over its own outcomes."""
        found = FindingsBuilder(self.name, run.config.run.rule)
        outcomes = asked.of(self.name)
        if outcomes:
            correct = {(o.format, o.item_id): o.correct for o in outcomes}
            items = list(run.benchmark)
            formats = self.prompt_formats(run)
            search = self._search(run, formats, lambda name, indices: [correct[(name, items[i].id)] for i in indices])
            found.add(SpreadSearch, f"{run.config.run.rule}, {self.n} formats", lambda: search)
        return found.findings()

    def _search(
        self, run: StressRun, formats: dict[str, PromptFormat], ask_format: Callable[[str, Sequence[int]], list[bool]]
    ) -> SpreadSearch:
        """The seeded search over ``formats``, asking through ``ask_format``."""
        n_items = len(run.benchmark)
        budget = min(self.budget, n_items * len(formats))
        return search_spread(
            list(formats),
            n_items,
            ask_format,
            budget=budget,
            batch=min(10, max(1, budget // 20)),
            seed=run.config.run.seed,
        )


def _cells(run: StressRun, formats: dict[str, PromptFormat], format_name: str, indices: Sequence[int]) -> list[Cell]:
    """The plain cells of the items at ``indices`` in one search format."""
    items = list(run.benchmark)
    chosen = [items[index] for index in indices]
    return run.format_cells(SpreadSearchPerturbation.name, {format_name: formats[format_name]}, chosen)
