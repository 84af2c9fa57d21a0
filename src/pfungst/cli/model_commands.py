"""Commands that ask a model: ``pfungst score`` and ``pfungst stress``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from pfungst import serialization
from pfungst.cli.common import (
    READER_RENAMED,
    MapOption,
    OnErrorOption,
    ReaderOption,
    StrictOption,
    app,
    check_suffix,
    console,
    load_benchmark,
    progress_bar,
    renamed_options,
    results_console,
    user_errors,
    write_json,
)
from pfungst.errors import ConfigError
from pfungst.evaluate.runner import ScoreConfig, score_benchmark
from pfungst.evaluate.score_result import ScoreResult
from pfungst.models.registry import applicable_options
from pfungst.report.console_blocks import render_to_console
from pfungst.report.stress_console import render_ranks, render_stress
from pfungst.serialization import check_outputs
from pfungst.stress.comparison import StressComparison, compare
from pfungst.stress.stress_config import DEFAULT_PERTURBATIONS, StressConfig
from pfungst.stress.stress_result import StressResult
from pfungst.stress.suite import stress

__all__ = ["SCORE_RENAMED", "STRESS_RENAMED", "score_command", "stress_command"]

SCORE_RENAMED = {**READER_RENAMED, "--scoring": "--rule", "--prompt-format": "--prompt"}
"""Old option names -> the ScoreConfig field names they now match, kept for one release."""
STRESS_RENAMED = {
    **SCORE_RENAMED,
    "--formats": "--n-formats",
    "--search-formats": "--n-search-formats",
    "--bootstrap": "--n-bootstrap",
}
"""Old option names -> the StressConfig field names they now match, kept for one release."""

TimeoutOption = Annotated[
    float | None, typer.Option(help="Seconds a model server may take to answer one request (openai: models).")
]
RetriesOption = Annotated[
    int | None, typer.Option(help="Retries of a failed request to a model server (openai: models; default 8).")
]


@app.command("score", cls=renamed_options(SCORE_RENAMED))
def score_command(
    data: Annotated[Path, typer.Argument(help="Benchmark file or directory.")],
    reader: ReaderOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    model: Annotated[
        str, typer.Option(help="smollm2 (embedded, default), gemma3-270m, a .gguf path, or openai:<base_url>#<model>.")
    ] = "smollm2",
    rule: Annotated[
        str, typer.Option(help="Scoring rule: letter, cloze-raw, cloze-token, cloze-byte, pmi or generate.")
    ] = "cloze-raw",
    prompt: Annotated[
        str, typer.Option(help="Prompt format: mmlu, plain or chatml-letter (see `pfungst formats`).")
    ] = "mmlu",
    limit: Annotated[int | None, typer.Option(help="Score only the first N items.")] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            help="SQLite cache file (default: $PFUNGST_CACHE or "
            "~/.cache/pfungst/cache.sqlite); a rerun resumes from it."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write per-item results here: .jsonl or .parquet.")
    ] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the summary as JSON ('-': stdout).")] = None,
    seed: Annotated[int, typer.Option(help="Seed (sampled generation).")] = 0,
    threads: Annotated[
        int | None, typer.Option(help="CPU threads for a llama.cpp model (default: its choice).")
    ] = None,
    chunk_size: Annotated[int, typer.Option(help="Items per batch sent to the model and committed to the cache.")] = 16,
    timeout: TimeoutOption = None,
    retries: RetriesOption = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Score a benchmark with a language model: accuracy with its Wilson interval against chance, per-item results."""
    with user_errors():
        check_outputs([data, cache], {"--out": out, "--json": json_path})
        config = ScoreConfig(
            rule=rule,
            prompt=prompt,
            limit=limit,
            cache=cache or True,
            chunk_size=chunk_size,
            seed=seed,
            model_options=applicable_options(model, _model_options(threads, timeout, retries)),
        )
        config.resolve()  # before reading data: a typo should not cost a load
        check_suffix(out)
        benchmark = load_benchmark(data, reader, map, on_error, strict)
        with progress_bar(quiet) as report:
            result = score_benchmark(benchmark, model, config, progress=report)
        render_to_console(result, results_console(json_path))
        _write_score(result, out, json_path)


def _write_score(result: ScoreResult, out: Path | None, json_path: Path | None) -> None:
    if out:
        console.print(f"wrote {escape(str(result.save_items(out)))}")
    write_json(json_path, result.save_json)


