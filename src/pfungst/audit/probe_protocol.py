"""What a probe protocol is (:class:`ProbeProtocol`); what it plans is a :class:`~pfungst.audit.probe_plan.ProbePlan`.

A protocol is the way a probe's items are split, fitted and scored, in the manner of scikit-learn's CV splitters
(``KFold``, ``GroupKFold``): a small object whose methods carry everything that differs between protocols, so that
the probe and the audit ask it (``config.protocol.plan(...)``, ``config.protocol.rows(benchmark)``) and never
compare its name. Its :attr:`~ProbeProtocol.name` is what settings, result files and ``--protocol`` hold;
:func:`get_protocol` reads a name back to the object. Two protocols, one module each:
:class:`~pfungst.audit.crossfit_protocol.CrossFit` (the default) and
:class:`~pfungst.audit.pacchiardi2024_protocol.Pacchiardi2024`; adding one is a module with a :class:`ProbeProtocol`
subclass and one line in :data:`PROTOCOLS`. They sit in the audit's folder, not a folder of their own: the probe
reads them and they read the probe's parts, and the import rule allows such a loop only inside one folder.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from pfungst.registry import Registry

if TYPE_CHECKING:
    import numpy as np

    from pfungst.audit.audit_config import AuditConfig
    from pfungst.audit.classifiers import ClassifierSpec
    from pfungst.audit.feature_sets import FeatureSet
    from pfungst.audit.item_groups import ItemGroups
    from pfungst.audit.probe import ProbeConfig
    from pfungst.audit.probe_assembly import FoldResult
    from pfungst.audit.probe_plan import FoldJob, ProbePlan
    from pfungst.audit.probe_settings import ProbeSettings
    from pfungst.audit.probe_tasks import ItemTask, OptionTask
    from pfungst.audit.size_defaults import SizeDefault
    from pfungst.data.benchmark import Benchmark

__all__ = ["PROTOCOLS", "ProbeProtocol", "get_protocol"]


class ProbeProtocol(ABC):
    """How probes split, fit and score, and what an audit under it reads; subclasses hold no state.

    Two protocols are equal when they are of one class; ``repr`` is the constructor call (``CrossFit()``).
    """

    name: ClassVar[str]
    """The protocol's name in settings, result files and on the command line (``--protocol NAME``)."""
    summary: ClassVar[str]
    """One line on what it does, for ``--help`` and error messages."""
    accuracy_interval: ClassVar[str]
    """How a probe's accuracy interval is computed: ``bootstrap`` over items, or ``wilson`` on one test split."""
    warns_unconverged: ClassVar[bool] = True
    """Whether a fit stopping at its iteration limit is warned about (not where the limit is the protocol's own)."""

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "params"}`` for provenance (a protocol's numbers are the settings that it reads)."""
        return {"name": self.name, "params": {}}

    # The probe: how one feature set is split, planned, fitted and scored.

    @abstractmethod
    def splits(
        self, y: np.ndarray, config: ProbeSettings, groups: np.ndarray | None = None
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The (train, test) positions of every fold job, in job order, for items of classes ``y``."""

    @abstractmethod
    def plan(
        self, feature_set: FeatureSet, task: ItemTask | OptionTask, config: ProbeConfig, groups: np.ndarray | None
    ) -> ProbePlan:
        """The probe's encoder settings and fold jobs, checked (too few items, a level the protocol cannot fit).

        Raises:
            ConfigError: the protocol cannot probe these inputs.
        """

    @abstractmethod
    def fit_fold(self, plan: ProbePlan, config: ProbeConfig, job: FoldJob) -> FoldResult:
        """Fit and predict one of ``plan``'s fold jobs."""

    @abstractmethod
    def candidates(self, config: ProbeConfig) -> tuple[ClassifierSpec, ...]:
        """The classifiers compared on validation data."""

    @abstractmethod
    def max_iter(self, config: ProbeConfig) -> int:
        """The iteration limit of every fit."""

    @abstractmethod
    def describe_scores(self, config: ProbeSettings) -> str:
        """Which predictions a probe's scores are computed on, in words (recorded in each estimate's method)."""

    # The audit: which rows, folds and feature sets, and what the verdict adds.

    @abstractmethod
    def rows(self, benchmark: Benchmark) -> Benchmark:
        """The items an audit under this protocol probes, in the order its splits read them."""

    @abstractmethod
    def deduplicate(self, benchmark: Benchmark) -> Benchmark:
        """``benchmark`` with repeated texts dropped, where this protocol does not drop them itself."""

    @abstractmethod
    def folds(self, benchmark: Benchmark, config: AuditConfig) -> tuple[int, ItemGroups]:
        """The folds ``benchmark`` can take and the sibling groups they keep whole (or why they keep none)."""

    @abstractmethod
    def default_sets(
        self, benchmark: Benchmark, n_repeats: int, size_limits: tuple[int, int, int], all_sets: bool
    ) -> SizeDefault:
        """The feature sets (and repeats) a default audit probes under this protocol, and why."""

    def verdict_note(self, statistic: str) -> str:
        """Why the verdict reads ``statistic`` where this protocol's own headline figure differs ('' otherwise)."""
        del statistic
        return ""


PROTOCOLS: Registry[type[ProbeProtocol]] = Registry(
    "protocol",
    {
        "crossfit": "pfungst.audit.crossfit_protocol:CrossFit",
        "pacchiardi2024": "pfungst.audit.pacchiardi2024_protocol:Pacchiardi2024",
    },
    group=None,
)
"""Protocol name -> its class (imported when the name is first resolved)."""


def get_protocol(protocol: str | ProbeProtocol) -> ProbeProtocol:
    """The protocol called ``protocol`` (an object is returned as it is).

    Example (``...`` stands for the rest of the message):
        >>> get_protocol("pacchiardi2024"), get_protocol("crossfit").name
        (Pacchiardi2024(), 'crossfit')
        >>> get_protocol("crosfit")
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: Unknown protocol 'crosfit'. Did you mean: crossfit? Available: crossfit, ...

    Raises:
        ConfigError: an unknown name, with close matches and every name.
    """
    if isinstance(protocol, ProbeProtocol):
        return protocol
    return PROTOCOLS.resolve(protocol)()
