"""The settings of a suite (:class:`SuiteConfig`): one audit's settings for every benchmark, and how the benchmarks
are read and ranked. Apart from :mod:`pfungst.audit.suite.run` so that they load without scikit-learn."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pfungst.audit.audit_config import AuditConfig
from pfungst.errors import ConfigError
from pfungst.settings import check_settings, setting

__all__ = ["SuiteConfig"]


@dataclass(frozen=True)
class SuiteConfig:
    """Settings of a suite: one audit configuration for every benchmark, and how to read and rank them."""

    audit: AuditConfig = field(default_factory=AuditConfig)
    """The audit of each benchmark (per-item benchmarks get the per-item default feature sets unless named)."""
    reader: str | None = field(
        default=None,
        metadata=setting(
            "One reader for every benchmark (see `pfungst formats`); detected file by file when omitted.",
            flags=("--reader", "-r"),
        ),
    )
    """One reader for every source; None detects each file's format."""
    on_error: Literal["raise", "skip"] = field(
        default="raise",
        metadata=setting(
            "raise: skip a benchmark with a bad row; skip: drop the row.",
            flags=("--on-error",),
            choices=("raise", "skip"),
        ),
    )
    """Malformed rows: ``raise`` skips the whole benchmark (with the reason); ``skip`` drops the rows, counted."""
    alpha: float = field(
        default=0.05, metadata=setting("False discovery rate across benchmarks (BH).", flags=("--fdr",))
    )
    """False discovery rate of the Benjamini-Hochberg tests across benchmarks."""
    top_cues: int = field(default=3, metadata=setting("Cues listed per benchmark.", bounds=(0, None)))
    """Cues listed per benchmark in the leaderboard."""

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an invalid setting, before any benchmark is read."""
        check_settings(self)
        self.audit.validate()
        if not 0 < self.alpha < 1:
            raise ConfigError(f"alpha must be a false discovery rate in (0, 1), not {self.alpha}")

    def key_settings(self) -> dict[str, object]:
        """The settings that go into every benchmark's cache key."""
        return {**self.audit.to_dict(), "reader": self.reader, "on_error": self.on_error, "top_cues": self.top_cues}
