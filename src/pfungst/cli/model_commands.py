"""Commands that ask a model: ``pfungst score`` and ``pfungst stress``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from pfungst.cli.common import (
    FormatOption,
    MapOption,
    OnErrorOption,
    StrictOption,
    app,
    check_suffix,
    console,
    load_benchmark,
    progress_bar,
    user_errors,
)
from pfungst.errors import ConfigError
from pfungst.evaluate.runner import ScoreConfig, score_benchmark
from pfungst.evaluate.score_result import ScoreResult
from pfungst.models.registry import applicable_options
from pfungst.report.score_console import render_score
from pfungst.report.stress_console import render_ranks, render_stress
from pfungst.stress.comparison import compare
from pfungst.stress.stress_config import DEFAULT_PERTURBATIONS, StressConfig
from pfungst.stress.stress_result import StressResult
from pfungst.stress.suite import stress

__all__ = ["score_command", "stress_command"]

TimeoutOption = Annotated[
    float | None, typer.Option(help="Seconds a model server may take to answer one request (openai: models).")
]
RetriesOption = Annotated[
    int | None, typer.Option(help="Retries of a failed request to a model server (openai: models; default 8).")
]


@app.command("score")
def score_command(
    data: Annotated[Path, typer.Argument(help="Benchmark file or directory.")],
    format: FormatOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    model: Annotated[
        str, typer.Option(help="smollm2 (embedded, default), gemma3-270m, a .gguf path, or openai:<base_url>#<model>.")
    ] = "smollm2",
    scoring: Annotated[
        str, typer.Option(help="letter, cloze-raw, cloze-token, cloze-byte, pmi or generate.")
    ] = "cloze-raw",
    prompt_format: Annotated[
        str,
        typer.Option(
            "--prompt-format", help="Prompt format: mmlu, plain or chatml-letter (--format names the data reader)."
        ),
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
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the summary as JSON.")] = None,
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
        config = ScoreConfig(
            rule=scoring,
            format=prompt_format,
            limit=limit,
            cache=cache or True,
            chunk_size=chunk_size,
            seed=seed,
            model_options=applicable_options(model, _model_options(threads, timeout, retries)),
        )
        config.resolve()  # before reading data: a typo should not cost a load
        check_suffix(out)
        benchmark = load_benchmark(data, format, map, on_error, strict)
        with progress_bar(quiet) as report:
            result = score_benchmark(benchmark, model, config, progress=report)
        render_score(result, console)
        _write_score(result, out, json_path)


def _write_score(result: ScoreResult, out: Path | None, json_path: Path | None) -> None:
    if out:
        console.print(f"wrote {escape(str(result.save_items(out)))}")
    if json_path:
        console.print(f"wrote {escape(str(result.save_json(json_path)))}")


@app.command("stress")
def stress_command(
    data: Annotated[Path, typer.Argument(help="Benchmark file or directory.")],
    format: FormatOption = None,
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
    scoring: Annotated[str, typer.Option(help="Scoring rule of the arrangement perturbations.")] = "letter",
    rules: Annotated[
        str, typer.Option(help="Comma-separated rules compared by the 'rules' perturbation.")
    ] = "letter,cloze-raw,cloze-token,cloze-byte,pmi",
    prompt_format: Annotated[
        str, typer.Option("--prompt-format", help="Base prompt format: mmlu, plain or chatml-letter.")
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
    n_formats: Annotated[int, typer.Option("--formats", help="Formats for 'formats' (base + sampled).")] = 8,
    search_formats: Annotated[int, typer.Option(help="Formats searched by 'spread-search'.")] = 24,
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
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples per interval.")] = 1000,
    threads: Annotated[int | None, typer.Option(help="CPU threads for a llama.cpp model.")] = None,
    chunk_size: Annotated[int, typer.Option(help="Questions per batch sent to the model.")] = 16,
    timeout: TimeoutOption = None,
    retries: RetriesOption = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the result(s) as JSON.")] = None,
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
        config = StressConfig(
            rule=scoring,
            rules=tuple(r.strip() for r in rules.split(",") if r.strip()),
            format=prompt_format,
            perturbations=tuple(perturbation) if perturbation else DEFAULT_PERTURBATIONS,
            permutations=_permutations(permutations),
            n_formats=n_formats,
            n_search_formats=search_formats,
            spread_budget=spread_budget,
            instructions=_instructions(instruction, instructions_file),
            pride_fraction=pride_fraction,
            limit=limit,
            sample=sample,
            cache=cache or True,
            seed=seed,
            n_bootstrap=bootstrap,
            chunk_size=chunk_size,
            model_options=_model_options(threads, timeout, retries),
        )
        config.validate()
        check_suffix(items_path)
        benchmark = load_benchmark(data, format, map, on_error, strict)
        results = []
        for spec in model or ["smollm2"]:
            with progress_bar(quiet) as report:
                options = applicable_options(spec, config.model_options)
                results.append(stress(benchmark, spec, replace(config, model_options=options), progress=report))
            render_stress(results[-1], console)
        ranks = compare(results, names=model, seed=seed, n_bootstrap=bootstrap) if len(results) > 1 else None
        if ranks is not None:
            render_ranks(ranks, console)
        _write_stress(results, ranks, json_path, items_path)


def _model_options(threads: int | None, timeout: float | None, retries: int | None) -> dict[str, Any]:
    """Backend options from the CLI; each backend is later given only those it takes."""
    options: dict[str, Any] = {"n_threads": threads} if threads else {}
    options.update({name: v for name, v in (("timeout", timeout), ("retries", retries)) if v is not None})
    return options


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
        for index, result in enumerate(results, start=1):
            path = items_path if len(results) == 1 else items_path.with_stem(f"{items_path.stem}-{index}")
            console.print(f"wrote {escape(str(result.save_items(path)))}")
    if json_path:
        data: dict[str, Any] = (
            results[0].to_dict()
            if len(results) == 1
            else {
                "schema_version": "pfungst.stress-comparison/1",
                "results": [r.to_dict() for r in results],
                "rank_stability": ranks.to_dict(),
            }
        )
        json_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        console.print(f"wrote {escape(str(json_path))}")
