"""Multiple comparisons: Benjamini-Hochberg (false discovery rate) and Bonferroni (family-wise error rate)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats as _scipy_stats

from pfungst.errors import ConfigError
from pfungst.serialization import to_jsonable

__all__ = ["BHResult", "benjamini_hochberg", "bonferroni_level", "bonferroni_pvalue"]


def bonferroni_pvalue(pvalue: float, n_tests: int) -> float:
    """A p-value adjusted for having run ``n_tests`` tests: ``min(1, n_tests * pvalue)`` (a NaN p-value gives 1).

    Example:
        >>> bonferroni_pvalue(0.01, 3), bonferroni_pvalue(0.5, 3)
        (0.03, 1.0)
    """
    return min(1.0, pvalue * n_tests)


def bonferroni_level(level: float, n_tests: int) -> float:
    """The coverage each of ``n_tests`` intervals needs for all of them to hold together at ``level``.

    Example:
        >>> round(bonferroni_level(0.95, 5), 4)
        0.99
    """
    return 1 - (1 - level) / n_tests


@dataclass(frozen=True)
class BHResult:
    """Benjamini-Hochberg adjustment of a family of p-values, controlling the false discovery rate at ``alpha``."""

    pvalues: tuple[float, ...]
    """The p-values as given, in the given order."""
    qvalues: tuple[float, ...]
    """BH-adjusted p-values (q-values), in the same order: the smallest FDR at which each would be rejected."""
    rejected: tuple[bool, ...]
    """Whether each null hypothesis is rejected at ``alpha`` (``qvalue <= alpha``)."""
    alpha: float
    """The false discovery rate controlled."""

    @property
    def n_rejected(self) -> int:
        """How many hypotheses are rejected."""
        return sum(self.rejected)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "pvalues": to_jsonable(self.pvalues),
            "qvalues": to_jsonable(self.qvalues),
            "rejected": list(self.rejected),
            "alpha": self.alpha,
            "n_rejected": self.n_rejected,
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per hypothesis, in the given order: pvalue, qvalue, rejected."""
        return pd.DataFrame(
            {"pvalue": list(self.pvalues), "qvalue": list(self.qvalues), "rejected": list(self.rejected)},
            columns=["pvalue", "qvalue", "rejected"],
        )

    def __repr__(self) -> str:
        return f"BHResult({self.n_rejected} of {len(self.pvalues)} rejected at FDR {self.alpha})"


def benjamini_hochberg(
    pvalues: ArrayLike, alpha: float = 0.05, nan_policy: Literal["raise", "omit"] = "raise"
) -> BHResult:
    """Adjust p-values for multiple testing with the Benjamini-Hochberg procedure (false discovery rate).

    Args:
        pvalues: One p-value per hypothesis (1-D, each in [0, 1]).
        alpha: The false discovery rate to control (0.05 by default).
        nan_policy: What a NaN p-value (a test that could not run) does: ``raise`` (default) an error, or ``omit``
            it from the adjustment, giving it a NaN q-value and no rejection.

    Returns:
        The q-values (``scipy.stats.false_discovery_control``, method ``bh``) and which hypotheses are rejected.

    Raises:
        ConfigError: ``pvalues`` is not 1-D or holds values outside [0, 1] (or NaN under ``raise``); ``alpha`` is
            not in (0, 1).

    Example:
        >>> result = benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
        >>> [round(q, 4) for q in result.qvalues], result.rejected
        ([0.02, 0.04, 0.04, 0.02], (True, True, True, True))
        >>> benjamini_hochberg([0.01, float("nan")], nan_policy="omit").qvalues
        (0.01, nan)
    """
    values = np.asarray(pvalues, dtype=float)
    missing = np.isnan(values) if nan_policy == "omit" else np.zeros(values.shape, dtype=bool)
    tested = values[~missing]
    if values.ndim != 1 or np.isnan(tested).any() or ((tested < 0) | (tested > 1)).any():
        raise ConfigError(
            f"Benjamini-Hochberg needs a 1-D sequence of p-values in [0, 1], found {values!r}. "
            "Leave out tests without a p-value (NaN) before adjusting, or pass nan_policy='omit'."
        )
    if not 0 < alpha < 1:
        raise ConfigError(f"alpha must be a false discovery rate in (0, 1), found {alpha}. Use e.g. 0.05.")
    adjusted = iter(_scipy_stats.false_discovery_control(tested, method="bh") if tested.size else ())
    qvalues = tuple(math.nan if skip else float(next(adjusted)) for skip in missing)
    return BHResult(
        pvalues=tuple(float(p) for p in values),
        qvalues=qvalues,
        rejected=tuple(bool(q <= alpha) for q in qvalues),
        alpha=alpha,
    )
