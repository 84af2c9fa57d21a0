"""Commands that join and render results: ``pfungst reliance``, ``pfungst validity`` and ``pfungst report``."""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from pfungst.cli.common import (
    READ,
    WRITE,
    WRITE_FOLDER,
    JsonOption,
    app,
    results_console,
    stdout,
    user_errors,
)
from pfungst.cli.option_groups import OptionGroup, with_option_groups
from pfungst.cli.result_output import VerboseOption, result_option, result_path, save_result, show_result
from pfungst.errors import ConfigError, ReaderError
from pfungst.path_checks import check_distinct_inputs, check_outputs
from pfungst.reliance.reliance_config import RelianceConfig
from pfungst.reliance.validity_config import ValidityConfig

if TYPE_CHECKING:
    from pfungst.reliance import ModelOutcomes

__all__ = ["OutcomeOptions", "ShortcutOptions", "reliance_command", "report_command", "validity_command"]


_Audits = Annotated[
    list[Path],
    typer.Argument(help="Audit JSON files written by `pfungst audit --json` (with their per-item predictions)."),
    READ,
]
_Outcomes = Annotated[
    list[Path],
    typer.Option(
        "--outcomes",
        help="Per-item model outcomes, repeatable: a file or "
        "a folder (evals logs, pfungst score/stress files, lm-eval "
        "samples, HELM runs, inspect .eval/.json logs, CSV).",
    ),
    READ,
]
_OutcomeFormat = Annotated[
    str | None,
    typer.Option(
        help="Force the outcome format: openai-evals, pfungst-score, pfungst-stress, lm-eval, helm, inspect, csv."
    ),
]
_OPTION_NAMES = {"format=": "--outcome-format", "metric=": "--metric", "variant=": "--variant", "scorer=": "--metric"}
"""The Python arguments of ``read_outcomes`` that outcome readers' hints name -> this module's options."""
_Dataset = Annotated[
    str | None,
    typer.Option(help="Dataset name for outcome files that do not name one (reliance: an audit's benchmark name)."),
]
_Metric = Annotated[
    str | None,
    typer.Option(help="lm-eval / HELM metric read as correctness (acc, exact_match); inspect: the scorer."),
]
_Variant = Annotated[
    str | None, typer.Option(help="Stress outcomes: which variant ('cyclic: shift 1'); default identity.")
]
_Families = Annotated[
    Path | None,
    typer.Option(help="CSV with columns model,family; default: the model name without its date or version suffix."),
    READ,
]
_ShortcutStress = Annotated[
    list[Path] | None,
    typer.Option(
        help="Stress JSON / --items file of a run with the choices-only perturbation, repeatable: each model's "
        "choices-only outcomes become a column of the shortcut table (implies --split any-shortcut)."
    ),
    READ,
]


_ShortcutRule = Annotated[
    str, typer.Option(help="Scoring rule of the --shortcut-stress choices-only outcomes taken as the shortcut.")
]


@dataclass(frozen=True)
class OutcomeOptions(OptionGroup):
    """Which per-item model outcomes are read, and how: ``--outcomes`` and the hints for files that lack them."""

    outcomes: _Outcomes
    """Outcome files and folders."""
    outcome_format: _OutcomeFormat = None
    """The outcome format; None to detect it."""
    dataset: _Dataset = None
    """The dataset name of files that name none."""
    metric: _Metric = None
    """The metric read as correctness (lm-eval, HELM; inspect: the scorer)."""
    variant: _Variant = None
    """The stress variant read; None for identity."""

    def read(self, model: str | None = None) -> list[ModelOutcomes]:
        """Every ``--outcomes`` path read (``model``: the model name of files that name none); a file read twice
        (given twice, or a copy, or inside two folders given) is refused, and an unknown format names
        ``--outcome-format``."""
        from pfungst.reliance import read_outcomes

        found: list[ModelOutcomes] = []
        sources: list[str] = []
        for path in self.outcomes:
            try:
                read = read_outcomes(
                    path,
                    format=self.outcome_format,
                    model=model,
                    dataset=self.dataset,
                    metric=self.metric,
                    variant=self.variant,
                )
            except ReaderError as exc:
                raise _with_option_names(exc) from None
            found.extend(read)
            sources.extend(dict.fromkeys(outcome.source for outcome in read))
        check_distinct_inputs(sources, "--outcomes")
        return found


@dataclass(frozen=True)
class ShortcutOptions(OptionGroup):
    """Models' choices-only outcomes that join the per-item shortcut table (``--shortcut-stress``,
    ``--shortcut-rule``)."""

    shortcut_stress: _ShortcutStress = None
    """Stress results with the choices-only perturbation; None for none."""
    shortcut_rule: _ShortcutRule = "letter"
    """The scoring rule whose choices-only outcomes are the shortcut."""

    def read(self, model: str | None) -> list[ModelOutcomes]:
        """Each file's choices-only outcomes under ``shortcut_rule`` (``model``: the name of files that name none)."""
        from pfungst.reliance import CHOICES_ONLY_VARIANT, read_outcomes

        return [
            outcome
            for path in self.shortcut_stress or ()
            for outcome in read_outcomes(
                path, format="pfungst-stress", model=model, metric=self.shortcut_rule, variant=CHOICES_ONLY_VARIANT
            )
        ]


