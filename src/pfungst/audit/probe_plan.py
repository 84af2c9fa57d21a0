"""What a probe protocol plans for one probe (:class:`ProbePlan`): its task, encoder settings and fold jobs.

It lives beside the probe, not with the protocols, so the probe reads its plan without importing the protocols that
make it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from pfungst.audit.encoder import EncoderSettings
    from pfungst.audit.feature_sets import FeatureSet
    from pfungst.audit.probe_tasks import ItemTask, OptionTask

__all__ = ["FoldJob", "ProbePlan"]

FoldJob = tuple[int, int, "np.ndarray", "np.ndarray"]
"""One fold job: ``(repeat, fold, train positions, test positions)``."""


@dataclass(frozen=True)
class ProbePlan:
    """One probe's task, encoder settings and fold jobs, planned by its protocol and checked before fitting."""

    task: ItemTask | OptionTask
    feature_set: FeatureSet
    settings: EncoderSettings
    jobs: tuple[FoldJob, ...]
    groups: np.ndarray | None = None
    """Group id per item (siblings kept in one fold), or None."""
