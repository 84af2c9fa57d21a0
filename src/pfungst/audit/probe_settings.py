"""How probes are fitted and resampled: the settings an audit (:class:`~pfungst.audit.run.AuditConfig`) and a single
probe (:class:`~pfungst.audit.probe.ProbeConfig`) share, declared and checked once."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from pfungst.audit.c_grid import DEFAULT_C_GRID, Solvers, check_c_grid, parse_c_grid, show_c_grid
from pfungst.audit.probe_protocol import PROTOCOLS, ProbeProtocol, get_protocol
from pfungst.errors import MAX_REPEATS, MAX_RESAMPLES, ConfigError, check_resamples, check_run_settings
from pfungst.settings import check_settings, setting

__all__ = ["MAX_GRID_PATIENCE", "MAX_SPLITS", "ProbeSettings"]

MAX_SPLITS = 1_000
"""The most cross-fitting folds (each fits every feature set once more); past the items of a class the folds are
cut to what the data allows, with a warning."""
MAX_GRID_PATIENCE = 1_000
"""The largest ``grid_patience``: more than any grid has C values (0 is the way to fit the whole grid)."""


def _check_c_grid(label: str, c_grid: tuple[float, ...]) -> None:
    check_c_grid(c_grid, label)


def _protocol_name(protocol: ProbeProtocol) -> str:
    return protocol.name


@dataclass(frozen=True)
class ProbeSettings:
    """The protocol, folds, seed, resamples, level, grid comparison and parallelism of the probes; the defaults are
    the recommended protocol.

    Example:
        >>> ProbeSettings(n_repeats=3).shared()["n_repeats"]
        3
    """

    protocol: ProbeProtocol = field(
        default_factory=lambda: get_protocol("crossfit"),  # by name: the protocol's module loads numpy and sklearn
        metadata=setting(
            "crossfit (default: stratified repeated cross-fitting, Cohen's kappa, intervals) or pacchiardi2024 (the "
            "paper's exact protocol).",
            choices=tuple(PROTOCOLS),
            parse=get_protocol,
            show=_protocol_name,
        ),
    )
    """How probes split, fit and score (:mod:`~pfungst.audit.probe_protocol`; a name is read as its protocol):
    ``CrossFit()`` (``crossfit``): stratified repeated cross-fitting, Cohen's kappa, intervals and permutation tests.
    ``Pacchiardi2024()`` (``pacchiardi2024``): Pacchiardi et al. 2024's single 60/20/20 split and chance-corrected
    accuracy, to reproduce their table (an audit also puts the items in the paper's rows and order)."""
    n_splits: int = field(default=5, metadata=setting("Folds of the cross-fitting.", bounds=(2, MAX_SPLITS)))
    """Cross-fitting folds (crossfit only)."""
    n_repeats: int = field(default=2, metadata=setting("Repeats of the cross-fitting.", bounds=(1, MAX_REPEATS)))
    """Repeats of the cross-fitting with different fold assignments (crossfit only)."""
    seed: int = field(default=0, metadata=setting("Seed of every random choice."))
    """Seeds the folds, inner splits, liblinear, bootstrap and permutations (pacchiardi2024 shuffles and splits with
    42; its liblinear fits, which the paper left unseeded, take this seed)."""
    n_bootstrap: int = field(
        default=1000, metadata=setting("Bootstrap resamples per interval.", bounds=(1, MAX_RESAMPLES))
    )
    """Bootstrap resamples behind every interval."""
    n_permutations: int = field(default=1000, metadata=setting("Permutations per p-value.", bounds=(1, MAX_RESAMPLES)))
    """Label permutations behind every p-value (which cannot be smaller than ``1 / (n_permutations + 1)``)."""
    level: float = 0.95
    """Coverage of every interval."""
    selection_max_items: int = field(
        default=20_000,
        metadata=setting(
            "Compare the classifier grid on at most N items of each training fold, then refit.", bounds=(100, None)
        ),
    )
    """Compare the classifier grid on at most this many items of a training fold (crossfit): a seeded stratified
    sample, split into fit and validation parts as usual; the choice is then refitted on the whole training fold.
    At a few hundred thousand items the grid's fits, not the refit, would take most of the time, and a choice made
    on 20,000 items is as good; smaller folds use every item, so their results do not change. (10,000 was measured
    too: at 100,000 items it halved the grid's CPU seconds but moved two of the 13 probes' kappas by three times
    what a change of seed moves them.)"""
    c_grid: tuple[float, ...] = field(
        default=DEFAULT_C_GRID,
        metadata=setting(
            "The C values (inverse regularisation strengths) tried for each penalty in every training fold, "
            "separated by commas.",
            check=_check_c_grid,
            parse=parse_c_grid,
            show=show_c_grid,
        ),
    )
    """Inverse regularisation strengths tried per penalty under crossfit (default 0.01, 0.1, 1, 10, 100; empty: the
    classifiers' own ``C``), each from :data:`~pfungst.audit.classifiers.MIN_C` (1e-6) to
    :data:`~pfungst.audit.classifiers.MAX_C` (1e6); pacchiardi2024 always uses the paper's fixed entries."""
    solvers: Solvers = field(
        default="liblinear",
        metadata=setting(
            "How the cross-fitting fits its classifier grid: 'liblinear' (both penalties by liblinear at 0.01, L1 up "
            "to C = 1 at 0.001: about a quarter of the time) or 'sklearn' (scikit-learn's defaults: lbfgs for L2, "
            "tolerance 1e-4). Their kappas differ by less than a change of --seed moves them.",
            choices=("liblinear", "sklearn"),
        ),
    )
    """How crossfit fits the grid's item-level classifiers: ``liblinear`` (default) fits both penalties with
    liblinear (at 0.01, L1 up to C = 1 at 0.001; one-vs-rest for K > 2), about a quarter of the time of ``sklearn``,
    scikit-learn's defaults (lbfgs, multinomial, for L2; tolerance 1e-4). The two give kappas that differ by less
    than a change of seed moves them (:mod:`~pfungst.audit.classifiers`; an unknown value is refused there, where
    the grid is built). pacchiardi2024 always uses ``sklearn``."""
    warm_start: bool = False
    """Fit each penalty's C grid as one warm-started path and start the chosen entry's refit at its inner-split
    optimum (item-level lbfgs fits, so ``solvers="sklearn"`` only; see :mod:`~pfungst.audit.grid_path`): the same
    optima to the solver's tolerance in fewer iterations. False (default) fits every entry from scratch."""
    grid_patience: int = field(
        default=1,
        metadata=setting(
            "Stop each penalty's C path after N values in a row that score no better on validation than the best so "
            "far (0: fit the whole grid).",
            bounds=(0, MAX_GRID_PATIENCE),
        ),
    )
    """Stop a penalty's C path (ascending) after this many consecutive C values score no better on validation than
    the best so far; 0 fits the whole grid. The larger C values, the slowest fits, are then skipped where they no
    longer help (on benchmarks without signal, most of the grid). A C value whose model predicts one class for every
    validation item (L1 at small C: every weight zero) does not count. Default 1: on the four Pacchiardi datasets it
    cut the audit's time by about a quarter and moved the kappas less than a change of seed does."""
    n_jobs: int = field(default=1, metadata=setting("Parallel (feature set, fold) jobs (joblib; -1: every core)."))
    """Parallel jobs with joblib on this machine (-1: every core): an audit's (feature set, fold) jobs, a single
    probe's (repeat, fold) fits."""
    parallel: Literal["processes", "threads"] = field(
        default="processes",
        metadata=setting(
            "How --n-jobs run: worker 'processes' (each copies the data) or 'threads' of one process (one copy of the "
            "data: for very large benchmarks). Identical results.",
            choices=("processes", "threads"),
        ),
    )
    """How ``n_jobs`` run on this machine: worker ``processes`` (joblib's loky; each gets a copy of the inputs) or
    ``threads`` of this process (no copies: the memory of one job per thread on top of the data, for very large
    benchmarks, where memory binds; lbfgs fits run side by side, liblinear's one at a time). The results are the
    same, bit for bit."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "protocol", get_protocol(self.protocol))
        check_run_settings(seed=self.seed, n_jobs=self.n_jobs)
        check_resamples(n_bootstrap=self.n_bootstrap, n_permutations=self.n_permutations, n_repeats=self.n_repeats)
        check_settings(self, choices=False)

    def shared(self) -> dict[str, Any]:
        """These settings by field name, to build another config that shares them (``ProbeConfig(**s.shared())``)."""
        return {field.name: getattr(self, field.name) for field in fields(ProbeSettings)}

    def to_dict(self) -> dict[str, Any]:
        """Every setting by field name, JSON-safe: the protocol by its name."""
        return {**asdict(self), "protocol": self.protocol.name}

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an invalid setting, before any fitting."""
        check_settings(self)  # counts within their declared bounds, named by option
        check_run_settings(seed=self.seed, n_jobs=self.n_jobs)
        if self.warm_start and self.solvers != "sklearn":
            raise ConfigError(
                "warm_start walks lbfgs fits along the C path, so it needs solvers='sklearn' (liblinear, the default,"
                " takes no starting point)"
            )
        if not 0 < self.level < 1:
            raise ConfigError(f"level must lie strictly between 0 and 1, not {self.level}")
