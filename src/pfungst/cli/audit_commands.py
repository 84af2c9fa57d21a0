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
    DetectLabelSetOption,
    JsonOption,
    MapOption,
    MaxItemsOption,
    NBootstrapOption,
    OnErrorOption,
    ParallelOption,
    QuietOption,
    ReaderOption,
    SeedOption,
    SelectionMaxItemsOption,
    StrictOption,
    app,
    config_from_options,
    console,
    load_benchmark,
    progress_bar,
    results_console,
    user_errors,
    write_json,
)
from pfungst.cli.gate_options import (
    CardOption,
    FailOnOption,
    audit_gate,
    check_fail_on,
    command_line,
    end_with_gate,
    print_split,
    write_card,
)
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
_FeatureSets = Annotated[
    list[str] | None,
    typer.Option("--feature-set", help="Feature set to probe, repeatable: feature_sets (default: all that apply)."),
]
_AllFeatureSets = Annotated[
    bool,
    typer.Option(
        "--all-feature-sets",
        help="Probe every default feature set at any size (the 13 paper sets for shared labels) instead of the "
        "smaller default past 20,000 items.",
    ),
]
_Fields = Annotated[str, typer.Option(help="Partial-input baseline: comma-separated named fields, e.g. hypothesis.")]
_Cluster = Annotated[
    str,
    typer.Option(
        help="Run the jobs on Dask: 'local' (a LocalCluster of --n-jobs worker processes, at least 2) or a "
        "scheduler address such as tcp://host:8786. Results are identical to a serial run. Needs pfungst[dask]."
    ),
]
_Items = Annotated[Path | None, typer.Option("--items", help="Write per-item predictions as CSV."), WRITE]
_Fix = Annotated[
    Path | None,
    typer.Option("--fix", help="Write counterbalanced and filtered copies here and audit them."),
    WRITE_FOLDER,
]


@app.command("audit")
def audit_command(
    context: typer.Context,
    data: DataArgument,
    reader: ReaderOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    protocol: _Protocol = "crossfit",
    feature_set: _FeatureSets = None,
    all_feature_sets: _AllFeatureSets = False,
    fields: _Fields = "",
    detect_label_set: DetectLabelSetOption = True,
    seed: SeedOption = 0,
    n_repeats: Annotated[int, typer.Option(help="Repeats of the cross-fitting.")] = 2,
    n_splits: Annotated[int, typer.Option(help="Folds of the cross-fitting.")] = 5,
    n_bootstrap: NBootstrapOption = 1000,
    n_permutations: Annotated[int, typer.Option(help="Permutations per p-value.")] = 1000,
    n_refits: Annotated[int, typer.Option(help="Refitted label permutations behind 'signal below threshold'.")] = 20,
    threshold: Annotated[float, typer.Option(help="Verdict threshold on the interval's lower bound.")] = 0.2,
    deduplicate: Annotated[bool, typer.Option(help="Drop repeated texts first (the paper did).")] = False,
    max_items: MaxItemsOption = 0,
    selection_max_items: SelectionMaxItemsOption = 20_000,
    n_jobs: Annotated[int, typer.Option(help="Parallel (feature set, fold) jobs (joblib; -1: every core).")] = 1,
    parallel: ParallelOption = "processes",
    cluster: _Cluster = "",
    json_path: JsonOption = None,
    items_path: _Items = None,
    fix_dir: _Fix = None,
    fail_on: FailOnOption = None,
    card: CardOption = None,
    quiet: QuietOption = False,
) -> None:
    """Can the benchmark be answered from surface features alone? Probes, heuristics, cues, and a verdict."""
    options = locals()  # every option by name: AuditConfig's fields are named after them
    with user_errors():
        from pfungst.audit.run import AuditConfig, audit

        check_fail_on(fail_on)
        check_outputs([data], {"--json": json_path, "--items": items_path, "--card": card}, folders={"--fix": fix_dir})
        config = _audit_config(AuditConfig, options)  # validated before reading data: a typo costs no load
        benchmark = load_benchmark(data, reader, map, on_error, strict)
        if deduplicate and protocol != "pacchiardi2024":  # that protocol de-duplicates in the paper's order
            benchmark = benchmark.deduplicate()
        with progress_bar(quiet, "encoding surface features") as report:
            result = audit(benchmark, config, progress=report)
        out = results_console(json_path)
        _report(result, out, command_line(context), json_path, items_path, card)
        if fix_dir:
            _fix_and_audit(benchmark, fix_dir, config, quiet, out)
        gate = audit_gate(fail_on, result)
    end_with_gate(gate)


def _audit_config(config_type: type[AuditConfig], options: dict[str, Any]) -> AuditConfig:
    """The audit's settings from the command's options (repeatable and comma-separated ones parsed), validated."""
    fields = tuple(name.strip() for name in options["fields"].split(",") if name.strip())
    config = config_from_options(config_type, options, feature_sets=tuple(options["feature_set"] or ()), fields=fields)
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
