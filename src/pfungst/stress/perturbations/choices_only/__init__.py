"""``choices-only`` in one folder.

``perturbation.py`` plans and analyses it; ``variant.py`` is how an item is shown
(:class:`~pfungst.stress.perturbations.choices_only.variant.ChoicesOnly`);
``metric.py`` computes what it reports and holds the result
(:class:`~pfungst.stress.perturbations.choices_only.metric.ChoicesOnlyAccuracy`).
Nothing is imported here, so the result type is read back without importing the perturbation.
"""

from __future__ import annotations

__all__: list[str] = []
