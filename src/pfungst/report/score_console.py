"""Kept for :mod:`pfungst.report.stress_console` only: the model-name helper now lives in :mod:`pfungst.blocks`.

A score prints through the generic block renderer (:func:`pfungst.report.console_blocks.render_to_console`).
"""

from __future__ import annotations

from pfungst.blocks import short_model

__all__: list[str] = []

_short_model = short_model
""":func:`pfungst.blocks.short_model`, under the name the stress console imports."""
