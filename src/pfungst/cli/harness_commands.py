"""Commands that let another harness run the model calls: ``pfungst export lm-eval``.

Reading the harness's logs back is ``pfungst stress --from-logs OUT`` (:mod:`pfungst.cli.model_commands`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from pfungst.cli.common import (
    WRITE_FOLDER,
    DataArgument,
    app,
    config_from_options,
    console,
    stdout,
    user_errors,
)
from pfungst.cli.option_groups import DataOptions, SamplingOptions, option_values, with_option_groups
from pfungst.path_checks import check_outputs

if TYPE_CHECKING:  # the command imports what it runs when it runs: `--help` stays fast
    from pfungst.stress.stress_config import StressConfig

__all__ = ["export_app", "lm_eval_command"]

export_app = typer.Typer(help="Write a stress plan for another evaluation harness to run.", no_args_is_help=True)
app.add_typer(export_app, name="export")

_Perturbations = Annotated[
    list[str] | None,
    typer.Option(
        "--perturbation",
        "-p",
        help="Perturbation to export, repeatable, with its parameters as name:key=value,key=value "
        "(-p pride:fraction=0.1); default: identity, cyclic, answer-moved, ids-shuffled, pride, rules, formats, "
        "instructions.",
    ),
]


@export_app.command("lm-eval")
@with_option_groups
def lm_eval_command(
    data: DataArgument,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="A new or empty folder for the tasks (--include_path)."), WRITE_FOLDER
    ],
    *,
    data_options: DataOptions,
    perturbation: _Perturbations = None,
    rule: Annotated[str, typer.Option(help="Scoring rule: letter, cloze-raw or cloze-byte.")] = "letter",
    rules: Annotated[
        str, typer.Option(help="Comma-separated rules compared by 'rules'.")
    ] = "letter,cloze-raw,cloze-byte",
    prompt: Annotated[str, typer.Option(help="Base prompt format: mmlu, plain or chatml-letter.")] = "mmlu",
    sampling: SamplingOptions,
    name: Annotated[str | None, typer.Option(help="Group name pfungst_<name> (default: the benchmark's).")] = None,
    bos_text: Annotated[
        str, typer.Option(help="Text before every prompt, as the openai backend's bos_text (SmolLM2: <|im_start|>).")
    ] = "",
) -> None:
    """Write lm-evaluation-harness tasks that ask a stress run's questions; analyse with stress --from-logs."""
    options = option_values(data_options, sampling, **locals())  # StressConfig's fields by name
    from pfungst.stress.lm_eval import export_lm_eval

    with user_errors():
        check_outputs([data], {}, folders={"--out": out})
        config = _config(options)
        config.validate()
        benchmark = data_options.load(data)
        result = export_lm_eval(benchmark, out, config, name=name, bos_text=bos_text)
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


def _config(options: dict[str, Any]) -> StressConfig:
    from pfungst.evaluate.run_config import RunConfig
    from pfungst.stress.lm_eval import EXPORT_PERTURBATIONS
    from pfungst.stress.stress_config import StressConfig

    return config_from_options(
        StressConfig,
        options,
        run=config_from_options(RunConfig, options, cache=False),
        rules=tuple(r.strip() for r in options["rules"].split(",") if r.strip()),
        perturbations=tuple(options["perturbation"]) if options["perturbation"] else EXPORT_PERTURBATIONS,
    )
