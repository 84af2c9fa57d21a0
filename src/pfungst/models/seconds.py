"""Bounds of every timeout-like setting of a model server (timeout, deadline, retry budget), checked when the
settings are built: a NaN, an infinity, zero or a negative number would reach the HTTP client and fail there (NaN as
a ``ValueError``, infinity as an ``OverflowError``) or wait forever.

Example:
    >>> check_seconds("--timeout", 30.0)
    >>> check_seconds("--timeout", float("nan"))
    Traceback (most recent call last):
    ...
    pfungst.errors.ConfigError: --timeout nan: give a number of seconds above 0 and at most 86400 (one day).
"""

from __future__ import annotations

import math

from pfungst.errors import ConfigError

__all__ = ["MAX_SECONDS", "check_seconds"]

MAX_SECONDS = 86_400.0
"""The longest any timeout, deadline or retry budget may be: one day (longer is a mistake, and past about 10^9 s the
operating system's timers overflow)."""


def check_seconds(name: str, value: float | None, *, zero: bool = False) -> None:
    """Refuse ``value`` unless it is a finite number of seconds above 0 (or 0 itself, with ``zero``) and at most
    :data:`MAX_SECONDS`; ``None`` (the default) passes.

    Args:
        name: The option or parameter, for the message (``--timeout``, ``retry_budget``).
        value: The seconds given.
        zero: Whether 0 is allowed (a retry budget of 0: no retries).

    Raises:
        ConfigError: naming ``name``, the value and the bounds.
    """
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{name} {value!r}: give a number of seconds, e.g. 30.")
    low_ok = value >= 0 if zero else value > 0
    if not (math.isfinite(value) and low_ok and value <= MAX_SECONDS):
        low = "0 or more" if zero else "above 0"
        raise ConfigError(f"{name} {value:g}: give a number of seconds {low} and at most {MAX_SECONDS:g} (one day).")