@app.command("stress", cls=renamed_options(STRESS_RENAMED))
def stress_command(
    data: Annotated[Path, typer.Argument(help="Benchmark file or directory.")],
    reader: ReaderOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    model: Annotated[
        list[str] | None,
        typer.Option(
            help="Model, repeatable to compare ranks: smollm2 (default), "
            "gemma3-270m, a .gguf path, openai:<base_url>#<model>."
        ),
    ] = None,
    rule: Annotated[str, typer.Option(help="Scoring rule of the arrangement perturbations.")] = "letter",
    rules: Annotated[
        str, typer.Option(help="Comma-separated rules compared by the 'rules' perturbation.")
    ] = "letter,cloze-raw,cloze-token,cloze-byte,pmi",
    prompt: Annotated[
        str, typer.Option(help="Base prompt format: mmlu, plain or chatml-letter (see `pfungst formats`).")
    ] = "mmlu",
    perturbation: Annotated[
        list[str] | None,
        typer.Option(
            "--perturbation",
            "-p",
            help="Perturbation to run, repeatable (default: all but permutations and "
            "spread-search; see `pfungst formats`).",
        ),
    ] = None,
    permutations: Annotated[str, typer.Option(help="Orders per item for 'permutations': a number or 'all'.")] = "6",
    n_formats: Annotated[int, typer.Option(help="Formats for 'formats' (base + sampled).")] = 8,
    n_search_formats: Annotated[int, typer.Option(help="Formats searched by 'spread-search'.")] = 24,
    spread_budget: Annotated[int, typer.Option(help="Item evaluations 'spread-search' may spend.")] = 400,
    instruction: Annotated[
        list[str] | None, typer.Option(help="An instruction paraphrase of your own, repeatable.")
    ] = None,
    instructions_file: Annotated[
        Path | None, typer.Option(help="A file of instruction paraphrases, one per line.")
    ] = None,
    pride_fraction: Annotated[float, typer.Option(help="Share of items estimating PriDe's prior.")] = 0.05,
    limit: Annotated[int | None, typer.Option(help="Use only the first N items.")] = None,
    sample: Annotated[int | None, typer.Option(help="Use a seeded random sample of N items.")] = None,
    cache: Annotated[Path | None, typer.Option(help="SQLite cache file; a rerun resumes from it.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    n_bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples per interval.")] = 1000,
    threads: Annotated[int | None, typer.Option(help="CPU threads for a llama.cpp model.")] = None,
    chunk_size: Annotated[int, typer.Option(help="Questions per batch sent to the model.")] = 16,
    timeout: TimeoutOption = None,
    retries: RetriesOption = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the result(s) as JSON ('-': stdout).")] = None,
    items_path: Annotated[
        Path | None,
        typer.Option(
            "--items", help="Write every outcome here: .jsonl or .parquet (one file per model, numbered, when several)."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """How much of a model's score is option order, option IDs, format and scoring rule?"""
    with user_errors():
        check_outputs(
            [data, cache, instructions_file], {"--json": json_path, **_items_paths(items_path, len(model or ()))}
        )
        config = StressConfig(
            rule=rule,
            rules=tuple(r.strip() for r in rules.split(",") if r.strip()),
            prompt=prompt,
            perturbations=tuple(perturbation) if perturbation else DEFAULT_PERTURBATIONS,
            permutations=_permutations(permutations),
            n_formats=n_formats,
            n_search_formats=n_search_formats,
            spread_budget=spread_budget,
            instructions=_instructions(instruction, instructions_file),
            pride_fraction=pride_fraction,
            limit=limit,
            sample=sample,
            cache=cache or True,
            seed=seed,
            n_bootstrap=n_bootstrap,
            chunk_size=chunk_size,
            model_options=_model_options(threads, timeout, retries),
        )
        config.validate()
        check_suffix(items_path)
        benchmark = load_benchmark(data, reader, map, on_error, strict)
        results, out = [], results_console(json_path)
        for spec in model or ["smollm2"]:
            with progress_bar(quiet) as report:
                options = applicable_options(spec, config.model_options)
                results.append(stress(benchmark, spec, replace(config, model_options=options), progress=report))
            render_stress(results[-1], out)
        ranks = compare(results, names=model, seed=seed, n_bootstrap=n_bootstrap) if len(results) > 1 else None
        if ranks is not None:
            render_ranks(ranks, out)
        _write_stress(results, ranks, json_path, items_path)


def _model_options(threads: int | None, timeout: float | None, retries: int | None) -> dict[str, Any]:
    """Backend options from the CLI; each backend is later given only those it takes."""
    options: dict[str, Any] = {"n_threads": threads} if threads else {}
    options.update({name: v for name, v in (("timeout", timeout), ("retries", retries)) if v is not None})
    return options


def _items_paths(items_path: Path | None, n_models: int) -> dict[str, Path]:
    """Where ``--items`` puts each model's outcomes: the path itself, or ``items-1.jsonl``, ... for several models."""
    if items_path is None:
        return {}
    if n_models < 2:
        return {"--items": items_path}
    return {f"--items (model {i})": items_path.with_stem(f"{items_path.stem}-{i}") for i in range(1, n_models + 1)}


def _permutations(value: str) -> int | None:
    if value.strip().lower() == "all":
        return None
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"--permutations {value!r}: give a number of orders per item or 'all'") from None


def _instructions(texts: list[str] | None, path: Path | None) -> tuple[str, ...]:
    found = list(texts or ())
    if path is not None:
        try:
            found += [line.strip() for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
        except OSError as exc:
            raise ConfigError(f"--instructions-file {path}: cannot read it ({exc.strerror})") from exc
    return tuple(found)


def _write_stress(results: list[StressResult], ranks: Any, json_path: Path | None, items_path: Path | None) -> None:
    if items_path:
        for result, path in zip(results, _items_paths(items_path, len(results)).values(), strict=True):
            console.print(f"wrote {escape(str(result.save_items(path)))}")
    if json_path:
        data: dict[str, Any] = (
            results[0].to_dict() if len(results) == 1 else StressComparison(tuple(results), ranks).to_dict()
        )
        write_json(json_path, lambda path: serialization.write_json(path, data))
