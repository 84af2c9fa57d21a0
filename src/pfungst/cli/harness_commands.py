"""Commands that let another harness run the model calls: ``pfungst export lm-eval``.

Reading the harness's logs back is ``pfungst stress --from-logs OUT`` (:mod:`pfungst.cli.model_commands`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from pfungst.cli.common import WRITE_FOLDER, DataArgument, app, console, stdout, user_errors
from pfungst.cli.option_groups import DataOptions, with_option_groups
from pfungst.cli.settings_options import Settings
from pfungst.path_checks import check_outputs
from pfungst.stress.stress_config import StressConfig, export_config

__all__ = ["export_app", "lm_eval_command"]

export_app = typer.Typer(help="Write a stress plan for another evaluation harness to run.", no_args_is_help=True)
app.add_typer(export_app, name="export")

_Plan = Annotated[StressConfig, Settings(default=export_config, exclude=("chunk_size", "cluster_by"))]
"""The plan's settings: a stress run's, with the export's defaults; batches and clusters are the harness's."""


@export_app.command("lm-eval")
@with_option_groups
def lm_eval_command(
    data: DataArgument,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="A new or empty folder for the tasks (--include_path)."), WRITE_FOLDER
    ],
    *,
    data_options: DataOptions,
    plan: _Plan,
    name: Annotated[str | None, typer.Option(help="Group name pfungst_<name> (default: the benchmark's).")] = None,
    bos_text: Annotated[
        str, typer.Option(help="Text before every prompt, as the openai backend's bos_text (SmolLM2: <|im_start|>).")
    ] = "",
) -> None:
    """Write lm-evaluation-harness tasks that ask a stress run's questions; analyse with stress --from-logs."""
    from pfungst.stress.lm_eval import export_lm_eval

    with user_errors():
        check_outputs([data], {}, folders={"--out": out})
        plan = replace(plan, run=replace(plan.run, on_error=data_options.mode()))
        plan.validate()
        benchmark = data_options.load(data)
        result = export_lm_eval(benchmark, out, plan, name=name, bos_text=bos_text)
        for note in result.not_exported:
            console.print(f"note: {escape(note)}")
        for task, count in result.tasks.items():
            stdout.print(f"{escape(task)}: {count} documents")
        stdout.print(
            f"wrote {len(result.tasks)} tasks ({result.questions} questions) to {escape(str(result.folder))}; run\n"
            f"  lm_eval --include_path {escape(str(result.folder))} --tasks {result.group} --log_samples "
            "--output_path OUT --model ...\nthen\n  pfungst stress --from-logs OUT",
            soft_wrap=True,
        )
