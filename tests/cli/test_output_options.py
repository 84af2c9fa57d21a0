"""Every output option of every command, pointed at every input it takes, is refused before any work.

The options are not listed here: they are read from the commands themselves. Each path parameter declares what the
command does with it (:class:`~pfungst.cli.common.PathRole`: read, write a file, write into a folder, read and write
in place), a test fails on a path parameter without a role, and every option that writes is tried against each of
its command's inputs (files beneath an input folder included), by its own name, through a symbolic link and
through a hard link: exit 2, a message naming the option and the path, the input's bytes unchanged. A new output
option is tried as soon as it exists; a new command that writes needs an entry in ``RECIPES`` (a test says so).
Commands that ask a model are given a model file that does not exist, so a check that came too late fails on the
model instead of on the path.
"""

from __future__ import annotations

import os
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.models import ParameterInfo
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.cli.common import PathRole

runner = CliRunner()

ITEMS = (
    '{"question": "One?", "choices": ["a", "b"], "answer": 1}\n'
    '{"question": "Two?", "choices": ["c", "d"], "answer": 0}\n'
    '{"question": "Three?", "choices": ["e", "f", "g"], "answer": 2}\n'
)
NO_MODEL = "missing-model.gguf"
WRITTEN = (PathRole.WRITE, PathRole.WRITE_FOLDER, PathRole.READ_WRITE)


@dataclass(frozen=True)
class PathParameter:
    """One path parameter of one command: its command words, option name (or argument name) and role."""

    command: tuple[str, ...]
    name: str
    role: PathRole | None


