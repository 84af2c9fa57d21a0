"""``formats`` in one folder.

``perturbation.py`` plans and analyses it; ``metric.py`` computes what it reports and holds the result. Nothing is
imported here, so the result type is read back without importing the perturbation.
"""

from __future__ import annotations

__all__: list[str] = []
