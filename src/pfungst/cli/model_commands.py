"""Commands that ask a model: ``pfungst score`` and ``pfungst stress``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from pfungst import serialization
from pfungst.cli.common import (
    READ,
    WRITE,
    DataArgument,
    QuietOption,
    app,
    check_suffix,
    config_from_options,
    console,
    progress_bar,
    results_console,
    user_errors,
)
from pfungst.cli.option_groups import (
    DataOptions,
    ModelOptions,
    OptionGroup,
    SamplingOptions,
    option_values,
    with_option_groups,
)
from pfungst.cli.result_output import VerboseOption, result_path, save_result, show_result
from pfungst.errors import ConfigError
from pfungst.path_checks import check_outputs

if TYPE_CHECKING:  # each command imports what it runs when it runs: `--help` stays fast
    from rich.console import Console

    from pfungst.data.benchmark import Benchmark
    from pfungst.evaluate.score_result import ScoreResult
    from pfungst.models.registry import ModelSpec
    from pfungst.stress.rank_result import RankStability
    from pfungst.stress.stress_config import StressConfig
    from pfungst.stress.stress_result import StressResult

__all__ = ["StressOptions", "score_command", "stress_command"]

_ScoreModel = Annotated[
    str,
    typer.Option(
        help="smollm2 (embedded, default), gemma3-270m, a .gguf path, a model folder, or provider:target "
        "(openai:<base_url>#<model>, llamacpp:<path.gguf>, hf:<folder>; see `pfungst formats --what providers`)."
    ),
]
_ScoreRule = Annotated[
    str, typer.Option(help="Scoring rule: letter, cloze-raw, cloze-token, cloze-byte, pmi or generate.")
]
_ScorePrompt = Annotated[str, typer.Option(help="Prompt format: mmlu, plain or chatml-letter (see `pfungst formats`).")]
_ScoreOut = Annotated[
    Path | None, typer.Option("--out", "-o", help="Write per-item results here: .jsonl or .parquet."), WRITE
]
_StressModels = Annotated[
    list[str] | None,
    typer.Option(
        help="Model, repeatable to compare ranks: smollm2 (default), gemma3-270m, a .gguf path, a model folder, or "
        "provider:target (openai:<base_url>#<model>, ...; see `pfungst formats --what providers`)."
    ),
]
_StressRules = Annotated[str, typer.Option(help="Comma-separated rules compared by the 'rules' perturbation.")]
_StressPrompt = Annotated[
    str, typer.Option(help="Base prompt format: mmlu, plain or chatml-letter (see `pfungst formats`).")
]
_Perturbations = Annotated[
    list[str] | None,
    typer.Option(
        "--perturbation",
        "-p",
        help="Perturbation to run, repeatable, with its parameters as name:key=value,key=value "
        "(-p pride:fraction=0.1 -p formats:n=4); default: all but permutations and spread-search, with default "
        "parameters (see `pfungst formats --what perturbations`).",
    ),
]
_StressData = Annotated[
    Path | None,
    typer.Argument(help="Benchmark file or directory (none with --from-logs).", show_default=False),
    READ,
]
_FromLogs = Annotated[
    Path | None,
    typer.Option(
        help="Analyse lm-eval's --log_samples of tasks from `pfungst export lm-eval` (its --output_path) instead "
        "of running a model; the settings are the export's."
    ),
    READ,
]
_StressItems = Annotated[
    Path | None,
    typer.Option(
        "--items", help="Write every outcome here: .jsonl or .parquet (one file per model, numbered, when several)."
    ),
    WRITE,
]

_ClusterBy = Annotated[
    str,
    typer.Option(
        help="Which items share errors (Miller 2024): auto (an MMLU subject, BIG-bench subtask, group or shared "
        "passage, where items fall in two or more), none (independent items: plain intervals) or a metadata key or "
        "field every item has."
    ),
]


@app.command("score")
@with_option_groups
def score_command(
    data: DataArgument,
    *,
    data_options: DataOptions,
    model: _ScoreModel = "smollm2",
    rule: _ScoreRule = "cloze-raw",
    prompt: _ScorePrompt = "mmlu",
    limit: Annotated[int | None, typer.Option(help="Score only the first N items.")] = None,
    seed: Annotated[int, typer.Option(help="Seed (sampled generation).")] = 0,
    model_options: ModelOptions,
    out: _ScoreOut = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the summary as JSON ('-': stdout)."), WRITE
    ] = None,
    cluster_by: _ClusterBy = "auto",
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Score a benchmark with a language model: accuracy with its interval against chance, per-item results (a stress
    run with the identity perturbation alone: the same accuracy and interval). Saves the summary as JSON (default:
    DATA's stem + .score.json, beside DATA)."""
    options = option_values(
        data_options, model_options, rule=rule, prompt=prompt, limit=limit, seed=seed, cluster_by=cluster_by
    )
    with user_errors():
        from pfungst.evaluate.run_config import RunConfig
        from pfungst.models.registry import ModelSpec
        from pfungst.stress.score_run import score

        saved = result_path(json_path, data, "score")
        outputs = {"--cache": model_options.cache, "--out": out, "--json": saved}
        check_outputs([data, *model_options.inputs()], outputs)
        spec = ModelSpec.parse(model)  # the one parse of --model: a typo costs no data load
        config = config_from_options(RunConfig, options, **model_options.run_settings(spec))
        config.validate()  # before reading data: a typo should not cost a load
        check_suffix(out)
        benchmark = data_options.load(data)
        with progress_bar(quiet, "loading the model") as report:
            result = score(benchmark, spec, config, progress=report)
        show_result(result, results_console(json_path), verbose)
        _write_score(result, out, saved)