@app.command("reliance")
@with_option_groups
def reliance_command(
    audits: _Audits,
    *,
    outcome_options: OutcomeOptions,
    model: Annotated[str | None, typer.Option(help="Model name for outcome files that do not name one.")] = None,
    settings: RelianceConfig,
    shortcuts: ShortcutOptions,
    families: _Families = None,
    json_path: JsonOption = None,
    verbose: VerboseOption = False,
) -> None:
    """Do models do better on the items a surface-feature shortcut solves? Per model, per family, with BH. Prints the
    answer in a few sentences (every table with --verbose) and saves the result as JSON (default: the first audit's
    stem + .reliance.json, beside it)."""
    with user_errors():
        from pfungst.reliance import reliance

        saved = result_path(json_path, audits[0], "reliance")
        inputs = [*audits, *outcome_options.outcomes, *(shortcuts.shortcut_stress or ()), families]
        check_outputs(inputs, {result_option(json_path): saved})
        settings.validate()  # before any file is read
        choices_only = shortcuts.read(model)
        config = replace(
            settings,
            families=_families(families) if families else None,
            split="any-shortcut" if choices_only else settings.split,
        )
        check_distinct_inputs(audits, "audit")
        result = reliance(list(audits), outcome_options.read(model), config, choices_only=choices_only)
        show_result(result, results_console(json_path), verbose)
        save_result(saved, result.save_json)


_Irt = Annotated[str, typer.Option(help="2PL IRT fit with girth: jml (fast), mml (slow) or none.")]


@app.command("validity")
@with_option_groups
def validity_command(
    *,
    outcome_options: OutcomeOptions,
    settings: ValidityConfig,
    irt: _Irt = "jml",
    json_path: JsonOption = None,
    verbose: VerboseOption = False,
) -> None:
    """Rank items by how likely their key is wrong, from several models' outcomes (agreement, IRT, cleanlab). Prints
    the answer in a few sentences (every table with --verbose) and saves the result as JSON (default: the first
    --outcomes path's stem + .validity.json, beside it)."""
    outcomes = outcome_options.outcomes
    with user_errors():
        from pfungst.reliance.validity import validity

        if not outcomes:
            raise ConfigError("give at least one --outcomes file or folder")
        saved = result_path(json_path, outcomes[0], "validity")
        check_outputs(list(outcomes), {result_option(json_path): saved})
        if irt not in ("jml", "mml", "none"):
            raise ConfigError(f"--irt must be jml, mml or none, found {irt!r}")
        config = replace(settings, irt=irt != "none", irt_method="mml" if irt == "mml" else "jml")
        config.validate()
        result = validity(outcome_options.read(), config)
        show_result(result, results_console(json_path), verbose)
        save_result(saved, result.save_json)


def _with_option_names(error: ReaderError) -> ReaderError:
    """The error with the Python arguments its hint names (``format=``) spelt as the command's options."""
    hint = error.hint
    for argument, option in _OPTION_NAMES.items():
        hint = hint.replace(argument, option)
    return error if hint == error.hint else ReaderError(error.path, error.line, error.field, error.reason, hint)


def _families(path: Path) -> dict[str, str]:
    """``model,family`` rows of a CSV file (a header row naming both is required)."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as exc:
        raise ConfigError(f"--families {path}: cannot read it ({exc.strerror})") from exc
    mapping = {}
    for line, row in enumerate(rows, start=2):
        if not row.get("model") or not row.get("family"):
            raise ConfigError(
                f"{path}:{line}: field 'model' or 'family' is empty; the file needs the header "
                "model,family and one row per model"
            )
        mapping[row["model"].strip()] = row["family"].strip()
    return mapping


@app.command("report")
def report_command(
    results: Annotated[
        list[Path],
        typer.Argument(help="Result JSON written with --json by inspect, audit, stress, score, reliance or validity."),
        READ,
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="The report: .html (one self-contained page), .md or .json."), WRITE
    ] = Path("report.html"),
    title: Annotated[str | None, typer.Option(help="Title (default: names the benchmarks).")] = None,
    plots: Annotated[Path | None, typer.Option(help="Also write every plot to this folder."), WRITE_FOLDER] = None,
    plot_format: Annotated[str, typer.Option("--plot-format", help="png or svg.")] = "png",
) -> None:
    """Render result files as one report: every figure with its interval, the provenance of each file. Figures
    shown side by side (an audit's classifier choices-only probe beside a stress run's) are also printed."""
    with user_errors():
        from pfungst.report.console_blocks import render_sections
        from pfungst.report.document import derived_sections
        from pfungst.report.loading import load_results
        from pfungst.report.output import write_report

        check_outputs(results, {"--out": out}, folders={"--plots": plots})
        loaded = load_results(results)
        written = write_report(loaded, out, title=title, plots=plots, plot_format=plot_format)
        render_sections(derived_sections(loaded), stdout)
        extra = f" and {len(written) - 1} plots in {escape(str(plots))}" if plots else ""
        stdout.print(f"wrote {escape(str(written[0]))}{extra}")
