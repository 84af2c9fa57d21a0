"""``--fail-on`` and ``--card``, shared by ``pfungst audit`` and ``pfungst suite``: the release gate's options and
how a breach ends the command (exit code 3, the reasons on stderr)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from pfungst.audit.gate import FAIL_ON, GATE_EXIT_CODE, GateResult, check_gate
from pfungst.cli.common import WRITE, console
from pfungst.cli.option_groups import OptionGroup
from pfungst.errors import ConfigError
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
    str | None,
    typer.Option(
        "--fail-on",
        help=f"Release gate: exit {GATE_EXIT_CODE} when breached ({', '.join(FAIL_ON)}). predictable: the verdict; "
        "content: a shortcut in the content verdict (position-blind probes; options alone, partial input, or "
        "per-item full input); lexical: the content answerable from the words of a shared-label task's full "
        "input (expected for sentiment, intent or topic tasks); position: a gold-position artifact; signal: "
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
    """The gate's rule (:data:`~pfungst.audit.gate.FAIL_ON`); None for no gate."""
    card: _Card = None
    """Where to write the Markdown card; None for none."""

    def check(self) -> None:
        """Refuse an unknown ``--fail-on`` rule before any work.

        Raises:
            ConfigError: the rule is none of :data:`~pfungst.audit.gate.FAIL_ON`.
        """
        if self.fail_on is not None and self.fail_on not in FAIL_ON:
            raise ConfigError(f"Unknown --fail-on rule {self.fail_on!r}. Available: {', '.join(FAIL_ON)}")


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

    if result.benchmark.get("option_kind") == "per_item" and result.position_content is None:
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


def audit_gate(rule: str | None, result: AuditResult) -> GateResult | None:
    """One audit against ``--fail-on`` (None: no gate asked for), with the result's content / position split (none:
    the verdict as the content)."""
    if rule is None:
        return None
    parts = result.position_content
    content = parts.content if parts else result.verdict
    name = str(result.benchmark.get("name", "?"))
    return check_gate(rule, name, result.verdict, content, parts.position if parts else None)
