"""The C grid of the probes' classifiers: its default, its bounds, how it is checked and read from text, and how the
grid's item-level classifiers are fitted (``solvers``). Kept apart from :mod:`~pfungst.audit.classifiers` (which
needs scikit-learn) so that the audit's settings load without it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pfungst.errors import ConfigError

__all__ = ["DEFAULT_C_GRID", "MAX_C", "MIN_C", "Solvers", "check_c_grid", "parse_c_grid", "show_c_grid"]

Solvers = Literal["liblinear", "sklearn"]
"""How a grid entry is fitted at the item level: ``liblinear`` (both penalties by liblinear at its own tolerance,
:func:`~pfungst.audit.classifiers.liblinear_tol`) or ``sklearn`` (scikit-learn's defaults: lbfgs for L2, multinomial
for K > 2; liblinear for L1; tolerance 1e-4)."""

DEFAULT_C_GRID: tuple[float, ...] = (0.01, 0.1, 1.0, 10.0, 100.0)
"""Inverse regularisation strengths tried for each penalty under ``crossfit`` (ties go to the smaller ``C``). Every
decade counts: one cue word among many in term frequencies is found by L1 at 0.1 and lost at 0.01 and 1."""

MIN_C, MAX_C = 1e-6, 1e6
"""The range a ``C`` of the grid must lie in. liblinear converges in the same time from 1e-20 to 1e10 on a
40-item audit but never returns at 1e-300 (it ran past 200 s); six decades either side of the default grid leave
every useful regularisation strength and a wide margin from where the solvers break down."""


def check_c_grid(c_grid: Sequence[float], option: str = "c_grid (--c-grid)") -> None:
    """Raise :class:`ConfigError` unless every ``C`` of ``c_grid`` is a finite number from :data:`MIN_C` to
    :data:`MAX_C` (an empty grid is allowed: the named classifiers' own ``C``).

    Example:
        >>> check_c_grid([0.1, 1e-300])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: c_grid (--c-grid): every C must be a number from 1e-06 to 1e+06, found 1e-300 ...
    """
    for C in c_grid:
        if isinstance(C, bool) or not isinstance(C, int | float) or not MIN_C <= C <= MAX_C:
            raise ConfigError(
                f"{option}: every C must be a number from {MIN_C:g} to {MAX_C:g}, found {C!r} (C values outside "
                "that range make liblinear hang or fail). The default is " + show_c_grid(DEFAULT_C_GRID)
            )


def parse_c_grid(text: str) -> tuple[float, ...]:
    """The C values of ``text``, numbers separated by commas (``"0.01,1,100"``).

    Raises:
        ConfigError: an empty list, an empty part or a part that is not a number.
    """
    parts = text.split(",")
    try:
        if any(not part.strip() for part in parts):
            raise ValueError
        return tuple(float(part) for part in parts)
    except ValueError:
        raise ConfigError(
            f"{text!r} is not a list of numbers: give C values separated by commas, e.g. 0.01,1,100"
        ) from None


def show_c_grid(c_grid: Sequence[float]) -> str:
    """The C values as the text :func:`parse_c_grid` reads (``0.01,0.1,1,10,100``)."""
    return ",".join(f"{c:g}" for c in c_grid)
