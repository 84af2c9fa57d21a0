"""Console lines that are no result: the list of readers, and the estimate line the stress console uses.

Results print through the generic block renderer (:func:`pfungst.report.console_blocks.render_to_console`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from pfungst.stats import Estimate

__all__ = ["render_readers"]


def _estimate_line(label: str, estimate: Estimate) -> str:
    ci = f" [{estimate.ci.low:.3f}, {estimate.ci.high:.3f}]" if estimate.ci else ""
    baseline = f", chance {estimate.baseline:.3f}" if not math.isnan(estimate.baseline) else ""
    return f"{label}: {estimate.value:.3f}{ci}{baseline} (n={estimate.n})"


def render_readers(rows: list[tuple[str, str]], console: Console) -> None:
    """One line per reader: name and description."""
    width = max((len(name) for name, _ in rows), default=0)
    for name, description in rows:
        console.print(f"{name:<{width}}  {escape(description)}", highlight=False, soft_wrap=True)
