"""The settings of the validity screen (:class:`ValidityConfig`), apart from :mod:`pfungst.reliance.validity` so that
they load without numpy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pfungst.errors import ConfigError
from pfungst.settings import setting

__all__ = ["IrtMethod", "ValidityConfig"]

IrtMethod = Literal["jml", "mml"]
"""How the 2PL IRT model is fitted: joint (``jml``, fast) or marginal (``mml``, slow) maximum likelihood."""


@dataclass(frozen=True)
class ValidityConfig:
    """Settings of the validity screen."""

    alpha: float = field(default=0.05, metadata=setting("False discovery rate over each dataset's items (BH)."))
    """False discovery rate of the Benjamini-Hochberg adjustment over each dataset's items."""
    majority: float = field(
        default=0.5,
        metadata=setting("A key is suspected when more than this share of models agree on one other answer."),
    )
    """A key is suspected only when more than this share of the models that answered agree on one other answer."""
    irt: bool = True
    """Fit the 2PL IRT model (needs girth)."""
    irt_method: IrtMethod = "jml"
    """``jml`` (joint maximum likelihood, fast) or ``mml`` (marginal, slow): :mod:`~pfungst.reliance.validity.irt`."""
    label_issues: bool = True
    """Score keys with cleanlab where models gave probabilities (needs cleanlab then)."""

    def validate(self) -> None:
        """Raise :class:`ConfigError` for an invalid setting."""
        if not 0 < self.alpha < 1:
            raise ConfigError(f"alpha must be a false discovery rate in (0, 1), found {self.alpha}")
        if not 0 <= self.majority < 1:
            raise ConfigError(f"majority must be a share in [0, 1), found {self.majority}")
        if self.irt_method not in ("jml", "mml"):
            raise ConfigError(f"irt_method must be 'jml' or 'mml', found {self.irt_method!r}")
