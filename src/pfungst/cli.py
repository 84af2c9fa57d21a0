"""The ``pfungst`` command line: parse options, call the Python API, print. Nothing here is CLI-only logic.

Exit codes: 0 ok; 2 user error (one message, no traceback); 130 interrupted; 1 with a traceback for bugs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

import pfungst
from pfungst.audit.fix import fix
from pfungst.audit.run import AuditConfig, audit
from pfungst.data.builder import OnError
from pfungst.data.readers import READERS, get_reader
from pfungst.data.summary import summarize
from pfungst.data.synthetic import SYNTHETIC
from pfungst.demo import run_demo
from pfungst.errors import ConfigError, PfungstError
from pfungst.report.audit_console import render_audit, render_demo_verdicts
from pfungst.report.console import render_readers, render_summary
from pfungst.report.score_console import render_score
from pfungst.stress.runner import ScoreConfig, score_benchmark
from pfungst.stress.score_result import ScoreResult

__all__ = ["app", "main"]

app = typer.Typer(
    name="pfungst",
    help="Catch Clever Hans effects in multiple-choice LLM evaluation.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,  # locals may hold API keys
    add_completion=False,
)
console = Console(stderr=True)

FormatOption = Annotated[str | None, typer.Option("--format", "-f", help="Reader name (see `pfungst formats`); "
                                                  "detected when omitted.")]
MapOption = Annotated[list[str] | None, typer.Option("--map", "-m", help="Reader setting KEY=VALUE, repeatable, "
                                                     "e.g. --map question=stem --map option_columns=A,B,C,D")]
OnErrorOption = Annotated[str, typer.Option("--on-error", help="raise: stop at the first malformed row; "
                                            "skip: reject it, count it, go on.")]
StrictOption = Annotated[bool, typer.Option("--strict", help="Also stop on warnings (duplicate options).")]


@contextmanager
def _user_errors() -> Iterator[None]:
    """Print a user error as one message and exit 2; Ctrl-C exits 130."""
    try:
        yield
    except PfungstError as error:
        console.print(f"[bold red]error:[/bold red] {escape(str(error))}")
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        console.print("interrupted")
        raise typer.Exit(130) from None


def _parse_mapping(pairs: list[str] | None) -> dict[str, Any]:
    mapping: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--map {pair!r}: expected KEY=VALUE, e.g. --map question=stem")
        mapping[key.strip()] = value
    return mapping


def _load(data: Path, format: str | None, maps: list[str] | None, on_error: str, strict: bool) -> pfungst.Benchmark:
    if on_error not in ("raise", "skip"):
        raise ConfigError(f"--on-error must be 'raise' or 'skip', not {on_error!r}")
    mode: OnError = "skip" if on_error == "skip" else "raise"
    return pfungst.load(data, format, on_error=mode, strict=strict, **_parse_mapping(maps))


def _version(value: bool) -> None:
    if value:
        typer.echo(f"pfungst {pfungst.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Catch Clever Hans effects in multiple-choice LLM evaluation."""


@app.command()
def formats() -> None:
    """List the benchmark readers, one line each."""
    with _user_errors():
        rows = [(name, get_reader(name).description) for name in READERS]
        render_readers(rows, Console(file=sys.stdout, highlight=False))


@app.command()
def inspect(
    data: Annotated[Path, typer.Argument(help="Benchmark file or directory (or a hub name with "
                                                "--format huggingface).")],
    format: FormatOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    json_path: Annotated[Path | None, typer.Option("--json", help="Also write the summary as JSON here.")] = None,
) -> None:
    """Summarise a benchmark: items, options, label and gold-position histograms, lengths, duplicates, provenance."""
    with _user_errors():
        summary = summarize(_load(data, format, map, on_error, strict))
        render_summary(summary, console)
        if json_path:
            json_path.write_text(json.dumps(summary.to_dict(), indent=2, ensure_ascii=False) + "\n")
            console.print(f"wrote {escape(str(json_path))}")


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the generated benchmarks.")] = Path(
        "pfungst-demo"
    ),
    seed: Annotated[int, typer.Option(help="Random seed; the same seed gives the same files.")] = 0,
    items: Annotated[int, typer.Option(help="Items per synthetic benchmark.")] = 400,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """The built-in job: generate benchmarks with planted artifacts, summarise and audit each, write the results."""
    with _user_errors():
        with _progress_bar(quiet) as report:
            result = run_demo(out, seed=seed, n_items=items, progress=report)
        for name, summary in result.summaries.items():
            console.rule(f"{name}: planted {escape(SYNTHETIC[name].planted)}")
            render_summary(summary, console)
            render_audit(result.audits[name], console, top_cues=5)
        render_demo_verdicts(result, console)
        console.print(f"wrote {len(result.paths)} benchmarks and their audits to {escape(str(out))}/ (seed {seed})")


