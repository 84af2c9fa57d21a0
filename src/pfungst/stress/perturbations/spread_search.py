"""``spread-search``: Sclar et al.'s budgeted Thompson-sampling search for the best and the worst format.

The search decides what to ask from what it has seen, so it asks the model itself (stage :data:`ADAPTIVE`); its
outcomes serve only its analysis, which replays the same seeded search over them and so finds the same formats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pfungst.evaluate.engine import Cell, plan_cell
from pfungst.stress.perturbations.base import ADAPTIVE, Asked, Findings, FindingsBuilder, StressRun
from pfungst.stress.spread import SpreadSearch, search_spread

__all__ = ["SpreadSearchPerturbation"]

_STEP = "format search"
"""The progress step shown while searching."""


class SpreadSearchPerturbation:
    """Formats drawn from the grammar, searched under a budget of item evaluations (half hunting the best format,
    half the worst): the best and worst found and their spread."""

    name = "spread-search"
    description = "Thompson-sampling search for the best and worst format under a budget of evaluations"
    stage = ADAPTIVE
    results = (SpreadSearch,)

    def plan(self, run: StressRun, asked: Asked) -> list[Cell]:
        """Run the search, asking as it goes; nothing is left to ask after it."""

        def ask_format(format_name: str, indices: Sequence[int]) -> list[bool]:
            cells = _cells(run, format_name, indices)
            asked.progress(_STEP, len(asked.of(self.name)) + len(cells), run.config.spread_budget)
            outcomes = asked.ask(cells, report=False)
            return [outcome.correct for outcome in outcomes]

        _search(run, ask_format)
        return []

    def max_requests(self, run: StressRun) -> int:
        """The most requests it may send: its budget of item evaluations, each costing at most what the rule asks
        of the costliest item (one request under the letter rule)."""
        n_items = len(run.benchmark)
        budget = min(run.config.spread_budget, n_items * len(run.search_formats))
        if budget == 0:
            return 0
        first = next(iter(run.search_formats))
        return budget * max(len(plan_cell(cell).requests) for cell in _cells(run, first, range(n_items)))

    def analyse(self, run: StressRun, asked: Asked) -> Findings:
        """The search replayed over its own outcomes."""
        found = FindingsBuilder(self.name, run.config.rule)
        outcomes = asked.of(self.name)
        if outcomes:
            correct = {(o.format, o.item_id): o.correct for o in outcomes}
            items = list(run.benchmark)
            search = _search(run, lambda name, indices: [correct[(name, items[i].id)] for i in indices])
            found.add(SpreadSearch, f"{run.config.rule}, {run.config.n_search_formats} formats", lambda: search)
        return found.findings()


def _cells(run: StressRun, format_name: str, indices: Sequence[int]) -> list[Cell]:
    """The plain cells of the items at ``indices`` in one search format."""
    items = list(run.benchmark)
    chosen = [items[index] for index in indices]
    return run.format_cells(SpreadSearchPerturbation.name, {format_name: run.search_formats[format_name]}, chosen)


def _search(run: StressRun, ask_format: Callable[[str, Sequence[int]], list[bool]]) -> SpreadSearch:
    """The seeded search over the run's search formats, asking through ``ask_format``."""
    n_items = len(run.benchmark)
    budget = min(run.config.spread_budget, n_items * len(run.search_formats))
    return search_spread(
        list(run.search_formats),
        n_items,
        ask_format,
        budget=budget,
        batch=min(10, max(1, budget // 20)),
        seed=run.config.seed,
    )
