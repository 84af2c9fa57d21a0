"""MkDocs hook: fill the generated parts of the docs from the code at build time.

A page asks for a generated part with a marker comment on a line of its own:

- ``<!-- pfungst:registry NAME -->``: the entries of one registry (``readers``, ``layouts``, ``prompts``,
  ``perturbations``, ``rules``, ``models``, ``feature-sets``), as ``pfungst formats --what NAME`` lists them;
- ``<!-- pfungst:api PACKAGE -->``: one mkdocstrings block per public name of ``PACKAGE.__all__``, at the module
  that defines it (the packages re-export lazily, so the names are resolved here, not guessed);
- ``<!-- pfungst:schemas -->``: every kind of result file, its ``schema_version`` and the class that reads it;
- ``<!-- pfungst:cli -->``: every command with its arguments and options, as typer's own ``utils docs`` writes them.
"""

from __future__ import annotations

import functools
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


API_PACKAGES = ("data", "audit", "evaluate", "models", "stress", "reliance", "report", "stats")
"""The packages with a page each under reference/api/, in navigation order: a name exported by several is
documented on the first and linked from the others, so every object has one home."""


def _defined_at(package: types.ModuleType, name: str) -> str | None:
    """The dotted path where ``package.name`` is defined, or None for a value that is not a class or function."""
    value = getattr(package, name)
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return None
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", name)
    return f"{module}.{qualname}" if module else None


@functools.cache
def _homes() -> dict[str, str]:
    """Defined path -> the API page (``audit.md``) that documents it."""
    homes: dict[str, str] = {}
    for short in API_PACKAGES:
        package = importlib.import_module(f"pfungst.{short}")
        for name in package.__all__:
            path = _defined_at(package, name)
            if path is not None:
                homes.setdefault(path, f"{short}.md")
    return homes


def _block(path: str, name: str, package_name: str) -> str:
    alias = "" if path.endswith(f".{name}") else f"`{package_name}.{name}` is:\n\n"
    return f"{alias}::: {path}\n    options:\n      show_root_heading: true\n      heading_level: 3\n"


def _api(package_name: str) -> str:
    package = importlib.import_module(package_name)
    here = f"{package_name.removeprefix('pfungst.')}.md"
    blocks, values, elsewhere, packages = [], [], [], []
    for name in package.__all__:
        if name.startswith("__"):
            continue
        path = _defined_at(package, name)
        if isinstance(getattr(package, name), types.ModuleType):
            packages.append(f"[`{package_name}.{name}`]({name}.md)")  # a stage package: its own page
        elif path is None:
            values.append(name)
        elif package_name == "pfungst" and path.startswith("pfungst.errors."):
            elsewhere.append(f"[`{name}`](#{path})")  # the errors section of the same page
        elif _homes().get(path, here) != here:
            elsewhere.append(f"[`{name}`]({_homes()[path]}#{path})")
        else:
            blocks.append(_block(path, name, package_name))
    text = "\n".join(blocks)
    if elsewhere:
        text = f"Documented with their own package: {', '.join(elsewhere)}.\n\n" + text
    if values:
        listed = ", ".join(f"`{package_name}.{value}`" for value in values)
        text = f"Also exported (registries and constants): {listed}.\n\n" + text
    if packages:
        text = f"Packages, each with its page and an entry function of its own name: {', '.join(packages)}.\n\n" + text
    return text


def _schemas() -> str:
    from pfungst.results import RESULTS
    from pfungst.schema import SCHEMA_VERSIONS

    lines = ["| kind | `schema_version` | read back as |", "|---|---|---|"]
    blocks = []
    for kind, version in SCHEMA_VERSIONS.items():
        target = RESULTS.get(kind)
        if not isinstance(target, str):
            lines.append(f"| {kind} | `{version}` | a checked mapping |")
            continue
        path = target.replace(":", ".")
        home = _homes().get(path)
        if home is not None:
            lines.append(f"| {kind} | `{version}` | [`{path}`](api/{home}#{path}) |")
        else:
            lines.append(f"| {kind} | `{version}` | [`{path}`](#{path}) |")
            blocks.append(f"::: {path}\n    options:\n      show_root_heading: true\n      heading_level: 3\n")
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


def on_config(config: Any, **_: Any) -> Any:
    """Read a Google-style ``Example:`` section (the project's spelling) as examples, as ``Examples:`` is read."""
    from griffe import DocstringSectionKind

    try:  # griffe keeps its section names in a private table: griffe 2, then griffe 1
        from griffe._internal.docstrings import google
    except ImportError:
        from _griffe.docstrings import google  # type: ignore[no-redef]
    google._section_kind.setdefault("example", DocstringSectionKind.examples)
    return config


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each marker comment with the part it names."""
    return _MARKER.sub(lambda match: _PARTS[match.group(1)](match.group(2)), markdown)
