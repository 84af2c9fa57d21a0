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
from urllib.parse import urlsplit

from pfungst.errors import ConfigError, MissingDependency

__all__ = ["CONNECT_TIMEOUT", "INSTALL_LINE", "check_cluster_address", "cluster_backend"]

INSTALL_LINE = "pip install 'pfungst[dask]'"
"""How to install what ``--cluster`` needs (dask.distributed)."""

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a Dask scheduler to answer before ``--cluster ADDRESS`` fails."""

_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")
_FORM = "give 'local' (a LocalCluster on this machine) or a Dask scheduler address of the form tcp://HOST:PORT"


def check_cluster_address(address: str) -> None:
    """Raise :class:`ConfigError` for an address that is neither empty, ``local`` nor a scheduler URL.

    A scheduler URL is ``SCHEME://HOST:PORT`` (``tcp``, ``tls``, ``ucx``, ``ws``, ``wss``; the port may be left
    out: Dask's 8786) or ``inproc://...``.

    Example:
        >>> check_cluster_address("tcp://127.0.0.1:8786")
        >>> check_cluster_address("127.0.0.1:8786")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: --cluster '127.0.0.1:8786': no scheme; give 'local' ... such as tcp://127.0.0.1:8786
    """
    if not address or address == "local":
        return
    problem = _address_problem(address)
    if problem:
        host, colon, port = address.rpartition(":")
        example = f"tcp://{address}" if "://" not in address and colon and host and port.isdigit() else ""
        raise ConfigError(f"--cluster {address!r}: {problem}; {_FORM}, such as {example or 'tcp://127.0.0.1:8786'}")


def _address_problem(address: str) -> str:
    """What is wrong with a scheduler address, or '' when nothing is."""
    scheme, separator, rest = address.partition("://")
    if not separator:
        return "no scheme"
    if scheme not in _SCHEMES:
        return f"unknown scheme {scheme!r} (Dask speaks {', '.join(_SCHEMES)})"
    if scheme == "inproc":
        return "" if rest else "no address after inproc://"
    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError:
        return "the port is not a number from 1 to 65535"
    if not parts.hostname:
        return "no host"
    if port == 0:
        return "the port is not a number from 1 to 65535"
    if parts.path.strip("/") or parts.query:
        return "expected only a host and a port"
    return ""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise MissingDependency(f"--cluster needs dask.distributed, which is not installed: {INSTALL_LINE}") from exc
    return distributed


@contextmanager
def cluster_backend(address: str, n_workers: int = 1, *, connect_timeout: float = CONNECT_TIMEOUT) -> Iterator[None]:
    """Inside this context, joblib runs ``Parallel`` jobs on the Dask cluster at ``address`` (nothing if empty).

    Args:
        address: ``""`` (joblib on this machine, as configured), ``local`` (a LocalCluster of ``n_workers``
            single-threaded worker processes, at least 2, closed on exit) or a scheduler address.
        n_workers: Worker processes of a ``local`` cluster.
        connect_timeout: Seconds to wait for the scheduler at ``address`` to answer.

    Raises:
        ConfigError: an address of the wrong form, or no scheduler answering there within ``connect_timeout``.
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
        cluster, client = None, _connect(distributed, address, connect_timeout)
    try:
        with parallel_config(backend="dask"):
            yield
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _connect(distributed: Any, address: str, timeout: float) -> Any:
    """A client of the scheduler at ``address``; a ConfigError saying what to do when none answers in time."""
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise ConfigError(
            f"--cluster {address}: no Dask scheduler answered there within {timeout:g} s. Start one with "
            f"`dask scheduler` (and workers with `dask worker {address}`), or drop --cluster to run on this machine"
        ) from exc
