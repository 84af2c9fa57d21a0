"""Commands over other tools' logs: ``pfungst inspect-log``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from pfungst.cli.common import READ, JsonOption, app, results_console, user_errors, write_json
from pfungst.integrations.inspect_archive import MAX_MEMBER_BYTES, MAX_TOTAL_BYTES
from pfungst.path_checks import check_outputs

__all__ = ["inspect_log_command"]

MIB = 1024 * 1024


def _number(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


@app.command("inspect-log")
def inspect_log_command(
    log: Annotated[Path, typer.Argument(help="An inspect eval log (.eval or .json)."), READ],
    scorer: Annotated[
        str | None, typer.Option(help="The scorer to read (default: pfungst_choice, else the first).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap intervals.")] = 0,
    max_member_mib: Annotated[
        int, typer.Option(min=1, help="The most MiB one member of an .eval archive may inflate to.")
    ] = MAX_MEMBER_BYTES // MIB,
    max_total_mib: Annotated[
        int, typer.Option(min=1, help="The most MiB all the members of an .eval archive may inflate to together.")
    ] = MAX_TOTAL_BYTES // MIB,
    json_path: JsonOption = None,
) -> None:
    """pfungst's figures from an inspect log's arranged samples, beside the metrics inspect wrote in the log."""
    from pfungst.integrations.inspect_log import read_inspect_log  # the stress metrics load only for this command

    with user_errors():
        check_outputs([log], {"--json": json_path})
        limits = {"max_member_bytes": max_member_mib * MIB, "max_total_bytes": max_total_mib * MIB}
        read = read_inspect_log(log, scorer=scorer, **limits)
        out = results_console(json_path)
        repeats = f", {read.n_duplicates} repeated sample ids left out" if read.n_duplicates else ""
        out.print(
            f"{escape(read.task)} on {escape(read.model)}: {len(read.correct)} samples{repeats}, scorer {read.scorer}"
        )
        if read.outcomes:
            figures = read.figures(seed=seed)
            table = Table("figure", "in the log", "pfungst", "95% interval", "baseline", "n")
            table.columns[0].no_wrap = True
            for row in figures.to_frame().to_dict("records"):
                name, logged = str(row["name"]), read.metrics.get(str(row["name"]))
                interval = f"{_number(float(row['value_low']))} to {_number(float(row['value_high']))}"
                shown = (_number(logged), _number(float(row["value"])), interval, _number(float(row["baseline"])))
                table.add_row(name, *shown, str(row["n"]))
            out.print(table)
            for warning in figures.warnings:
                out.print(f"warning: {escape(warning)}")
        write_json(json_path, lambda path: read.save_json(path, seed=seed))
