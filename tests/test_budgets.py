"""Size budgets from STYLE.md: no module over 400 lines, no function over 50 lines (docstring excluded)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "pfungst"
MODULE_LINES = 400
FUNCTION_LINES = 50


def _docstring_lines(node: ast.AST) -> int:
    """Return how many lines the docstring of a function node spans (0 when it has none)."""
    body = getattr(node, "body", [])
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return (first.end_lineno or first.lineno) - first.lineno + 1
    return 0


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """Return (name, first line, length) for every function, measured from `def` to its end minus the docstring."""
    lengths = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            lengths.append((node.name, node.lineno, end - node.lineno + 1 - _docstring_lines(node)))
    return lengths


def _modules() -> list[Path]:
    """Every module of the package."""
    return sorted(SOURCE.rglob("*.py"))


def test_source_tree_is_found() -> None:
    assert len(_modules()) > 20


def test_no_module_over_budget() -> None:
    offenders = []
    for path in _modules():
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > MODULE_LINES:
            offenders.append(f"{path.relative_to(SOURCE)}: {count} lines")
    assert not offenders, f"modules over {MODULE_LINES} lines:\n" + "\n".join(offenders)


def test_no_function_over_budget() -> None:
    offenders = []
    for path in _modules():
        for name, line, length in function_lengths(path.read_text(encoding="utf-8")):
            if length > FUNCTION_LINES:
                offenders.append(f"{path.relative_to(SOURCE)}:{line} {name}: {length} lines")
    assert not offenders, f"functions over {FUNCTION_LINES} lines (docstring excluded):\n" + "\n".join(offenders)


@pytest.mark.parametrize(("body_lines", "over"), [(49, False), (50, True)])
def test_measurement_catches_a_long_function(body_lines: int, over: bool) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines))
    source = f'def long():\n    """A docstring\n\n    over three lines."""\n{body}'
    [(name, line, length)] = function_lengths(source)
    assert (name, line, length) == ("long", 1, body_lines + 1)
    assert (length > FUNCTION_LINES) is over