def _callbacks(typer_app: typer.Typer, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for info in typer_app.registered_commands:
        name = info.name or info.callback.__name__.replace("_", "-")  # type: ignore[union-attr]
        yield (*prefix, name), info.callback
    for group in typer_app.registered_groups:
        assert group.typer_instance is not None and group.name is not None
        yield from _callbacks(group.typer_instance, (*prefix, group.name))


def _is_path(hint: Any) -> bool:
    if hint is Path:
        return True
    return any(_is_path(arg) for arg in typing.get_args(hint) if arg is not type(None))


def _click_command(words: tuple[str, ...]) -> Any:
    """The command as typer built it (click's, or the copy of click newer typer versions carry)."""
    command: Any = typer.main.get_command(app)
    for word in words:
        command = command.commands[word]
    return command


def path_parameters() -> list[PathParameter]:
    """Every parameter of every command whose type holds a ``Path``, with the role it declares (or None)."""
    found = []
    for words, callback in _callbacks(app):
        hints = typing.get_type_hints(callback, include_extras=True)
        names = {p.name: p for p in _click_command(words).params}
        for name, hint in hints.items():
            if name == "return" or typing.get_origin(hint) is not typing.Annotated:
                continue
            base, *extras = typing.get_args(hint)
            if not _is_path(base) or not any(isinstance(extra, ParameterInfo) for extra in extras):
                continue
            roles = [extra for extra in extras if isinstance(extra, PathRole)]
            parameter = names[name]
            shown = parameter.opts[0] if parameter.param_type_name == "option" else name.upper()
            found.append(PathParameter(words, shown, roles[0] if len(roles) == 1 else None))
    return found


PARAMETERS = path_parameters()


def _data(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "items.jsonl"
    path.write_text(ITEMS)
    return path


def _file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@dataclass(frozen=True)
class Recipe:
    """How to start a command on tiny inputs: its arguments and the inputs (files and folders) they name."""

    words: tuple[str, ...]
    build: Callable[[Path], tuple[list[str], list[Path]]]
    """folder -> (arguments after the command words, the inputs: files, and folders with files beneath)."""
    unused: frozenset[str] = frozenset()
    """Output options this way of running the command does not use (another recipe of the command tries them)."""


def _inspect(root: Path) -> tuple[list[str], list[Path]]:
    data = _data(root / "in")
    return [str(data), "--reader", "jsonl"], [data]


def _suite(root: Path) -> tuple[list[str], list[Path]]:
    data = _data(root / "suite")
    return [str(data.parent), "--out", str(root / "suite-out")], [data.parent, data]


def _score(root: Path) -> tuple[list[str], list[Path]]:
    data, cache = _data(root / "in"), _file(root / "in" / "cache.sqlite", "not touched")
    return [str(data), "--reader", "jsonl", "--model", NO_MODEL, "--cache", str(cache)], [data, cache]


def _stress(root: Path) -> tuple[list[str], list[Path]]:
    (args, inputs), instructions = _score(root), _file(root / "in" / "instructions.txt", "Answer.\n")
    return [*args, "-p", f"instructions:file={instructions}"], [*inputs, instructions]


def _from_logs(root: Path) -> tuple[list[str], list[Path]]:
    samples = _file(root / "logs" / "model" / "samples_pfungst_x_identity_2025-01-01T00-00-00.jsonl", "{}\n")
    return ["--from-logs", str(root / "logs")], [root / "logs", samples]


def _export(root: Path) -> tuple[list[str], list[Path]]:
    data = _data(root / "in")
    return [str(data), "--reader", "jsonl", "--out", str(root / "tasks")], [data]


def _inspect_log(root: Path) -> tuple[list[str], list[Path]]:
    log = _file(root / "in" / "run.eval", "not touched")
    return [str(log)], [log]


def _reliance(root: Path) -> tuple[list[str], list[Path]]:
    audit = _file(root / "in" / "audit.json", "{}\n")
    outcomes = _file(root / "in" / "outcomes.csv", "model,item_id,correct\nm,q1,1\n")
    families = _file(root / "in" / "families.csv", "model,family\nm,f\n")
    stress = _file(root / "in" / "stress.json", "{}\n")
    args = [str(audit), "--outcomes", str(outcomes), "--families", str(families), "--shortcut-stress", str(stress)]
    return args, [audit, outcomes, families, stress]


def _validity(root: Path) -> tuple[list[str], list[Path]]:
    outcomes = _file(root / "in" / "outcomes.csv", "model,item_id,correct\nm,q1,1\n")
    return ["--outcomes", str(outcomes)], [outcomes]


def _report(root: Path) -> tuple[list[str], list[Path]]:
    result = _file(root / "in" / "summary.json", "{}\n")
    return [str(result), "--out", str(root / "report.html")], [result]


RECIPES = [
    Recipe(("inspect",), _inspect),
    Recipe(("audit",), _inspect),
    Recipe(("suite",), _suite),
    Recipe(("score",), _score),
    Recipe(("stress",), _stress),
    Recipe(("stress",), _from_logs, unused=frozenset({"--cache"})),  # lm-eval asked the model: no cache
    Recipe(("export", "lm-eval"), _export),
    Recipe(("inspect-log",), _inspect_log),
    Recipe(("reliance",), _reliance),
    Recipe(("validity",), _validity),
    Recipe(("report",), _report),
    Recipe(("demo",), lambda root: ([], [])),  # reads nothing: its --out is only checked as a folder
]


def _cases() -> Iterator[Any]:
    for index, recipe in enumerate(RECIPES):
        for parameter in PARAMETERS:
            if parameter.command == recipe.words and parameter.role in WRITTEN and parameter.name not in recipe.unused:
                yield pytest.param(index, parameter.name, id=f"{' '.join(recipe.words)}#{index} {parameter.name}")


def test_every_path_parameter_declares_what_the_command_does_with_it() -> None:
    assert len({p.command for p in PARAMETERS}) >= 10  # the introspection found the commands
    assert [p for p in PARAMETERS if p.role is None] == []


def test_every_command_that_writes_has_a_recipe_and_every_output_option_is_tried() -> None:
    writing = {(p.command, p.name) for p in PARAMETERS if p.role in WRITTEN}
    tried = {(RECIPES[case.values[0]].words, case.values[1]) for case in _cases()}
    assert writing - tried == set()
    assert {("audit",), ("suite",), ("score",), ("stress",), ("export", "lm-eval"), ("report",)} <= {
        command for command, _ in writing
    }


def _said(output: str) -> str:
    return "".join(output.split())


def _aliases(target: Path, links: Path) -> Iterator[Path]:
    """``target`` by its own name, through a symbolic link, and (a file) through a hard link."""
    yield target
    links.mkdir(exist_ok=True)
    symbolic = links / f"symbolic-{target.name}"
    symbolic.symlink_to(target)
    yield symbolic
    if target.is_file():
        hard = links / f"hard-{target.name}"
        os.link(target, hard)
        yield hard


def _snapshot(inputs: list[Path]) -> dict[Path, bytes | None]:
    files = [p for path in inputs for p in ([path] if path.is_file() else sorted(path.rglob("*")))]
    return {path: path.read_bytes() if path.is_file() else None for path in files}


@pytest.mark.parametrize(("recipe_index", "option"), list(_cases()))
def test_an_output_option_pointed_at_an_input_is_refused_before_any_work(
    tmp_path: Path, recipe_index: int, option: str
) -> None:
    recipe = RECIPES[recipe_index]
    args, inputs = recipe.build(tmp_path)
    before = _snapshot(inputs)
    own = Path(args[args.index(option) + 1]) if option in args else None  # --cache: its own file is no clash
    for number, target in enumerate(p for p in inputs if p != own):
        for alias in _aliases(target, tmp_path / f"links{number}"):
            result = runner.invoke(app, [*recipe.words, *args, option, str(alias)])
            assert result.exit_code == 2, (alias, result.output)
            assert "Traceback" not in result.output
            assert _said(f"{option} {alias}:") in _said(result.output), result.output
            assert _snapshot(inputs) == before