def _write_score(result: ScoreResult, out: Path | None, saved: Path) -> None:
    if out:
        console.print(f"wrote {escape(str(result.save_items(out)))}")
    save_result(saved, result.save_json)


_StressJson = Annotated[Path | None, typer.Option("--json", help="Write the result(s) as JSON ('-': stdout)."), WRITE]


@dataclass(frozen=True)
class StressOptions(OptionGroup):
    """What a stress run varies and how its items are grouped: the rules, the base prompt, the perturbations."""

    rule: Annotated[str, typer.Option(help="Scoring rule of the arrangement perturbations.")] = "letter"
    """The main scoring rule."""
    rules: _StressRules = "letter,cloze-raw,cloze-token,cloze-byte,pmi"
    """The rules compared by ``rules``, comma-separated."""
    prompt: _StressPrompt = "mmlu"
    """The base prompt format."""
    perturbation: _Perturbations = None
    """Perturbation specs (``name:key=value``); None for the default ones."""
    cluster_by: _ClusterBy = "auto"
    """Which items share errors."""

    def values(self) -> dict[str, Any]:
        """Each option by the name of its config field: ``rules`` split at the commas, ``--perturbation`` as
        ``perturbations`` (the default ones when none is given)."""
        from pfungst.stress.stress_config import DEFAULT_PERTURBATIONS

        values = super().values()
        values["rules"] = tuple(rule.strip() for rule in self.rules.split(",") if rule.strip())
        values["perturbations"] = tuple(values.pop("perturbation") or DEFAULT_PERTURBATIONS)
        return values


