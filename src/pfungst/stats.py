"""Statistics used everywhere: every figure pfungst prints is an :class:`Estimate` with its interval or test.

Field names follow one convention (``value``, ``ci`` with ``low`` / ``high``, ``pvalue``, ``baseline``,
``method``, ``n``), modelled on SciPy's result objects.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scipy import stats as _scipy_stats

__all__ = ["ConfidenceInterval", "Estimate", "chisquare_test", "wilson_interval"]


@dataclass(frozen=True)
class ConfidenceInterval:
    """A two-sided interval at ``level`` (0.95 unless stated)."""

    low: float
    high: float
    level: float = 0.95

    def to_dict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high, "level": self.level}


@dataclass(frozen=True)
class Estimate:
    """A figure with what it takes to read it: interval, p-value, the baseline it must beat, and how it was made."""

    value: float
    """The point estimate (or the test statistic, for a test)."""
    method: str
    """How it was computed, e.g. ``"wilson"``, ``"chi-squared test of uniform gold positions"``."""
    n: int
    """Number of observations it rests on."""
    ci: ConfidenceInterval | None = None
    """Confidence interval of ``value``; None for a pure test statistic."""
    pvalue: float = math.nan
    """P-value of the method's null hypothesis; NaN when no test applies."""
    baseline: float = math.nan
    """What ``value`` must beat (chance, majority class); NaN when none applies."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (NaN becomes None)."""

        def clean(x: float) -> float | None:
            return None if isinstance(x, float) and math.isnan(x) else x

        return {
            "value": clean(self.value),
            "ci": self.ci.to_dict() if self.ci else None,
            "pvalue": clean(self.pvalue),
            "baseline": clean(self.baseline),
            "method": self.method,
            "n": self.n,
        }


def wilson_interval(successes: int, n: int, level: float = 0.95) -> ConfidenceInterval:
    """Wilson score interval for a proportion (well-behaved near 0 and 1, unlike the normal approximation).

    Example:
        >>> ci = wilson_interval(45, 100)
        >>> round(ci.low, 3), round(ci.high, 3)
        (0.356, 0.548)
    """
    if n <= 0:
        return ConfidenceInterval(math.nan, math.nan, level)
    z = float(_scipy_stats.norm.ppf(0.5 + level / 2))
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return ConfidenceInterval(max(0.0, centre - half), min(1.0, centre + half), level)


def chisquare_test(observed: Sequence[float], expected: Sequence[float], what: str) -> Estimate:
    """Pearson's chi-squared goodness-of-fit test of ``observed`` counts against ``expected`` counts.

    ``expected`` is rescaled to the observed total. Categories expected to be empty are left out.

    Example:
        >>> round(chisquare_test([30, 10], [20, 20], "gold positions").pvalue, 4)
        0.0016
    """
    pairs = [(o, e) for o, e in zip(observed, expected, strict=True) if e > 0]
    n = int(sum(o for o, _ in pairs))
    if len(pairs) < 2 or n == 0:
        return Estimate(value=math.nan, method=f"chi-squared test: {what}", n=n)
    total_expected = sum(e for _, e in pairs)
    f_obs = [o for o, _ in pairs]
    f_exp = [e * n / total_expected for _, e in pairs]
    result = _scipy_stats.chisquare(f_obs, f_exp)
    return Estimate(value=float(result.statistic), method=f"chi-squared test: {what}", n=n,
                    pvalue=float(result.pvalue))
