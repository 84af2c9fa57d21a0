"""``pfungst audit``: can a benchmark be answered from surface features alone?"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from pfungst.audit.audit_config import AuditConfig
from pfungst.audit.gate import check_gates
from pfungst.cli.common import (
    READ,
    WRITE,
    WRITE_FOLDER,
    DataArgument,
    JsonOption,
    app,
    console,
    progress_bar,
    results_console,
    user_errors,
)
from pfungst.cli.gate_options import GateOptions, audit_gate, command_line, end_with_gate, print_split, write_card
from pfungst.cli.option_groups import ConsoleOptions, DataOptions, OptionGroup, with_option_groups
from pfungst.cli.result_output import result_option, result_path, save_result, show_result
from pfungst.errors import ConfigError
from pfungst.path_checks import check_outputs
from pfungst.serialization import write_csv

if TYPE_CHECKING:  # the command imports what it runs when it runs: `--help` stays fast
    from rich.console import Console

    from pfungst.audit.fixing import FixResult
    from pfungst.audit.result import AuditResult
    from pfungst.data.benchmark import Benchmark

__all__ = ["AuditOutputs", "audit_command"]

_Items = Annotated[Path | None, typer.Option("--items", help="Write per-item predictions as CSV."), WRITE]
_Findings = Annotated[
    Path | None,
    typer.Option(
        "--findings",
        help="Write a findings report to paste into the benchmark's issue tracker (Markdown, FILE.md), every affected "
        "item id in FILE.csv beside it.",
    ),
    WRITE,
]
_Validity = Annotated[
    Path | None,
    typer.Option(
        "--validity",
        help="A validity result of several models' outcomes on these items (pfungst validity --json): adds the "
        "suspected wrong keys to --findings.",
    ),
    READ,
]
_Fix = Annotated[
    Path | None,
    typer.Option("--fix", help="Write counterbalanced and filtered copies here and audit them."),
    WRITE_FOLDER,
]
_Deduplicate = Annotated[bool, typer.Option(help="Drop repeated texts first (the paper did).")]


@dataclass(frozen=True)
class AuditOutputs(OptionGroup):
    """Where an audit's results go besides the console: the JSON, the per-item CSV, the findings report, the
    mitigated copies."""

    json_path: JsonOption = None
    """The result's JSON; None for the default path beside the data."""
    items_path: _Items = None
    """The per-item predictions as CSV; None for none."""
    findings_path: _Findings = None
    """The findings report (Markdown), its CSV of every affected id beside it; None for none."""
    validity_path: _Validity = None
    """A validity result whose suspected wrong keys join the findings report; None for none."""
    fix_dir: _Fix = None
    """The folder of the counterbalanced and filtered copies; None for none."""


@app.command("audit")
@with_option_groups
def audit_command(
    context: typer.Context,
    data: DataArgument,
    data_options: DataOptions,
    deduplicate: _Deduplicate = False,
    *,
    settings: AuditConfig,
    outputs: AuditOutputs,
    gate_options: GateOptions,
    shown: ConsoleOptions,
) -> None:
    """Can the benchmark be answered from surface features alone? Prints the verdict in a few sentences (every probe,
    heuristic and cue word with --verbose) and saves the whole result as JSON (default: DATA's stem + .audit.json,
    beside DATA)."""
    card, items_path, fix_dir = gate_options.card, outputs.items_path, outputs.fix_dir
    with user_errors():
        from pfungst.audit.run import audit
        from pfungst.report.card import render_card, render_fix_lines
        from pfungst.report.findings import read_validity, write_findings

        gate_options.check()
        saved = result_path(outputs.json_path, data, "audit")
        findings = _findings_outputs(outputs.findings_path, outputs.validity_path)
        written = {result_option(outputs.json_path): saved, "--items": items_path, "--card": card, **findings}
        check_outputs([data, outputs.validity_path], written, folders={"--fix": fix_dir})
        settings.validate()  # before reading data: a typo costs no load
        validity = read_validity(outputs.validity_path) if outputs.validity_path else None
        benchmark = data_options.load(data)
        if deduplicate:  # the paper's protocol drops repeated texts itself, in the paper's order
            benchmark = settings.protocol.deduplicate(benchmark)
        with progress_bar(shown.quiet, "encoding surface features") as report:
            result = audit(benchmark, settings, progress=report)
        out = results_console(outputs.json_path)
        _report(result, out, shown.verbose, (saved, items_path))
        if outputs.findings_path:
            paths = write_findings(result, outputs.findings_path, validity=validity, command=command_line(context))
            console.print("wrote " + ", ".join(escape(str(path)) for path in paths))
        fixed = _fix_and_audit(benchmark, fix_dir, settings, shown, out) if fix_dir else None
        write_card(card, render_card(result, command_line(context)) + render_fix_lines(fixed))
        gate = audit_gate(gate_options.rules, result)
        if gate is not None and fixed is not None:  # each mitigated copy answers to the same gate
            copies = [audit_gate(gate.rules, audited) for _, audited in fixed.audits]
            gate = check_gates(gate.rules, [gate, *(copy for copy in copies if copy is not None)])
    end_with_gate(gate)


def _findings_outputs(findings: Path | None, validity: Path | None) -> dict[str, Path | None]:
    """The files ``--findings`` writes (the report and its CSV), checked by name; ``--validity`` needs it.

    Raises:
        ConfigError: ``--findings`` not ending in ``.md``, or ``--validity`` without ``--findings``.
    """
    from pfungst.report.findings import findings_paths

    if validity is not None and findings is None:
        raise ConfigError(
            f"--validity {validity}: it is read only for the findings report. Add --findings FILE.md (or drop "
            "--validity)."
        )
    if findings is None:
        return {}
    markdown, csv = findings_paths(findings)
    return {"--findings": markdown, "--findings (its CSV)": csv}


def _report(result: AuditResult, out: Console, verbose: bool, paths: tuple[Path, Path | None]) -> None:
    """Print the audit's short answer (every section too with ``verbose``); write its JSON (with per-item
    predictions), and the per-item CSV where asked for (``paths``: JSON, items)."""
    saved, items_path = paths
    show_result(result, out, verbose)
    print_split(result)
    save_result(saved, lambda path: result.save_json(path, items=True))
    if items_path:
        console.print(f"wrote {escape(str(write_csv(items_path, result.items_frame())))}")


def _fix_and_audit(
    benchmark: Benchmark, fix_dir: Path, config: AuditConfig, shown: ConsoleOptions, out: Console
) -> FixResult:
    """Write the counterbalanced and filtered copies to ``fix_dir``, audit them, print their audits and each copy's
    residual verdict (a copy still predictable is said to be so)."""
    from pfungst.audit.fixing import fix

    with progress_bar(shown.quiet, "writing mitigated copies") as report:
        fixed = fix(benchmark, fix_dir, config, progress=report)
    for _, audited in fixed.audits:
        show_result(audited, out, shown.verbose)
    for line in fixed.residual_lines():
        out.print(escape(line), style="bold red" if "STILL PREDICTABLE" in line else None, soft_wrap=True)
    console.print("wrote " + ", ".join(escape(p) for p in fixed.paths.values()))
    return fixed
