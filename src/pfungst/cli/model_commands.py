"""Commands that ask a model: ``pfungst score`` and ``pfungst stress``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from pfungst import serialization
from pfungst.cli.common import (
    READ,
    READ_WRITE,
    WRITE,
    DataArgument,
    MapOption,
    NBootstrapOption,
    OnErrorOption,
    QuietOption,
    ReaderOption,
    SeedOption,
    StrictOption,
    app,
    check_suffix,
    config_from_options,
    console,
    load_benchmark,
    progress_bar,
    results_console,
    user_errors,
    write_json,
)
from pfungst.errors import ConfigError
from pfungst.path_checks import check_outputs

if TYPE_CHECKING:  # each command imports what it runs when it runs: `--help` stays fast
    from rich.console import Console

    from pfungst.data.benchmark import Benchmark
    from pfungst.evaluate.score_result import ScoreResult
    from pfungst.stress.rank_result import RankStability
    from pfungst.stress.stress_config import StressConfig
    from pfungst.stress.stress_result import StressResult

__all__ = ["score_command", "stress_command"]

TimeoutOption = Annotated[
    float | None, typer.Option(help="Seconds a model server may take to answer one request (openai: models).")
]
DeadlineOption = Annotated[
    float | None,
    typer.Option(
        help="Seconds one request to a model server may take in all, to the answer's last byte (openai: models; "
        "default: twice --timeout)."
    ),
]
RetriesOption = Annotated[
    int | None, typer.Option(help="Retries of a failed request to a model server (openai: models; default 8).")
]
_ScoreChunkSize = Annotated[int, typer.Option(help="Items per batch sent to the model and committed to the cache.")]
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
_ScoreCache = Annotated[
    Path | None,
    typer.Option(
        help="SQLite cache file (default: $PFUNGST_CACHE or ~/.cache/pfungst/cache.sqlite); a rerun resumes from it."
    ),
    READ_WRITE,
]
_ScoreOut = Annotated[
    Path | None, typer.Option("--out", "-o", help="Write per-item results here: .jsonl or .parquet."), WRITE
]
_ScoreThreads = Annotated[int | None, typer.Option(help="CPU threads for a llama.cpp model (default: its choice).")]
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


@app.command("score")
def score_command(
    data: DataArgument,
    reader: ReaderOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    model: _ScoreModel = "smollm2",
    rule: _ScoreRule = "cloze-raw",
    prompt: _ScorePrompt = "mmlu",
    limit: Annotated[int | None, typer.Option(help="Score only the first N items.")] = None,
    cache: _ScoreCache = None,
    out: _ScoreOut = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the summary as JSON ('-': stdout)."), WRITE
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed (sampled generation).")] = 0,
    threads: _ScoreThreads = None,
    chunk_size: _ScoreChunkSize = 16,
    timeout: TimeoutOption = None,
    deadline: DeadlineOption = None,
    retries: RetriesOption = None,
    cluster_by: _ClusterBy = "auto",
    quiet: QuietOption = False,
) -> None:
    """Score a benchmark with a language model: accuracy with its interval against chance, per-item results (a stress
    run with the identity perturbation alone: the same accuracy and interval)."""
    options = locals()  # every option by name: RunConfig's fields are named after them
    with user_errors():
        from pfungst.evaluate.run_config import RunConfig
        from pfungst.report.console_blocks import render_to_console
        from pfungst.stress.score_run import score

        check_outputs([data, *_default_cache(cache)], {"--cache": cache, "--out": out, "--json": json_path})
        config = config_from_options(RunConfig, options, **_run_settings(options, model))
        config.validate()  # before reading data: a typo should not cost a load
        check_suffix(out)
        benchmark = load_benchmark(data, reader, map, on_error, strict)
        with progress_bar(quiet, "loading the model") as report:
            result = score(benchmark, model, config, progress=report)
        render_to_console(result, results_console(json_path))
        _write_score(result, out, json_path)


def _write_score(result: ScoreResult, out: Path | None, json_path: Path | None) -> None:
    if out:
        console.print(f"wrote {escape(str(result.save_items(out)))}")
    write_json(json_path, result.save_json)


_ClusterBy = Annotated[
    str,
    typer.Option(
        help="Which items share errors (Miller 2024): auto (an MMLU subject, BIG-bench subtask, group or shared "
        "passage, where items fall in two or more), none (independent items: plain intervals) or a metadata key or "
        "field every item has."
    ),
]


_StressJson = Annotated[Path | None, typer.Option("--json", help="Write the result(s) as JSON ('-': stdout)."), WRITE]


@app.command("stress")
def stress_command(
    data: _StressData = None,
    reader: ReaderOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    model: _StressModels = None,
    rule: Annotated[str, typer.Option(help="Scoring rule of the arrangement perturbations.")] = "letter",
    rules: _StressRules = "letter,cloze-raw,cloze-token,cloze-byte,pmi",
    prompt: _StressPrompt = "mmlu",
    perturbation: _Perturbations = None,
    limit: Annotated[int | None, typer.Option(help="Use only the first N items.")] = None,
    sample: Annotated[int | None, typer.Option(help="Use a seeded random sample of N items.")] = None,
    cache: Annotated[Path | None, typer.Option(help="SQLite cache file; a rerun resumes from it."), READ_WRITE] = None,
    seed: SeedOption = 0,
    n_bootstrap: NBootstrapOption = 1000,
    cluster_by: _ClusterBy = "auto",
    threads: Annotated[int | None, typer.Option(help="CPU threads for a llama.cpp model.")] = None,
    chunk_size: Annotated[int, typer.Option(help="Questions per batch sent to the model.")] = 16,
    timeout: TimeoutOption = None,
    deadline: DeadlineOption = None,
    retries: RetriesOption = None,
    json_path: _StressJson = None,
    items_path: _StressItems = None,
    from_logs: _FromLogs = None,
    quiet: QuietOption = False,
) -> None:
    """How much of a model's score is option order, option IDs, format and scoring rule?"""
    options = locals()  # every option by name: StressConfig's fields are named after them
    if from_logs is not None or data is None:
        _stress_from_logs(data, from_logs, json_path, items_path, cluster_by)
        return
    with user_errors():
        items = _items_paths(items_path, len(model or ()))
        inputs = [data, *_perturbation_inputs(perturbation), *_default_cache(cache)]
        check_outputs(inputs, {"--cache": cache, "--json": json_path, **items})
        config = _stress_config(options)
        config.validate()
        check_suffix(items_path, "--items")
        benchmark = load_benchmark(data, reader, map, on_error, strict)
        results, ranks = _run_stress(benchmark, model, config, quiet, results_console(json_path))
        _write_stress(results, ranks, json_path, items_path)


