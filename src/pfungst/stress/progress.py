"""One progress counter for a whole stress run, in model requests, with its total known before the first request.

The run reports ``progress(stage, done, total)``: ``done`` counts the requests the model has answered in this run
(cache hits and requests shared by several perturbations are not work and are not counted), ``total`` is every
request the run will send. The first pass's requests are counted exactly once the cache is open (each distinct
request not already stored). The later stages plan from answers, so before them the total holds each one's upper
bound (:meth:`~pfungst.stress.perturbations.top2.TopTwoPerturbation.max_requests`: the top-two placement asks at most
two questions per item) and is an :class:`AtMost`; as each is planned (or, for the format search, has finished) its
exact count replaces its bound. A later-stage perturbation without ``max_requests`` (a plugin) leaves the total an
:class:`AtLeast` until it has run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pfungst.evaluate.engine import Plan, Progress
from pfungst.models.requests import Request

__all__ = ["AtLeast", "AtMost", "RunProgress", "first_pass_step", "max_requests"]


class AtMost(int):
    """A progress total that is an upper bound: the run may ask fewer (a callback reading it as an int sees the
    bound)."""

    def __repr__(self) -> str:
        return f"AtMost({int(self)})"


class AtLeast(int):
    """A progress total that is a lower bound: a stage whose cost is unknown until it runs comes on top."""

    def __repr__(self) -> str:
        return f"AtLeast({int(self)})"


def max_requests(perturbation: Any, run: Any) -> int | None:
    """The most requests a later-stage perturbation may send (its ``max_requests(run)``); None where it has none."""
    bound = getattr(perturbation, "max_requests", None)
    return None if bound is None else int(bound(run))


def first_pass_step(plans: Sequence[Plan], shown: int = 3) -> str:
    """The first pass's stage name: ``first pass: identity, cyclic, answer-moved +2``."""
    names = list(dict.fromkeys(plan.cell.perturbation for plan in plans))
    more = f" +{len(names) - shown}" if len(names) > shown else ""
    return "first pass: " + ", ".join(names[:shown]) + more


class RunProgress:
    """The run's counter: the stage shown, the requests answered so far and the total (exact or bound).

    Before the model is loaded (:meth:`plan`) the first pass counts every distinct request and the total is an upper
    bound; once the cache is open (:meth:`attach`) the first pass counts only what the cache lacks.

    Args:
        report: The run's callback ``progress(stage, done, total)``.
    """

    def __init__(self, report: Progress) -> None:
        self._report = report
        self._model: Any = None
        self._origin = 0
        self._first_pass: list[Request] = []
        self._first = 0
        self._later: dict[str, int | None] = {}
        self._settled: set[str] = set()
        self._begun: dict[str, int] = {}
        self._step = "first pass"
        self.stage = "planning"
        """The stage shown."""

    @property
    def done(self) -> int:
        """Requests the model has answered in this run."""
        return 0 if self._model is None else self._model.stats.misses - self._origin

    @property
    def total(self) -> int:
        """Every request the run will send: an int when exact, :class:`AtMost` or :class:`AtLeast` when not."""
        known = self._first + sum(count or 0 for count in self._later.values())
        open_stages = [name for name in self._later if name not in self._settled]
        if any(self._later[name] is None for name in open_stages):
            return AtLeast(known)
        return AtMost(known) if open_stages or self._model is None else known

    def plan(self, first_pass: Sequence[Plan], bounds: dict[str, int | None]) -> None:
        """Take the first pass's requests and each later stage's bound; show the model loading, with the first
        pass's questions and distinct requests (those several perturbations ask count once)."""
        self._first_pass = [request for plan in first_pass for request in plan.requests]
        self._first = len(set(self._first_pass))
        self._later = dict(bounds)
        self._step = first_pass_step(first_pass)
        self.begin(f"loading the model; first pass: {len(first_pass)} questions, {self._first} distinct requests")

    def attach(self, model: Any) -> None:
        """Count from ``model`` (a :class:`~pfungst.models.cache.CachedModel`: its ``stats.misses`` and
        ``uncached``): the first pass's requests not in the cache; report the total before the first request."""
        self._model = model
        self._origin = model.stats.misses
        self._first = model.uncached(self._first_pass)
        self.begin(self._step)

    def begin(self, stage: str) -> None:
        """Show a stage (a later stage's bound still counts until :meth:`settle`)."""
        self.stage = stage
        self._begun[stage] = self.done
        self.update()

    def settle(self, stage: str, plans: Sequence[Plan] | None = None) -> None:
        """Replace a later stage's bound by its exact count: the requests of ``plans`` not in the cache (before they
        are asked), or, without plans, what the stage has asked since :meth:`begin` (after an adaptive stage)."""
        if plans is not None:
            requests = [request for plan in plans for request in plan.requests]
            self._later[stage] = self._model.uncached(requests) if self._model is not None else len(set(requests))
        else:
            self._later[stage] = self.done - self._begun.get(stage, self.done)
        self._settled.add(stage)
        self.update()

    def update(self, *_: object) -> None:
        """Report the stage, the requests answered and the total (also usable as an engine callback)."""
        self._report(self.stage, self.done, self.total)
