"""Probe protocols as objects, one module each: :class:`CrossFit` (the default) and :class:`Pacchiardi2024`.

:data:`PROTOCOLS` maps each name (what settings, result files and ``--protocol`` hold) to its class;
:func:`get_protocol` reads a name back to the object. Adding one is a module with a
:class:`~pfungst.audit.protocols.base.ProbeProtocol` subclass and one line here.

Example:
    >>> get_protocol("pacchiardi2024"), get_protocol("crossfit").name
    (Pacchiardi2024(), 'crossfit')
    >>> get_protocol("crosfit")
    Traceback (most recent call last):
    ...
    pfungst.errors.ConfigError: Unknown protocol 'crosfit'. Did you mean: crossfit? Available: crossfit, pacchiardi2024
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.audit.protocols.base import ProbeProtocol
from pfungst.lazy import lazy_exports
from pfungst.registry import Registry

if TYPE_CHECKING:
    from pfungst.audit.protocols.crossfit import CrossFit
    from pfungst.audit.protocols.pacchiardi2024 import Pacchiardi2024

__all__ = ["PROTOCOLS", "CrossFit", "Pacchiardi2024", "ProbeProtocol", "get_protocol"]

_HERE = "pfungst.audit.protocols"

PROTOCOLS: Registry[type[ProbeProtocol]] = Registry(
    "protocol",
    {"crossfit": f"{_HERE}.crossfit:CrossFit", "pacchiardi2024": f"{_HERE}.pacchiardi2024:Pacchiardi2024"},
    group=None,
)
"""Protocol name -> its class (imported when the name is first resolved)."""


def get_protocol(protocol: str | ProbeProtocol) -> ProbeProtocol:
    """The protocol called ``protocol`` (an object is returned as it is).

    Raises:
        ConfigError: an unknown name, with close matches and every name.
    """
    if isinstance(protocol, ProbeProtocol):
        return protocol
    return PROTOCOLS.resolve(protocol)()


__getattr__, __dir__ = lazy_exports(
    __name__,
    {"CrossFit": f"{_HERE}.crossfit", "Pacchiardi2024": f"{_HERE}.pacchiardi2024"},
    globals(),
)