def _stress_from_logs(
    data: Path | None, logs: Path | None, json_path: Path | None, items_path: Path | None, cluster_by: str
) -> None:
    """Analyse lm-eval's samples of an exported plan (the settings are the export's)."""
    from pfungst.report.console_blocks import render_to_console
    from pfungst.stress.lm_eval import stress_from_logs

    with user_errors():
        if data is not None or logs is None:
            raise ConfigError("give a benchmark (DATA) to run a model, or --from-logs OUT to analyse lm-eval's samples")
        check_outputs([logs], {"--json": json_path, **_items_paths(items_path, 1)})
        check_suffix(items_path, "--items")
        result = stress_from_logs(logs, cluster_by=cluster_by)
        render_to_console(result, results_console(json_path))
        _write_stress([result], None, json_path, items_path)


def _stress_config(options: dict[str, Any]) -> StressConfig:
    """The run's settings: each option of the same name, and those whose command-line form differs, converted; each
    ``--model`` spec is checked too, so a typo costs no data load."""
    from pfungst.evaluate.run_config import RunConfig
    from pfungst.models.registry import applicable_options
    from pfungst.stress.stress_config import DEFAULT_PERTURBATIONS, StressConfig

    for spec in options["model"] or ():
        applicable_options(spec, {})  # raises for an unknown name or provider
    return config_from_options(
        StressConfig,
        options,
        run=config_from_options(RunConfig, options, **_run_settings(options)),
        rules=tuple(r.strip() for r in options["rules"].split(",") if r.strip()),
        perturbations=tuple(options["perturbation"]) if options["perturbation"] else DEFAULT_PERTURBATIONS,
    )


