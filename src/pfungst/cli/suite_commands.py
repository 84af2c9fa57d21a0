"""``pfungst suite``: audit many benchmarks in one run and rank them by Clever-Hans risk (resumable)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pfungst.audit.gate import GateResult, check_gate, check_gates
from pfungst.audit.suite_config import SuiteConfig
from pfungst.cli.common import (
    READ,
    WRITE,
    WRITE_FOLDER,
    QuietOption,
    app,
    progress_bar,
    results_console,
    user_errors,
    write_json,
)
from pfungst.cli.gate_options import GateOptions, command_line, end_with_gate, write_card
from pfungst.cli.option_groups import with_option_groups
from pfungst.cli.settings_options import Settings

if TYPE_CHECKING:  # the command imports what it runs when it runs: `--help` stays fast
    from rich.console import Console

    from pfungst.audit.suite import SuiteResult

__all__ = ["suite_command"]

_Paths = Annotated[
    list[Path],
    typer.Argument(
        help="Benchmark files and folders: every task.json below a folder is a BIG-bench task (subtasks "
        "included), every other benchmark file is audited too; the rest is listed as ignored, with why."
    ),
    READ,
]


_Out = Annotated[
    Path,
    typer.Option("--out", "-o", help="Output folder (suite.json, benchmarks/); reruns resume here."),
    WRITE_FOLDER,
]
_Verbose = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Print the whole leaderboard and the skipped sources, then the answer; list every path seen that is no "
        "benchmark, and why, on stderr.",
    ),
]
_SuiteJson = Annotated[Path | None, typer.Option("--json", help="Also write the suite JSON here ('-': stdout)."), WRITE]


@app.command("suite")
@with_option_groups
def suite_command(
    context: typer.Context,
    paths: _Paths,
    out: _Out = Path("pfungst-suite"),
    *,
    settings: Annotated[SuiteConfig, Settings(exclude=("protocol", "fields"))],
    json_path: _SuiteJson = None,
    gate_options: GateOptions,
    quiet: QuietOption = False,
    verbose: _Verbose = False,
) -> None:
    """Audit every benchmark of a suite; rank them by risk (content), flag gold-position artifacts; resumable."""
    card = gate_options.card
    with user_errors():
        from pfungst.audit.suite import audit_suite, check_suite_outputs
        from pfungst.report.card import render_suite_card

        gate_options.check()
        settings.validate()  # before any benchmark is read
        check_suite_outputs(paths, out, {"--json": json_path, "--card": card}, "--out")
        with progress_bar(quiet, "discovering benchmarks") as report:
            result = audit_suite(paths, out, settings, progress=report)
        _print(result, results_console(json_path), verbose)
        typer.echo(f"wrote {out / 'suite.json'} ({result.n_reused} reused from the cache)", err=True)
        write_json(json_path, result.save_json)
        write_card(card, render_suite_card(result, command_line(context)))
        gate = _gate(result, gate_options.rules) if gate_options.rules else None
    end_with_gate(gate)


def _print(result: SuiteResult, out: Console, verbose: bool) -> None:
    """The suite's short answer on ``out`` (``verbose``: the leaderboard and the skipped sources first); the paths
    that are no benchmark on stderr."""
    from pfungst.audit.suite.sections import suite_sections
    from pfungst.report.console_blocks import render_sections
    from pfungst.report.summary_console import render_summary

    if verbose:
        render_sections([s for s in suite_sections(result) if s.level <= 2 or s.title == "Skipped sources"], out)
        out.rule("In short")
    render_summary(result, out)
    _report_ignored(result, verbose)


def _report_ignored(result: SuiteResult, verbose: bool) -> None:
    """On stderr: how many paths were not benchmarks, by reason (``--verbose``: each path with its reason)."""
    if not result.ignored:
        return
    counts: dict[str, int] = {}
    for ignored in result.ignored:
        counts[_reason_kind(ignored.reason)] = counts.get(_reason_kind(ignored.reason), 0) + 1
    summary = ", ".join(f"{count} {kind}" for kind, count in counts.items())
    where = "" if verbose else "; --verbose lists them"
    typer.echo(
        f"{len(result.ignored)} path(s) seen are no benchmark: {summary} (suite.json 'ignored'{where})", err=True
    )
    if verbose:
        for ignored in result.ignored:
            typer.echo(f"  {ignored.source}: {ignored.reason}", err=True)


def _reason_kind(reason: str) -> str:
    """The kind of a reason, without its particulars (``part of BIG-bench task folder navigate`` -> ``part of a
    BIG-bench task folder``)."""
    if reason.startswith("part of BIG-bench task folder"):
        return "part of a BIG-bench task folder"
    if reason.startswith("duplicate of"):
        return "duplicate"
    return reason.split(" (")[0]


def _gate(result: SuiteResult, rules: tuple[str, ...]) -> GateResult:
    """Every audited benchmark against every rule of ``rules``, read from its headline; the suite fails when any one
    benchmark does."""
    return check_gates(rules, (check_gate(rules, e.name, e.verdict, e.headline) for e in result.entries))
