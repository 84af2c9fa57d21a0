"""A release gate for benchmark authors: does an audit (or a suite) breach the rule given with ``--fail-on``?

Rules, from strictest to most specific:

- ``signal``: the verdict is "predictable", or a signal is present below the threshold (the interval excludes 0);
- ``predictable``: the verdict is "predictable" (for per-item benchmarks this includes a gold-position artifact,
  since position-aware probes count in the verdict);
- ``content``: the content verdict (probes that cannot see positions) is "predictable" from options alone, partial
  input, or the full input of per-item choices: a shortcut. A full-input finding on a shared-label task (the words
  of the input give the label, as they should in sentiment, intent or topic tasks) does not breach it;
- ``lexical``: the content verdict is such a full-input finding on a shared-label task (ask for it when the task
  claims more than word-level classification);
- ``position``: the gold-position artifact is flagged (guessing the usual gold slot clears the threshold).

The command line exits with :data:`GATE_EXIT_CODE` when the gate fails, with the reasons on stderr.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from pfungst.errors import ConfigError

if TYPE_CHECKING:  # the command line reads the rules at start-up, before any audit module loads
    from pfungst.audit.position_content import PositionArtifact
    from pfungst.audit.result import Verdict

__all__ = ["FAIL_ON", "GATE_EXIT_CODE", "FailOn", "GateResult", "check_gate", "check_gates"]

FailOn = Literal["signal", "predictable", "content", "lexical", "position"]
FAIL_ON: tuple[str, ...] = get_args(FailOn)
GATE_EXIT_CODE = 3
"""Exit code of ``pfungst audit`` / ``pfungst suite`` when ``--fail-on`` is breached (2 stays "user error")."""


@dataclass(frozen=True)
class GateResult:
    """Whether the gate held, and for each breach the benchmark and the finding that breached it."""

    rule: str
    failures: tuple[str, ...]
    """One line per breach: ``benchmark: finding``."""
    n_checked: int

    @property
    def failed(self) -> bool:
        """A breach, or nothing checked: a gate that saw no benchmark cannot vouch for any."""
        return bool(self.failures) or self.n_checked == 0

    def __str__(self) -> str:
        if self.n_checked == 0:
            return (
                f"gate --fail-on {self.rule}: FAILED: nothing was checked (0 benchmarks audited). "
                "Every source was skipped or ignored: see the skipped and ignored lists"
            )
        if not self.failed:
            return f"gate --fail-on {self.rule}: passed ({self.n_checked} benchmark(s) checked)"
        lines = [f"gate --fail-on {self.rule}: FAILED for {len(self.failures)} of {self.n_checked} benchmark(s)"]
        return "\n".join(lines + [f"  {failure}" for failure in self.failures])


def check_gate(
    rule: str, benchmark: str, verdict: Verdict, content: Verdict, position: PositionArtifact | None
) -> GateResult:
    """Check one benchmark's findings against ``rule``.

    Raises:
        ConfigError: an unknown rule (the message lists the rules).

    Example:
        >>> from pfungst.audit.result import Verdict
        >>> from pfungst.stats import ConfidenceInterval, Estimate
        >>> verdict = Verdict("no evidence", "options", "kappa",
        ...                   Estimate(0.1, "m", 100, ConfidenceInterval(0.06, 0.2)), 0.2, 3)
        >>> check_gate("predictable", "toy", verdict, verdict, None).failed
        False
        >>> print(check_gate("signal", "toy", verdict, verdict, None))  # doctest: +ELLIPSIS
        gate --fail-on signal: FAILED for 1 of 1 benchmark(s)
          toy: signal below threshold: ...
    """
    if rule not in FAIL_ON:
        raise ConfigError(f"Unknown --fail-on rule {rule!r}. Available: {', '.join(FAIL_ON)}")
    failures = []
    if rule in ("signal", "predictable") and verdict.label == "predictable":
        failures.append(f"{benchmark}: {verdict.explanation}")
    elif rule == "signal" and verdict.signal_below_threshold:
        failures.append(f"{benchmark}: signal below threshold: {verdict.explanation}")
    if rule == "content" and content.label == "predictable" and not content.lexical:
        failures.append(f"{benchmark}: content {content.explanation}")
    if rule == "lexical" and content.lexical:
        failures.append(f"{benchmark}: content {content.explanation}")
    if rule == "position" and position is not None and position.flagged:
        failures.append(f"{benchmark}: {position.explanation}")
    return GateResult(rule, tuple(failures), 1)


def check_gates(rule: str, results: Iterable[GateResult]) -> GateResult:
    """Several benchmarks' gates as one (a suite fails when any of its benchmarks does)."""
    checked = list(results)
    failures = tuple(failure for result in checked for failure in result.failures)
    return GateResult(rule, failures, sum(result.n_checked for result in checked))