@contextmanager
def _progress_bar(quiet: bool) -> Iterator[Any]:
    """One progress bar on the stderr console; ``quiet`` disables it."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=console, disable=quiet, transient=True) as progress:
        task = progress.add_task("starting", total=None)

        def report(step: str, done: int, total: int) -> None:
            progress.update(task, description=escape(step), completed=done, total=total)

        yield report


@app.command("audit")
def audit_command(
    data: Annotated[Path, typer.Argument(help="Benchmark file or directory.")],
    format: FormatOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    protocol: Annotated[str, typer.Option(
        help="crossfit (default: stratified repeated cross-fitting, Cohen's kappa, intervals) or pacchiardi2024 "
        "(the paper's exact protocol).")] = "crossfit",
    feature_set: Annotated[list[str] | None, typer.Option("--feature-set", help="Feature set to probe, "
                                                          "repeatable (default: all that apply).")] = None,
    fields: Annotated[str, typer.Option(help="Partial-input baseline: comma-separated named fields, e.g. "
                                        "hypothesis.")] = "",
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    repeats: Annotated[int, typer.Option(help="Repeats of the cross-fitting.")] = 2,
    splits: Annotated[int, typer.Option(help="Folds of the cross-fitting.")] = 5,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples per interval.")] = 1000,
    permutations: Annotated[int, typer.Option(help="Permutations per p-value.")] = 1000,
    threshold: Annotated[float, typer.Option(help="Verdict threshold on the interval's lower bound.")] = 0.2,
    deduplicate: Annotated[bool, typer.Option(help="Drop repeated texts first (the paper did).")] = False,
    jobs: Annotated[int, typer.Option(help="Parallel folds (joblib).")] = 1,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the result as JSON.")] = None,
    items_path: Annotated[Path | None, typer.Option("--items", help="Write per-item predictions as CSV.")] = None,
    fix_dir: Annotated[Path | None, typer.Option("--fix", help="Write counterbalanced and filtered copies here "
                                                 "and audit them.")] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Can the benchmark be answered from surface features alone? Probes, heuristics, cues, and a verdict."""
    with _user_errors():
        config = AuditConfig(
            protocol=protocol,  # type: ignore[arg-type]  # validated by AuditConfig.validate
            feature_sets=tuple(feature_set or ()), fields=tuple(f.strip() for f in fields.split(",") if f.strip()),
            seed=seed, n_repeats=repeats, n_splits=splits, n_bootstrap=bootstrap, n_permutations=permutations,
            threshold=threshold, n_jobs=jobs,
        )
        config.validate()  # before reading data: a typo should not cost a load
        benchmark = _load(data, format, map, on_error, strict)
        if deduplicate or protocol == "pacchiardi2024":
            benchmark = benchmark.deduplicate()
        with _progress_bar(quiet) as report:
            result = audit(benchmark, config, progress=report)
        render_audit(result, console)
        if json_path:
            console.print(f"wrote {escape(str(result.save_json(json_path, items=True)))}")
        if items_path:
            result.to_frame().to_csv(items_path, index=False)
            console.print(f"wrote {escape(str(items_path))}")
        if fix_dir:
            with _progress_bar(quiet) as report:
                fixed = fix(benchmark, fix_dir, config, progress=report)
            for audited in (fixed.counterbalanced_audit, fixed.filtered_audit):
                if audited is not None:
                    render_audit(audited, console)
            console.print("wrote " + ", ".join(escape(p) for p in fixed.paths.values()))


@app.command("score")
def score_command(
    data: Annotated[Path, typer.Argument(help="Benchmark file or directory.")],
    format: FormatOption = None,
    map: MapOption = None,
    on_error: OnErrorOption = "raise",
    strict: StrictOption = False,
    model: Annotated[str, typer.Option(help="smollm2 (embedded, default), gemma3-270m, a .gguf path, or "
                                       "openai:<base_url>#<model>.")] = "smollm2",
    scoring: Annotated[str, typer.Option(help="letter, cloze-raw, cloze-token, cloze-byte, pmi or generate.")
                       ] = "cloze-raw",
    prompt_format: Annotated[str, typer.Option("--prompt-format", help="Prompt format: mmlu, plain or "
                                               "chatml-letter (--format names the data reader).")] = "mmlu",
    limit: Annotated[int | None, typer.Option(help="Score only the first N items.")] = None,
    cache: Annotated[Path | None, typer.Option(help="SQLite cache file (default: $PFUNGST_CACHE or "
                                               "~/.cache/pfungst/cache.sqlite); a rerun resumes from it.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write per-item results here: .jsonl or "
                                             ".parquet.")] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the summary as JSON.")] = None,
    seed: Annotated[int, typer.Option(help="Seed (sampled generation).")] = 0,
    threads: Annotated[int | None, typer.Option(help="CPU threads for a llama.cpp model (default: its "
                                                "choice).")] = None,
    chunk_size: Annotated[int, typer.Option(help="Items per batch sent to the model and committed to the "
                                            "cache.")] = 16,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Score a benchmark with a language model: accuracy with its Wilson interval against chance, per-item results."""
    with _user_errors():
        config = ScoreConfig(rule=scoring, format=prompt_format, limit=limit, cache=cache or True,
                             chunk_size=chunk_size, seed=seed, model_options={"n_threads": threads} if threads else {})
        config.resolve()  # before reading data: a typo should not cost a load
        _check_suffix(out)
        benchmark = _load(data, format, map, on_error, strict)
        with _progress_bar(quiet) as report:
            result = score_benchmark(benchmark, model, config, progress=report)
        render_score(result, console)
        _write_score(result, out, json_path)


def _check_suffix(out: Path | None) -> None:
    if out is not None and out.suffix.lower() not in (".jsonl", ".parquet"):
        raise ConfigError(f"--out {out}: the suffix must be .jsonl or .parquet, not {out.suffix!r}")


def _write_score(result: ScoreResult, out: Path | None, json_path: Path | None) -> None:
    if out:
        console.print(f"wrote {escape(str(result.save_items(out)))}")
    if json_path:
        console.print(f"wrote {escape(str(result.save_json(json_path)))}")


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
