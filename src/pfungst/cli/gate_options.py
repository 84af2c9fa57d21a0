"""``--fail-on`` and ``--card``, shared by ``pfungst audit`` and ``pfungst suite``: the release gate's options and
how a breach ends the command (exit code 3, the reasons on stderr)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from pfungst.audit.gate import FAIL_ON, GATE_EXIT_CODE, GateResult, check_gate, check_rules
from pfungst.cli.common import WRITE, console
from pfungst.cli.option_groups import OptionGroup
from pfungst.serialization import atomic_write

if TYPE_CHECKING:  # imported when a command runs, not when the command line starts
    from pfungst.audit.result import AuditResult

__all__ = [
    "GateOptions",
    "audit_gate",
    "command_line",
    "end_with_gate",
    "print_split",
    "write_card",
]

_FailOn = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-on",
        help=f"Release gate, repeatable (every rule given applies): exit {GATE_EXIT_CODE} when breached "
        f"({', '.join(FAIL_ON)}). predictable: any finding (content, position, label prior, declared content); "
        "content: content predictable from options alone, partial or full input, unless the task is declared to "
        "be answered from its words (--lexical-task); position: a gold-position artifact; label-prior: always "
        "giving the majority answer clears the threshold; inconclusive: too few items to rule out a cue; signal: "
        "predictable, or a signal below the threshold.",
    ),
]
_Card = Annotated[
    Path | None, typer.Option("--card", help="Write a Markdown benchmark card (for a dataset README) here."), WRITE
]


@dataclass(frozen=True)
class GateOptions(OptionGroup):
    """The release gate and the benchmark card: ``--fail-on`` and ``--card``."""

    fail_on: _FailOn = None
    """The gate's rules (:data:`~pfungst.audit.gate.FAIL_ON`), all of which apply; None or empty for no gate."""
    card: _Card = None
    """Where to write the Markdown card; None for none."""

    def check(self) -> None:
        """Refuse an unknown ``--fail-on`` rule before any work.

        Raises:
            ConfigError: a rule is none of :data:`~pfungst.audit.gate.FAIL_ON`.
        """
        check_rules(self.fail_on or ())

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules given with ``--fail-on``, de-duplicated in order (empty: no gate)."""
        return check_rules(self.fail_on or ())


def command_line(context: typer.Context) -> str:
    """The running command rebuilt from its parsed parameters (those not at their default), for a card's
    "reproduce" block: the same whether it came from a shell or from a test runner."""
    words = ["pfungst", context.info_name or ""]
    for parameter in context.command.params:
        value = context.params.get(parameter.name or "")
        if value is None or value == parameter.default or parameter.name == "quiet":
            continue
        values = list(value) if isinstance(value, list | tuple) else [value]
        if parameter.param_type_name == "argument":
            words += [str(v) for v in values]
        elif isinstance(value, bool):
            words.append(parameter.opts[0] if value else (parameter.secondary_opts or parameter.opts)[0])
        else:
            for item in values:
                words += [parameter.opts[0], str(item)]
    return shlex.join(words)


def print_split(result: AuditResult) -> None:
    """Say on stderr why a per-item audit has no content / position split (its sections print it otherwise)."""
    from pfungst.audit.position_content import no_blind_probe_message

    if result.option_kind.has_positions and result.position_content is None:
        note = no_blind_probe_message(str(result.benchmark.get("name", "?")))
        console.print(f"[yellow]note:[/yellow] {escape(note)}")


def write_card(path: Path | None, text: str) -> None:
    if path is None:
        return
    with atomic_write(path) as handle:
        handle.write(text)
    console.print(f"wrote {escape(str(path))}")


def end_with_gate(gate: GateResult | None) -> None:
    """Print the gate's outcome on stderr; exit with :data:`GATE_EXIT_CODE` when it failed."""
    if gate is None:
        return
    console.print(escape(str(gate)), style="bold red" if gate.failed else "green", soft_wrap=True)
    if gate.failed:
        raise typer.Exit(GATE_EXIT_CODE)


def audit_gate(rules: tuple[str, ...], result: AuditResult) -> GateResult | None:
    """One audit against every ``--fail-on`` rule (None: no gate asked for), read from its headline and verdict."""
    if not rules:
        return None
    return check_gate(rules, str(result.benchmark.get("name", "?")), result.verdict, result.headline)
