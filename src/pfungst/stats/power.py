"""Power: the smallest true effect a test would detect, so that "no evidence" is read with its resolution."""

from __future__ import annotations

import math

from scipy import optimize
from scipy import stats as _scipy_stats

__all__ = ["detectable_difference"]


def detectable_difference(n_pairs: int, sd: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest mean difference a one-sided paired t-test detects with probability ``power``.

    Solves ``P(T > t_{1-alpha, n-1}) = power`` for the mean difference, where ``T`` follows the noncentral t
    distribution with ``n - 1`` degrees of freedom and noncentrality ``difference * sqrt(n) / sd``. NaN for fewer
    than 2 pairs or a spread of 0 (or NaN).

    Args:
        n_pairs: Number of pairs the test runs on.
        sd: Standard deviation of the paired differences.
        alpha: Significance level of the one-sided test (0.05 by default).
        power: Probability of detecting the difference (0.8 by default).

    Example:
        >>> round(detectable_difference(10, 0.1), 4)  # 10 pairs, SD 0.1 of the differences
        0.0853
    """
    if n_pairs < 2 or not sd > 0 or not 0 < alpha < 1 or not 0 < power < 1:
        return math.nan
    df = n_pairs - 1
    critical = float(_scipy_stats.t.ppf(1 - alpha, df))

    def shortfall(difference: float) -> float:
        return float(_scipy_stats.nct.sf(critical, df, difference * math.sqrt(n_pairs) / sd)) - power

    high = sd
    while shortfall(high) < 0:
        high *= 2
    return float(optimize.brentq(shortfall, 0.0, high, xtol=1e-10))
