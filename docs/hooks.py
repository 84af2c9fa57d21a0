"""MkDocs hook: fill the generated parts of the docs from the code at build time.

A page asks for a generated part with a marker comment on a line of its own:

- ``<!-- pfungst:registry NAME -->``: the entries of one registry (``readers``, ``prompts``, ``perturbations``,
  ``rules``, ``models``, ``feature-sets``), as ``pfungst formats --what NAME`` lists them;
- ``<!-- pfungst:api PACKAGE -->``: one mkdocstrings block per public name of ``PACKAGE.__all__``, at the module
  that defines it (the packages re-export lazily, so the names are resolved here, not guessed);
- ``<!-- pfungst:schemas -->``: every kind of result file, its ``schema_version`` and the class that reads it;
- ``<!-- pfungst:cli -->``: every command with its arguments and options, as typer's own ``utils docs`` writes them.
"""

from __future__ import annotations

import importlib
import inspect
import re
import types
from typing import Any

_MARKER = re.compile(r"^<!-- pfungst:(\w+)(?: ([\w.-]+))? -->$", re.M)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _registry(name: str) -> str:
    from pfungst.cli.data_commands import _LISTS

    rows = _LISTS[name]()
    lines = ["| name | what |", "|---|---|"]
    lines += [f"| `{_cell(entry)}` | {_cell(description)} |" for entry, description in rows]
    return "\n".join(lines)


def _defined_at(package: types.ModuleType, name: str) -> str | None:
    """The dotted path where ``package.name`` is defined, or None for a value that is not a class or function."""
    value = getattr(package, name)
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return None
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", name)
    return f"{module}.{qualname}" if module else None


def _api(package_name: str) -> str:
    package = importlib.import_module(package_name)
    blocks, values = [], []
    for name in package.__all__:
        if name.startswith("__"):
            continue
        path = _defined_at(package, name)
        if path is None:
            values.append(name)
            continue
        alias = "" if path.endswith(f".{name}") else f"`{package_name}.{name}` is:\n\n"
        blocks.append(f"{alias}::: {path}\n    options:\n      show_root_heading: true\n      heading_level: 3\n")
    text = "\n".join(blocks)
    if values:
        listed = ", ".join(f"`{package_name}.{value}`" for value in values)
        text = f"Also exported (registries and constants): {listed}.\n\n" + text
    return text


def _schemas() -> str:
    from pfungst.report.loading import RESULT_CLASSES
    from pfungst.schema import SCHEMA_VERSIONS

    lines = ["| kind | `schema_version` | read back as |", "|---|---|---|"]
    blocks = []
    for kind, version in SCHEMA_VERSIONS.items():
        target = RESULT_CLASSES.get(kind)
        shown = f"`{target.replace(':', '.')}`" if isinstance(target, str) else "a checked mapping"
        lines.append(f"| {kind} | `{version}` | {shown} |")
        if isinstance(target, str):
            blocks.append(
                f"### {kind}\n\n`{version}`\n\n::: {target.replace(':', '.')}\n"
                "    options:\n      show_root_heading: false\n      members: false\n      heading_level: 4\n"
            )
    return "\n".join(lines) + "\n\n" + "\n".join(blocks)


def _cli() -> str:
    import typer
    import typer._click as click  # typer carries its own click
    from typer.cli import get_docs_for_click

    from pfungst.cli import app

    command = typer.main.get_command(app)
    text = get_docs_for_click(obj=command, ctx=click.Context(command, info_name="pfungst"), name="pfungst")
    return re.sub(r"^#", "##", text, flags=re.M)  # the page has its own title


_PARTS = {"registry": _registry, "api": _api, "schemas": lambda _: _schemas(), "cli": lambda _: _cli()}


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each marker comment with the part it names."""
    return _MARKER.sub(lambda match: _PARTS[match.group(1)](match.group(2)), markdown)