def _run_stress(
    benchmark: Benchmark, models: list[str] | None, config: StressConfig, quiet: bool, out: Console
) -> tuple[list[StressResult], RankStability | None]:
    """Stress each model in turn (printing each result), then compare their ranks when there are several."""
    from pfungst.models.registry import applicable_options
    from pfungst.models.secrets import spec_without_credentials
    from pfungst.report.console_blocks import render_to_console
    from pfungst.stress.comparison import compare
    from pfungst.stress.suite import stress

    results = []
    for spec in models or ["smollm2"]:
        with progress_bar(quiet, "planning") as report:
            options = applicable_options(spec, config.run.model_options)
            run = replace(config.run, model_options=options)
            results.append(stress(benchmark, spec, replace(config, run=run), progress=report))
        render_to_console(results[-1], out)
    if len(results) < 2:
        return results, None
    names = [spec_without_credentials(spec) for spec in models or ()]  # names are shown and stored
    if len(set(names)) < len(names):  # specs that differed only in their credentials
        names = [f"{name} ({number})" for number, name in enumerate(names, 1)]
    ranks = compare(results, names=names, seed=config.run.seed, n_bootstrap=config.n_bootstrap)
    render_to_console(ranks, out)
    return results, ranks


def _run_settings(options: dict[str, Any], model: str | None = None) -> dict[str, Any]:
    """The :class:`~pfungst.evaluate.run_config.RunConfig` fields whose command-line form differs from the field,
    alike for ``score`` and ``stress``: the default cache and the backend options (only those the backend of
    ``model`` takes, when one model is known)."""
    from pfungst.models.registry import applicable_options

    backend = {"n_threads": options["threads"]} if options["threads"] else {}
    given = ((name, options[name]) for name in ("timeout", "retries", "deadline"))
    backend.update({name: value for name, value in given if value is not None})
    return {
        "cache": options["cache"] or True,
        "model_options": applicable_options(model, backend) if model is not None else backend,
    }


def _items_paths(items_path: Path | None, n_models: int) -> dict[str, Path]:
    """Where ``--items`` puts each model's outcomes: the path itself, or ``items-1.jsonl``, ... for several models."""
    if items_path is None:
        return {}
    if n_models < 2:
        return {"--items": items_path}
    return {f"--items (model {i})": items_path.with_stem(f"{items_path.stem}-{i}") for i in range(1, n_models + 1)}


def _default_cache(cache: Path | None) -> list[Path]:
    """The cache file read and written when ``--cache`` is not given: an input no other output may replace."""
    from pfungst.evaluate.run_config import default_cache_path

    return [] if cache is not None else [default_cache_path()]


def _perturbation_inputs(specs: list[str] | None) -> list[Path]:
    """The files read by the perturbations' parameters (``-p instructions:file=paraphrases.txt``)."""
    from pfungst.stress.perturbations import perturbation_inputs

    return perturbation_inputs(specs or ())


def _write_stress(results: list[StressResult], ranks: Any, json_path: Path | None, items_path: Path | None) -> None:
    from pfungst.stress.comparison import StressComparison

    if items_path:
        for result, path in zip(results, _items_paths(items_path, len(results)).values(), strict=True):
            console.print(f"wrote {escape(str(result.save_items(path)))}")
    if json_path:
        data: dict[str, Any] = (
            results[0].to_dict() if len(results) == 1 else StressComparison(tuple(results), ranks).to_dict()
        )
        write_json(json_path, lambda path: serialization.write_json(path, data))
