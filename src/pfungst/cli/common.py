"""What every command shares: the typer app, the stderr console, data options, error handling, the progress bar."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

import pfungst
from pfungst.data.builder import OnError
from pfungst.errors import ConfigError, PfungstError

__all__ = [
    "FormatOption",
    "MapOption",
    "OnErrorOption",
    "StrictOption",
    "app",
    "check_suffix",
    "console",
    "load_benchmark",
    "parse_mapping",
    "progress_bar",
    "user_errors",
]

app = typer.Typer(
    name="pfungst",
    help="Catch Clever Hans effects in multiple-choice LLM evaluation.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,  # locals may hold API keys
    add_completion=False,
)
console = Console(stderr=True)

FormatOption = Annotated[
    str | None, typer.Option("--format", "-f", help="Reader name (see `pfungst formats`); detected when omitted.")
]
MapOption = Annotated[
    list[str] | None,
    typer.Option(
        "--map",
        "-m",
        help="Reader setting KEY=VALUE, repeatable, e.g. --map question=stem --map option_columns=A,B,C,D",
    ),
]
OnErrorOption = Annotated[
    str, typer.Option("--on-error", help="raise: stop at the first malformed row; skip: reject it, count it, go on.")
]
StrictOption = Annotated[bool, typer.Option("--strict", help="Also stop on warnings (duplicate options).")]


@contextmanager
def user_errors() -> Iterator[None]:
    """Print a user error as one message and exit 2; Ctrl-C exits 130."""
    try:
        yield
    except PfungstError as error:
        console.print(f"[bold red]error:[/bold red] {escape(str(error))}")
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        console.print("interrupted")
        raise typer.Exit(130) from None


def parse_mapping(pairs: list[str] | None) -> dict[str, Any]:
    mapping: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--map {pair!r}: expected KEY=VALUE, e.g. --map question=stem")
        mapping[key.strip()] = value
    return mapping


def load_benchmark(
    data: Path, format: str | None, maps: list[str] | None, on_error: str, strict: bool
) -> pfungst.Benchmark:
    """Load ``data`` with the common data options (``--format``, ``--map``, ``--on-error``, ``--strict``)."""
    if on_error not in ("raise", "skip"):
        raise ConfigError(f"--on-error must be 'raise' or 'skip', not {on_error!r}")
    mode: OnError = "skip" if on_error == "skip" else "raise"
    return pfungst.load(data, format, on_error=mode, strict=strict, **parse_mapping(maps))


def _version(value: bool) -> None:
    if value:
        typer.echo(f"pfungst {pfungst.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Catch Clever Hans effects in multiple-choice LLM evaluation."""


@contextmanager
def progress_bar(quiet: bool) -> Iterator[Any]:
    """One progress bar on the stderr console; ``quiet`` disables it."""
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=quiet, transient=True) as progress:
        task = progress.add_task("starting", total=None)

        def report(step: str, done: int, total: int) -> None:
            progress.update(task, description=escape(step), completed=done, total=total)

        yield report


def check_suffix(out: Path | None) -> None:
    if out is not None and out.suffix.lower() not in (".jsonl", ".parquet"):
        raise ConfigError(f"--out {out}: the suffix must be .jsonl or .parquet, not {out.suffix!r}")
