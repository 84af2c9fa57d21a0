"""A release gate for benchmark authors: does an audit (or a suite) breach the rules given with ``--fail-on``?

The gate reads each audit's headline (:class:`~pfungst.audit.headline.Headline`: its certainty and its
``findings``) and its verdict; it computes nothing. ``--fail-on`` is repeatable and every rule given applies (the
gate fails when any of them is breached). Rules:

- ``signal``: anything ``predictable`` breaches, or a signal is present below the threshold (the verdict's interval
  excludes 0);
- ``predictable``: any finding whose lower bound clears the threshold: the verdict, a gold-position artifact, a
  label prior, or content, including content the task declares it is answered from (``expected``);
- ``content``: the content (probes that cannot see positions) is predictable and the task does not declare it is
  answered from its words: a shortcut from the options alone, a partial input, or the full input. A full-input
  finding on a shared-label task breaches it too, unless declared (``--lexical-task`` or BIG-bench keywords);
- ``position``: the gold-position artifact is flagged (guessing the usual gold slot clears the threshold);
- ``label-prior``: always giving the majority answer clears the threshold above chance (shared labels);
- ``inconclusive``: the headline is inconclusive: too few items to rule out a cue of the threshold's size.

The command line exits with :data:`GATE_EXIT_CODE` when the gate fails, with the reasons on stderr.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from pfungst.errors import ConfigError

if TYPE_CHECKING:  # the command line reads the rules at start-up, before any audit module loads
    from pfungst.audit.headline import Headline
    from pfungst.audit.verdict import Verdict

__all__ = ["FAIL_ON", "GATE_EXIT_CODE", "FailOn", "GateResult", "check_gate", "check_gates", "check_rules"]

FailOn = Literal["signal", "predictable", "content", "position", "label-prior", "inconclusive"]
FAIL_ON: tuple[str, ...] = get_args(FailOn)
GATE_EXIT_CODE = 3
"""Exit code of ``pfungst audit`` / ``pfungst suite`` when ``--fail-on`` is breached (2 stays "user error")."""

_FINDING = {"content": "content", "position": "position", "label-prior": "label prior"}
"""The rules that each catch one kind of the headline's ``findings``."""


@dataclass(frozen=True)
class GateResult:
    """Whether the gate held, and for each breach the rule, the benchmark and the finding that breached it."""

    rules: tuple[str, ...]
    """The rules applied (every one given with ``--fail-on``)."""
    failures: tuple[str, ...]
    """One line per benchmark that breached a rule: ``benchmark: [rule, rule] headline sentence``."""
    n_checked: int

    @property
    def failed(self) -> bool:
        """A breach, or nothing checked: a gate that saw no benchmark cannot vouch for any."""
        return bool(self.failures) or self.n_checked == 0

    def __str__(self) -> str:
        gate = "gate " + " ".join(f"--fail-on {rule}" for rule in self.rules)
        if self.n_checked == 0:
            return (
                f"{gate}: FAILED: nothing was checked (0 benchmarks audited). "
                "Every source was skipped or ignored: see the skipped and ignored lists"
            )
        if not self.failed:
            return f"{gate}: passed ({self.n_checked} benchmark(s) checked)"
        lines = [f"{gate}: FAILED for {len(self.failures)} of {self.n_checked} benchmark(s)"]
        return "\n".join(lines + [f"  {failure}" for failure in self.failures])


def check_rules(rules: Sequence[str]) -> tuple[str, ...]:
    """``rules`` checked and de-duplicated, in the order given.

    Raises:
        ConfigError: an unknown rule (the message lists the rules).
    """
    for rule in rules:
        if rule not in FAIL_ON:
            raise ConfigError(f"Unknown --fail-on rule {rule!r}. Available: {', '.join(FAIL_ON)}")
    return tuple(dict.fromkeys(rules))


def check_gate(rules: str | Sequence[str], benchmark: str, verdict: Verdict, headline: Headline) -> GateResult:
    """Check one benchmark's headline and verdict against every rule of ``rules`` (all apply).

    Raises:
        ConfigError: an unknown rule (the message lists the rules).

    Example:
        >>> from pfungst.audit import audit
        >>> from pfungst.data.synthetic import make_synthetic
        >>> result = audit(make_synthetic("gold-position", 200), n_bootstrap=100, n_permutations=50, cues=False)
        >>> check_gate(["content"], "toy", result.verdict, result.headline).failed
        False
        >>> print(check_gate(["content", "position"], "toy", result.verdict, result.headline))  # doctest: +ELLIPSIS
        gate --fail-on content --fail-on position: FAILED for 1 of 1 benchmark(s)
          toy: [position] Position artifact: gold is the first option (A) ...
    """
    checked = check_rules([rules] if isinstance(rules, str) else rules)
    breached = [rule for rule in checked if _breached(rule, verdict, headline)]
    failures = (f"{benchmark}: [{', '.join(breached)}] {headline.sentence}",) if breached else ()
    return GateResult(checked, failures, 1)


def _breached(rule: str, verdict: Verdict, headline: Headline) -> bool:
    predictable = bool(headline.findings) or verdict.label == "predictable"
    if rule == "signal":
        return predictable or verdict.signal_below_threshold
    if rule == "predictable":
        return predictable
    if rule == "inconclusive":
        return headline.certainty == "inconclusive"
    return _FINDING[rule] in headline.findings


def check_gates(rules: str | Sequence[str], results: Iterable[GateResult]) -> GateResult:
    """Several benchmarks' gates as one (a suite fails when any of its benchmarks does)."""
    checked = list(results)
    failures = tuple(failure for result in checked for failure in result.failures)
    return GateResult(
        check_rules([rules] if isinstance(rules, str) else rules), failures, sum(r.n_checked for r in checked)
    )
