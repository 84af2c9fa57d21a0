"""What each perturbation costs: its questions and distinct requests, over those of one plain pass (``identity``)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pfungst.evaluate.engine import Plan
from pfungst.stress.stress_result import PerturbationCost

__all__ = ["PLAIN", "cost_of", "plan_costs"]

PLAIN = "identity"
"""The perturbation every cost is measured against: one pass over the items as given (always run)."""


def cost_of(name: str, own: Sequence[Plan], plans: Sequence[Plan]) -> PerturbationCost:
    """The cost of ``own`` plans, named ``name``, relative to the plain pass among ``plans`` (ratios NaN without
    one)."""
    plain = [plan for plan in plans if plan.cell.perturbation == PLAIN]
    plain_requests = len({request for plan in plain for request in plan.requests})
    requests = len({request for plan in own for request in plan.requests})
    return PerturbationCost(
        name,
        len(own),
        requests,
        len(own) / len(plain) if plain else float("nan"),
        requests / plain_requests if plain_requests else float("nan"),
    )


def plan_costs(plans: Sequence[Plan], perturbations: Collection[str]) -> tuple[PerturbationCost, ...]:
    """The cost of every perturbation in ``perturbations`` that asked something, in the order first asked (plans
    labelled otherwise, such as PriDe's own estimation passes, are no perturbation's)."""
    names = dict.fromkeys(plan.cell.perturbation for plan in plans if plan.cell.perturbation in perturbations)
    return tuple(cost_of(name, [plan for plan in plans if plan.cell.perturbation == name], plans) for name in names)