@app.command("stress")
@with_option_groups
def stress_command(
    data: _StressData = None,
    *,
    data_options: DataOptions,
    model: _StressModels = None,
    stress_options: StressOptions,
    sampling: SamplingOptions,
    model_options: ModelOptions,
    json_path: _StressJson = None,
    items_path: _StressItems = None,
    from_logs: _FromLogs = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """How much of a model's score is option order, option IDs, format and scoring rule? Prints the finding in a few
    sentences (every table with --verbose) and saves the whole result as JSON (default: DATA's stem + .stress.json,
    beside DATA)."""
    if from_logs is not None or data is None:
        _stress_from_logs(data, from_logs, (json_path, items_path), stress_options.cluster_by, verbose)
        return
    with user_errors():
        items = _items_paths(items_path, len(model or ()))
        inputs = [data, *_perturbation_inputs(stress_options.perturbation), *model_options.inputs()]
        saved = result_path(json_path, data, "stress")
        check_outputs(inputs, {"--cache": model_options.cache, "--json": saved, **items})
        specs = _model_specs(model)
        config = _stress_config(model_options, stress_options, data_options, sampling)
        config.validate()
        check_suffix(items_path, "--items")
        benchmark = data_options.load(data)
        results, ranks = _run_stress(benchmark, specs, config, quiet, (results_console(json_path), verbose))
        _write_stress(results, ranks, saved, items_path)


def _stress_from_logs(
    data: Path | None, logs: Path | None, paths: tuple[Path | None, Path | None], cluster_by: str, verbose: bool
) -> None:
    """Analyse lm-eval's samples of an exported plan (the settings are the export's); ``paths``: --json, --items."""
    from pfungst.stress.lm_eval import stress_from_logs

    json_path, items_path = paths
    with user_errors():
        if data is not None or logs is None:
            raise ConfigError("give a benchmark (DATA) to run a model, or --from-logs OUT to analyse lm-eval's samples")
        saved = result_path(json_path, logs, "stress")
        check_outputs([logs], {"--json": saved, **_items_paths(items_path, 1)})
        check_suffix(items_path, "--items")
        result = stress_from_logs(logs, cluster_by=cluster_by)
        show_result(result, results_console(json_path), verbose)
        _write_stress([result], None, saved, items_path)


def _model_specs(models: list[str] | None) -> list[ModelSpec]:
    """Each ``--model`` parsed once (the embedded default when none is given), before any data is read.

    Raises:
        ConfigError: a spec names no model or provider (close matches listed).
    """
    from pfungst.models.registry import ModelSpec

    return [ModelSpec.parse(spec) for spec in models or ["smollm2"]]


def _stress_config(model_options: ModelOptions, *groups: OptionGroup) -> StressConfig:
    """The run's settings from the options of ``groups`` and ``model_options`` (every backend setting given: each
    model keeps those its backend takes)."""
    from pfungst.evaluate.run_config import RunConfig
    from pfungst.stress.stress_config import StressConfig

    options = option_values(model_options, *groups)
    run = config_from_options(RunConfig, options, **model_options.run_settings())
    return config_from_options(StressConfig, options, run=run)


def _run_stress(
    benchmark: Benchmark, specs: list[ModelSpec], config: StressConfig, quiet: bool, shown: tuple[Console, bool]
) -> tuple[list[StressResult], RankStability | None]:
    """Stress each model in turn (printing each result on ``shown``: the console, and whether verbose), then compare
    their ranks when there are several (printing the comparison's short answer)."""
    from pfungst.stress.comparison import StressComparison, compare
    from pfungst.stress.suite import stress

    out, verbose = shown

    results = []
    for spec in specs:
        with progress_bar(quiet, "planning") as report:
            run = replace(config.run, model_options=spec.applicable_options(config.run.model_options))
            results.append(stress(benchmark, spec, replace(config, run=run), progress=report))
        if verbose or len(specs) < 2:  # several: their comparison sums each one up
            show_result(results[-1], out, verbose)
    if len(results) < 2:
        return results, None
    names = [spec.shown for spec in specs]  # names are shown and stored: never with a URL's credentials
    if len(set(names)) < len(names):  # specs that differed only in their credentials
        names = [f"{name} ({number})" for number, name in enumerate(names, 1)]
    ranks = compare(results, names=names, seed=config.run.seed, n_bootstrap=config.n_bootstrap)
    if verbose:  # the rank tables, then the comparison's short answer
        from pfungst.report.console_blocks import render_to_console

        render_to_console(ranks, out)
    show_result(StressComparison(tuple(results), ranks), out, verbose=False)
    return results, ranks


def _items_paths(items_path: Path | None, n_models: int) -> dict[str, Path]:
    """Where ``--items`` puts each model's outcomes: the path itself, or ``items-1.jsonl``, ... for several models."""
    if items_path is None:
        return {}
    if n_models < 2:
        return {"--items": items_path}
    return {f"--items (model {i})": items_path.with_stem(f"{items_path.stem}-{i}") for i in range(1, n_models + 1)}


def _perturbation_inputs(specs: list[str] | None) -> list[Path]:
    """The files read by the perturbations' parameters (``-p instructions:file=paraphrases.txt``)."""
    from pfungst.stress.perturbations import perturbation_inputs

    return perturbation_inputs(specs or ())


def _write_stress(results: list[StressResult], ranks: Any, saved: Path, items_path: Path | None) -> None:
    from pfungst.stress.comparison import StressComparison

    if items_path:
        for result, path in zip(results, _items_paths(items_path, len(results)).values(), strict=True):
            console.print(f"wrote {escape(str(result.save_items(path)))}")
    data: dict[str, Any] = (
        results[0].to_dict() if len(results) == 1 else StressComparison(tuple(results), ranks).to_dict()
    )
    save_result(saved, lambda path: serialization.write_json(path, data))
