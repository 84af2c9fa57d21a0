"""The settings of a reliance analysis (:class:`RelianceConfig`), apart from :mod:`pfungst.reliance.analysis` so that
they load without numpy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pfungst.errors import ConfigError, check_resamples, check_run_settings
from pfungst.settings import check_settings, setting

__all__ = ["ANY_SHORTCUT", "RelianceConfig"]

ANY_SHORTCUT = "any-shortcut"
"""The split by every shortcut of the per-item shortcut table (:mod:`pfungst.reliance.shortcut_score`)."""


@dataclass(frozen=True)
class RelianceConfig:
    """Settings of a reliance analysis."""

    feature_set: str | None = field(
        default=None,
        metadata=setting("The probe whose predictions define solvable items (default: the audit's best)."),
    )
    """The probe whose predictions define solvable items; None for each audit's verdict (best) probe."""
    families: Mapping[str, str] | None = None
    """Model -> family; None for the name rule of :func:`~pfungst.reliance.families.family_of`."""
    test: Literal["fisher", "permutation"] = field(
        default="fisher",
        metadata=setting("Per-model test: fisher (exact) or permutation.", choices=("fisher", "permutation")),
    )
    """Per-model test: exact (Fisher, the default) or Monte Carlo permutation."""
    n_permutations: int = 10000
    """Shuffles of the permutation test (``test="permutation"`` only)."""
    seed: int = field(default=0, metadata=setting("Seed of the permutation test."))
    """Seed of the permutation test."""
    level: float = 0.95
    """Coverage of every interval."""
    alpha: float = field(default=0.05, metadata=setting("Level of the Benjamini-Hochberg procedure."))
    """False discovery rate of the Benjamini-Hochberg adjustment, and the one-sided level of the power statement."""
    power: float = 0.8
    """Power at which the detectable difference is stated."""
    min_share: float = 0.5
    """An item is solvable when more than this share of the probe's repeats predicted it right."""
    split: Literal["probe", "any-shortcut"] = field(
        default="probe",
        metadata=setting(
            "What splits the items: 'probe' (the audit's probe) or 'any-shortcut' (solvable by some shortcut of the "
            "per-item shortcut table - probes, heuristics, choices-only - versus by none, then each shortcut alone).",
            choices=("probe", ANY_SHORTCUT),
        ),
    )
    """What splits the items: the audit's probe (``probe``), or every shortcut of the per-item shortcut table
    (``any-shortcut``: solvable by some shortcut versus by none, then each shortcut on its own;
    :mod:`pfungst.reliance.shortcut_score`)."""

    def __post_init__(self) -> None:
        check_resamples(n_permutations=self.n_permutations)
        check_run_settings(seed=self.seed)

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an invalid setting."""
        check_settings(self)
        for name in ("level", "alpha", "power"):
            if not 0 < getattr(self, name) < 1:
                raise ConfigError(f"{name} must lie in (0, 1), found {getattr(self, name)}")
        if self.n_permutations < 1:
            raise ConfigError(f"n_permutations must be at least 1, found {self.n_permutations}")
        if not 0 <= self.min_share < 1:
            raise ConfigError(f"min_share must lie in [0, 1), found {self.min_share}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict."""
        data = asdict(self)
        data["families"] = dict(self.families) if self.families is not None else None
        return data
