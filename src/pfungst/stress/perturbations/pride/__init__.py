"""``pride``: PriDe debiasing (Zheng et al., ICLR 2024), the whole perturbation in one folder.

:mod:`~pfungst.stress.perturbations.pride.perturbation` plans and analyses it (its parameter ``fraction``),
:mod:`~pfungst.stress.perturbations.pride.estimate` estimates the prior and debiases,
:mod:`~pfungst.stress.perturbations.pride.result` is what it reports. Nothing is imported here, so the result type
can be read back without importing the perturbation (``import pfungst.stress.perturbations.pride.estimate as
estimate``).
"""

from __future__ import annotations

__all__: list[str] = []
