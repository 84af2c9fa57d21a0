"""One BLAS thread around a probe's many small fits, set without rescanning the process's libraries each time.

``threadpoolctl.threadpool_limits`` finds the loaded BLAS libraries anew on every call (about 3 ms: it walks every
shared library of the process); an audit enters it once per fold job, hundreds of times. A
``ThreadpoolController`` does that walk once and then limits in microseconds. It is made again when modules have
been imported since (a new module may have loaded another BLAS), so every BLAS library a fit can use is limited, as
with ``threadpool_limits``.

Example:
    >>> with one_blas_thread():
    ...     pass
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread"]

_LOCK = threading.Lock()
_FOUND: list[tuple[int, ThreadpoolController]] = []
"""The controller and how many modules were loaded when it looked for libraries (at most one entry)."""


def _controller() -> ThreadpoolController:
    """This process's controller, made again if modules were imported since it was made."""
    with _LOCK:
        loaded = len(sys.modules)
        if not _FOUND or _FOUND[0][0] != loaded:
            _FOUND[:] = [(loaded, ThreadpoolController())]
        return _FOUND[0][1]


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """``threadpool_limits(limits=1, user_api="blas")``, from a controller that found the libraries once."""
    with _controller().limit(limits=1, user_api="blas"):
        yield
