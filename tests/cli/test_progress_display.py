"""The progress bar: the stage by name, done/total with a bound marked, and the time left from the measured rate
(a fake clock; the console writes to a string, STYLE rule 36)."""

from __future__ import annotations

import io

from rich.console import Console

from pfungst.cli.progress_display import ProgressDisplay
from pfungst.stress.progress import AtLeast, AtMost


class Clock:
    """Seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _display(clock: Clock, **options: object) -> ProgressDisplay:
    return ProgressDisplay(Console(file=io.StringIO(), force_terminal=True, width=120), clock=clock, **options)


def test_the_first_stage_is_named_before_any_report() -> None:
    display = _display(Clock(), first_step="writing the benchmarks")
    assert display.row().startswith("writing the benchmarks 0/?")


def test_the_time_left_is_the_work_left_over_the_measured_rate() -> None:
    clock = Clock()
    display = _display(clock)
    display("first pass: identity", 0, 435)
    clock.now = 60.0
    display("first pass: identity", 30, 435)  # 0.5 requests a second: 405 left take 810 s
    assert display.row() == "first pass: identity 30/435 0:01:00 0:13:30"
    clock.now = 70.0  # no report for 10 s: the estimate counts down
    assert display.remaining() == "0:13:20"


def test_the_rate_starts_when_the_count_does_not_when_the_bar_appears() -> None:
    clock = Clock()
    display = _display(clock)
    display("loading the model", 0, 100)
    clock.now = 300.0  # five minutes of loading and planning
    display("first pass", 0, 100)
    clock.now = 310.0
    display("first pass", 50, 100)
    assert display.remaining() == "0:00:10"


def test_no_estimate_before_a_few_requests_and_a_new_count_starts_a_new_rate() -> None:
    clock = Clock()
    display = _display(clock, min_done=3)
    display("audit", 0, 10)
    clock.now = 1.0
    display("audit", 2, 10)
    assert display.remaining() == "-:--:--"
    clock.now = 2.0
    display("audit", 10, 10)
    clock.now = 100.0
    display("stress", 4, 40)  # the count went down: the audit's rate says nothing about the stress run's
    assert display.remaining() == "-:--:--"
    clock.now = 110.0
    display("stress", 8, 40)
    assert display.remaining() == "0:01:20"


def test_a_bounded_total_is_marked_on_the_count_and_the_time_left() -> None:
    clock = Clock()
    display = _display(clock)
    display("first pass", 0, AtMost(40))
    clock.now = 10.0
    display("first pass", 10, AtMost(40))
    assert display.row() == "first pass 10/≤40 0:00:10 ≤0:00:30"
    display("spread-search", 10, AtLeast(40))
    assert "10/≥40" in display.row()
    display("top2", 10, 30)
    assert "10/30 " in display.row()


def test_the_bar_draws_on_the_given_console() -> None:
    out = io.StringIO()
    clock = Clock()
    with ProgressDisplay(Console(file=out, force_terminal=True, width=120), clock=clock) as display:
        display("first pass: identity", 0, AtMost(12))
        display.progress.refresh()
    assert "first pass: identity" in out.getvalue() and "0/≤12" in out.getvalue()
