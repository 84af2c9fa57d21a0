"""``pfungst audit``: can a benchmark be answered from surface features alone?"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from pfungst.cli.common import (
    WRITE,
    WRITE_FOLDER,
    DataArgument,
    JsonOption,
    QuietOption,
    app,
    config_from_options,
    console,
    progress_bar,
    results_console,
    user_errors,
    write_json,
)
from pfungst.cli.gate_options import GateOptions, audit_gate, command_line, end_with_gate, print_split, write_card
from pfungst.cli.option_groups import AuditOptions, DataOptions, option_values, with_option_groups
from pfungst.path_checks import check_outputs
from pfungst.serialization import write_csv

if TYPE_CHECKING:  # the command imports what it runs when it runs: `--help` stays fast
    from rich.console import Console

    from pfungst.audit.result import AuditResult
    from pfungst.audit.run import AuditConfig
    from pfungst.data.benchmark import Benchmark

__all__ = ["audit_command"]

_Protocol = Annotated[
    str,
    typer.Option(
        help="crossfit (default: stratified repeated cross-fitting, Cohen's kappa, intervals) or pacchiardi2024 "
        "(the paper's exact protocol)."
    ),
]
_Fields = Annotated[str, typer.Option(help="Partial-input baseline: comma-separated named fields, e.g. hypothesis.")]
_Items = Annotated[Path | None, typer.Option("--items", help="Write per-item predictions as CSV."), WRITE]
_Fix = Annotated[
    Path | None,
    typer.Option("--fix", help="Write counterbalanced and filtered copies here and audit them."),
    WRITE_FOLDER,
]


@app.command("audit")
@with_option_groups
def audit_command(
    context: typer.Context,
    data: DataArgument,
    data_options: DataOptions,
    protocol: _Protocol = "crossfit",
    fields: _Fields = "",
    n_refits: Annotated[int, typer.Option(help="Refitted label permutations behind 'signal below threshold'.")] = 20,
    deduplicate: Annotated[bool, typer.Option(help="Drop repeated texts first (the paper did).")] = False,
    *,
    audit_options: AuditOptions,
    json_path: JsonOption = None,
    items_path: _Items = None,
    fix_dir: _Fix = None,
    gate_options: GateOptions,
    quiet: QuietOption = False,
) -> None:
    """Can the benchmark be answered from surface features alone? Probes, heuristics, cues, and a verdict."""
    options = option_values(data_options, audit_options, **locals())  # AuditConfig's fields by name
    card = gate_options.card
    with user_errors():
        from pfungst.audit.run import AuditConfig, audit

        gate_options.check()
        check_outputs([data], {"--json": json_path, "--items": items_path, "--card": card}, folders={"--fix": fix_dir})
        config = _audit_config(AuditConfig, options)  # validated before reading data: a typo costs no load
        benchmark = data_options.load(data)
        if deduplicate and protocol != "pacchiardi2024":  # that protocol de-duplicates in the paper's order
            benchmark = benchmark.deduplicate()
        with progress_bar(quiet, "encoding surface features") as report:
            result = audit(benchmark, config, progress=report)
        out = results_console(json_path)
        _report(result, out, command_line(context), json_path, items_path, card)
        if fix_dir:
            _fix_and_audit(benchmark, fix_dir, config, quiet, out)
        gate = audit_gate(gate_options.rules, result)
    end_with_gate(gate)


def _audit_config(config_type: type[AuditConfig], options: dict[str, Any]) -> AuditConfig:
    """The audit's settings from the command's options (repeatable and comma-separated ones parsed), validated."""
    fields = tuple(name.strip() for name in options["fields"].split(",") if name.strip())
    config = config_from_options(config_type, options, fields=fields)
    config.validate()
    return config


def _report(
    result: AuditResult, out: Console, command: str, json_path: Path | None, items_path: Path | None, card: Path | None
) -> None:
    """Print the audit (and, per-item, its position and content apart); write its JSON (with per-item predictions),
    per-item CSV and card where asked for."""
    from pfungst.report.card import render_card
    from pfungst.report.console_blocks import render_to_console

    render_to_console(result, out)
    print_split(result)
    write_json(json_path, lambda path: result.save_json(path, items=True))
    if items_path:
        console.print(f"wrote {escape(str(write_csv(items_path, result.items_frame())))}")
    write_card(card, render_card(result, command))


def _fix_and_audit(benchmark: Benchmark, fix_dir: Path, config: AuditConfig, quiet: bool, out: Console) -> None:
    """Write the counterbalanced and filtered copies to ``fix_dir``, audit them and print their audits."""
    from pfungst.audit.fixing import fix
    from pfungst.report.console_blocks import render_to_console

    with progress_bar(quiet, "writing mitigated copies") as report:
        fixed = fix(benchmark, fix_dir, config, progress=report)
    for audited in (fixed.counterbalanced_audit, fixed.filtered_audit):
        if audited is not None:
            render_to_console(audited, out)
    console.print("wrote " + ", ".join(escape(p) for p in fixed.paths.values()))
