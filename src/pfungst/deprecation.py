"""Old spellings kept for one release: a :class:`DeprecationWarning` that points at the user's line.

Python shows a ``DeprecationWarning`` by default only when it is attributed to ``__main__``, so the warning names
the first caller outside pfungst (and outside :mod:`dataclasses`, whose generated ``__init__`` and ``replace`` sit
between a user and a config's ``__post_init__``), wherever in pfungst the old name was noticed.
"""

from __future__ import annotations

import sys
import warnings

__all__ = ["warn_renamed"]

_INTERNAL = ("pfungst", "dataclasses")


def warn_renamed(old: str, new: str) -> None:
    """Warn that ``old`` is now spelled ``new``; the old spelling keeps working until the next release.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     warn_renamed("load(format=...)", "load(reader=...)")
        >>> str(caught[0].message)
        'load(format=...) is deprecated: use load(reader=...) (the old spelling goes in the next release)'
    """
    warnings.warn(
        f"{old} is deprecated: use {new} (the old spelling goes in the next release)",
        DeprecationWarning,
        stacklevel=_first_outside_caller(),
    )


def _first_outside_caller() -> int:
    """The ``stacklevel`` of the first frame above :func:`warn_renamed` whose module is not pfungst's own."""
    level, frame = 2, sys._getframe(2)  # 1 is warn_renamed itself, 2 its caller
    while str(frame.f_globals.get("__name__", "")).split(".")[0] in _INTERNAL and frame.f_back is not None:
        level, frame = level + 1, frame.f_back
    return level
