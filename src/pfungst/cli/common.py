"""What every command shares: the typer app, the two consoles, data options, error handling, the progress bar and
JSON output.

Results (tables, summaries, JSON) go to stdout, so ``pfungst score ... > result.txt`` keeps them; progress bars,
notices ("wrote ...") and errors go to stderr. With ``--json -`` the JSON is stdout and the tables move to stderr, so
stdout stays one valid JSON document.
"""

from __future__ import annotations

import enum
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

import pfungst
from pfungst.cli.closed_pipe import PipeConsole, silence
from pfungst.errors import ConfigError, PfungstError

__all__ = [
    "READ",
    "READ_WRITE",
    "WRITE",
    "WRITE_FOLDER",
    "DataArgument",
    "JsonOption",
    "PathRole",
    "QuietOption",
    "ReaderOption",
    "app",
    "check_suffix",
    "console",
    "progress_bar",
    "results_console",
    "stdout",
    "user_errors",
    "write_json",
]

app = typer.Typer(
    name="pfungst",
    help="Catch Clever Hans effects in multiple-choice LLM evaluation.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,  # locals may hold API keys
    add_completion=False,
)
console: Console = PipeConsole(stderr=True)
"""For people: progress, notices, warnings, errors."""
stdout: Console = PipeConsole()
"""For results: tables and summaries (unless ``--json -`` claims stdout); a closed pipe drops the rest quietly."""


class PathRole(enum.Enum):
    """What a command does with a path it is given, declared beside the option (``Annotated[Path, typer.Option(...),
    WRITE]``): every path parameter of every command carries one, and a test tries each written one against each
    input, so no output escapes :func:`~pfungst.path_checks.check_outputs`."""

    READ = "read"
    """An input: a file, or a folder whose files are read."""
    WRITE = "write"
    """An output file."""
    WRITE_FOLDER = "write folder"
    """An output folder, files are written into it."""
    READ_WRITE = "read and write"
    """Read and written in place (a cache): an output that must not be any other input."""


READ, WRITE, WRITE_FOLDER, READ_WRITE = PathRole.READ, PathRole.WRITE, PathRole.WRITE_FOLDER, PathRole.READ_WRITE

ReaderOption = Annotated[
    str | None,
    typer.Option("--reader", "-r", help="Reader name (see `pfungst formats`); detected when omitted."),
]
DataArgument = Annotated[Path, typer.Argument(help="Benchmark file or directory."), READ]
JsonOption = Annotated[Path | None, typer.Option("--json", help="Write the result as JSON ('-': stdout)."), WRITE]
QuietOption = Annotated[bool, typer.Option(help="No progress bar.")]


@contextmanager
def user_errors() -> Iterator[None]:
    """Print a user error as one message and exit 2; Ctrl-C exits 130; a closed standard output exits 0 quietly;
    warnings print as one line each.

    An ``EOFError`` (a truncated compressed file read by a library, a closed standard input) is a user error too.

    Every Python warning raised inside (pfungst's own, scikit-learn's) goes to the stderr console as
    ``warning: <message>``, without its source line, and each distinct message is printed once per command.
    """
    try:
        with _warnings_as_lines():
            yield
    except PfungstError as error:
        console.print(f"[bold red]error:[/bold red] {escape(str(error))}", soft_wrap=True)  # a --map line copies whole
        raise typer.Exit(2) from None
    except EOFError as error:  # click would print "Aborted!" and exit 1
        console.print(f"[bold red]error:[/bold red] {escape(_ended_early(error))}")
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        console.print("interrupted")
        raise typer.Exit(130) from None
    except BrokenPipeError:  # a plain write to a closed standard output (``--json - | head``): nothing more to say
        silence()
        raise typer.Exit(0) from None


def _ended_early(error: EOFError) -> str:
    """What a user reads for an ``EOFError`` no reader translated: an input (file or stream) ended early."""
    what = f" ({error})" if str(error) else ""
    return (
        f"an input ended before its end{what}: a truncated or corrupt (compressed) file, or standard input closed "
        "early. Check that the files given to the command are complete, e.g. download them again."
    )


@contextmanager
def _warnings_as_lines() -> Iterator[None]:
    seen: set[str] = set()

    def show(message: Warning | str, category: type[Warning], *args: object, **kwargs: object) -> None:
        text = " ".join(str(message).split())
        if text not in seen:
            seen.add(text)
            console.print(f"[yellow]warning:[/yellow] {escape(text)}", soft_wrap=True)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def results_console(json_path: Path | None) -> Console:
    """Where result tables go: stdout, or stderr when ``--json -`` writes the JSON to stdout."""
    return console if _is_stdout(json_path) else stdout


def write_json(json_path: Path | None, save: Callable[[Path], object], notice: bool = True) -> None:
    """Write a result's JSON with ``save(path)`` (the result's own writer): to ``json_path`` (with a notice on
    stderr unless ``notice`` is False), or, for ``-``, to stdout, byte for byte what the file would hold."""
    if json_path is None:
        return
    if not _is_stdout(json_path):
        save(json_path)
        if notice:
            console.print(f"wrote {escape(str(json_path))}")
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "result.json"
        save(path)
        typer.echo(path.read_text(encoding="utf-8"), nl=False)


def _is_stdout(path: Path | None) -> bool:
    return path is not None and str(path) == "-"


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
def progress_bar(quiet: bool, first_step: str = "starting") -> Iterator[Any]:
    """One progress bar on the stderr console (:class:`~pfungst.cli.progress_display.ProgressDisplay`), showing
    ``first_step`` until the first report; ``quiet`` disables it."""
    from pfungst.cli.progress_display import ProgressDisplay

    with ProgressDisplay(console, first_step=first_step, disable=quiet) as display:
        yield display


def check_suffix(out: Path | None, option: str = "--out") -> None:
    """Refuse a per-item file (``option``) whose suffix is neither ``.jsonl`` nor ``.parquet``."""
    if out is not None and out.suffix.lower() not in (".jsonl", ".parquet"):
        raise ConfigError(f"{option} {out}: the suffix must be .jsonl or .parquet, not {out.suffix!r}")
