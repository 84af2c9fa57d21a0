"""The one progress bar of a command (STYLE rule 29): stage, bar, done/total, elapsed and time left.

The time left comes from the rate measured since the counter last started (a report with nothing done yet, or
one whose count went down: the next audit, the stress run after the audits), so a model's loading time and earlier
stages do not skew it, and it counts down between reports. It appears once ``min_done`` units are done. A total that
is only a bound (:class:`~pfungst.stress.progress.AtMost`, :class:`~pfungst.stress.progress.AtLeast`) shows as
``240/≤435``, and so does the time left computed from it. Output and time are injectable (STYLE rule 36).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TextColumn, TimeElapsedColumn
from rich.text import Text

from pfungst.stress.progress import AtLeast, AtMost

__all__ = ["ProgressDisplay", "bound_marker"]

_UNKNOWN = "-:--:--"


def bound_marker(total: int | None) -> str:
    """``≤`` before an upper-bound total, ``≥`` before a lower bound, nothing before an exact one."""
    if isinstance(total, AtMost):
        return "≤"
    if isinstance(total, AtLeast):
        return "≥"
    return ""


def _clock_text(seconds: float) -> str:
    whole = max(0, int(round(seconds)))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


class _CountColumn(ProgressColumn):
    """``240/435``, ``240/≤435`` for a bound, ``240/?`` while the total is unknown."""

    def render(self, task: Task) -> Text:
        total = "?" if task.total is None else f"{task.fields.get('marker', '')}{int(task.total)}"
        return Text(f"{int(task.completed)}/{total}", style="progress.download")


class _RemainingColumn(ProgressColumn):
    """Time left from the measured rate: units done since the counter's origin over the seconds they took."""

    def __init__(self, min_done: int) -> None:
        super().__init__()
        self.min_done = min_done

    def render(self, task: Task) -> Text:
        origin, last = task.fields.get("origin"), task.fields.get("last")
        if task.total is None or origin is None or last is None:
            return Text(_UNKNOWN, style="progress.remaining")
        (start, done_at_start), (latest, done) = origin, last
        if done - done_at_start < self.min_done or latest <= start:
            return Text(_UNKNOWN, style="progress.remaining")
        rate = (done - done_at_start) / (latest - start)
        left = (task.total - done) / rate - (task.get_time() - latest)
        return Text(task.fields.get("marker", "") + _clock_text(left), style="progress.remaining")


class ProgressDisplay:
    """A transient progress bar on ``console``, fed by ``display(step, done, total)`` calls.

    Args:
        console: Where it draws (the stderr console; a ``Console(file=io.StringIO())`` in tests).
        first_step: The stage shown before the first report (what the command does first).
        disable: Show nothing (``--quiet``).
        clock: Seconds from a monotonic clock (``time.monotonic``; a fake one in tests).
        min_done: Units done before the time left is shown.

    Example:
        >>> import io
        >>> now = [0.0]  # a clock the example moves by hand
        >>> display = ProgressDisplay(Console(file=io.StringIO()), clock=lambda: now[0])
        >>> display("asking", 0, 100)
        >>> now[0] = 20.0
        >>> display("asking", 10, 100)  # 10 in 20 s: 0.5 a second, 90 to go
        >>> display.row()
        'asking 10/100 0:00:20 0:03:00'
    """

    def __init__(
        self,
        console: Console,
        *,
        first_step: str = "starting",
        disable: bool = False,
        clock: Callable[[], float] = time.monotonic,
        min_done: int = 3,
    ) -> None:
        self._clock = clock
        self._remaining = _RemainingColumn(min_done)
        columns = (TextColumn("{task.description}"), BarColumn(), _CountColumn(), TimeElapsedColumn(), self._remaining)
        self.progress = Progress(*columns, console=console, disable=disable, transient=True, get_time=clock)
        self._task: TaskID = self.progress.add_task(escape(first_step), total=None)
        self._origin: tuple[float, int] | None = None
        self._last: tuple[float, int] | None = None

    def __enter__(self) -> ProgressDisplay:
        self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.progress.stop()

    def __call__(self, step: str, done: int, total: int | None) -> None:
        """Show ``step`` with ``done`` of ``total`` units; a count that starts again (0, or lower than the last)
        restarts the rate."""
        now = self._clock()
        if self._last is None or done == 0 or done < self._last[1]:
            self._origin = (now, done)
        self._last = (now, done)
        self.progress.update(
            self._task,
            description=escape(step),
            completed=done,
            total=total,
            marker=bound_marker(total),
            origin=self._origin,
            last=self._last,
        )

    def remaining(self) -> str:
        """The time left as shown (``-:--:--`` before ``min_done`` units)."""
        return self._remaining.render(self.progress.tasks[0]).plain

    def row(self) -> str:
        """The whole row as shown: stage, done/total, elapsed and time left (the bar left out)."""
        task = self.progress.tasks[0]
        shown = [
            column.render(task)
            for column in self.progress.columns
            if isinstance(column, ProgressColumn) and not isinstance(column, BarColumn)
        ]
        return " ".join(text.plain if isinstance(text, Text) else str(text) for text in shown)
