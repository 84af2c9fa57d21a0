"""Run an audit's (feature set, fold) jobs on a Dask cluster through joblib's Dask backend.

``--cluster local`` starts a ``dask.distributed.LocalCluster`` of worker processes on this machine for the run;
``--cluster tcp://host:8786`` connects to a running scheduler (``dask scheduler`` with ``dask worker`` processes
pointed at it). pfungst writes no scheduler of its own: the probe hands its jobs to ``joblib.Parallel``, and inside
:func:`cluster_backend` joblib sends them to Dask. Each job is seeded by its (repeat, fold) and returns its result
to the caller, which assembles the probes in job order, so the outcome is the same, bit for bit, as a serial run.
Dask retries a job whose worker died (``distributed``'s ``allowed-failures``), so a killed worker loses no work.

Needs the extra: ``pip install 'pfungst[dask]'``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pfungst.errors import ConfigError, MissingDependency

__all__ = ["INSTALL_LINE", "check_cluster_address", "cluster_backend"]

INSTALL_LINE = "pip install 'pfungst[dask]'"
"""How to install what ``--cluster`` needs (dask.distributed)."""

_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")


def check_cluster_address(address: str) -> None:
    """Raise :class:`ConfigError` for an address that is neither empty, ``local`` nor a scheduler URL.

    Example:
        >>> check_cluster_address("tcp://127.0.0.1:8786")
        >>> check_cluster_address("127.0.0.1:8786")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: --cluster '127.0.0.1:8786': give 'local' ... such as tcp://127.0.0.1:8786
    """
    if address and address != "local" and not address.startswith(_SCHEMES):
        raise ConfigError(
            f"--cluster {address!r}: give 'local' (a LocalCluster on this machine) or a Dask scheduler address "
            f"such as tcp://{address if '://' not in address else '127.0.0.1:8786'}"
        )


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise MissingDependency(f"--cluster needs dask.distributed, which is not installed: {INSTALL_LINE}") from exc
    return distributed


@contextmanager
def cluster_backend(address: str, n_workers: int = 1) -> Iterator[None]:
    """Inside this context, joblib runs ``Parallel`` jobs on the Dask cluster at ``address`` (nothing if empty).

    Args:
        address: ``""`` (joblib on this machine, as configured), ``local`` (a LocalCluster of ``n_workers``
            single-threaded worker processes, at least 2, closed on exit) or a scheduler address.
        n_workers: Worker processes of a ``local`` cluster.

    Raises:
        ConfigError: an address of the wrong form.
        MissingDependency: dask.distributed is not installed (the message gives the install line).
    """
    check_cluster_address(address)
    if not address:
        yield
        return
    from joblib import parallel_config

    distributed = _distributed()
    if address == "local":
        cluster = distributed.LocalCluster(
            n_workers=max(2, n_workers), threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = distributed.Client(cluster)
    else:
        cluster, client = None, distributed.Client(address)
    try:
        with parallel_config(backend="dask"):
            yield
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
