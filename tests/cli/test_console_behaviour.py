"""How the command line talks to people under stress (issue 15): Python warnings as one line each, once."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app

runner = CliRunner()


def _items(folder: Path) -> Path:
    data = folder / "items.jsonl"
    data.write_text('{"question": "One?", "choices": ["a", "b"], "answer": 1}\n')
    return data


def test_warnings_print_as_one_line_each_and_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warning raised twice from two places (as scikit-learn does per fold) prints once, without a source line;
    Python's own display printed each with its file, category and source line."""
    load = pfungst.load

    def noisy_load(*args: Any, **kwargs: Any) -> pfungst.Benchmark:
        warnings.warn("The least populated class in y has only 1 members", UserWarning, stacklevel=1)
        warnings.warn("The least populated class in y has only 1 members", UserWarning, stacklevel=1)
        warnings.warn("another\n  message", RuntimeWarning, stacklevel=1)
        return load(*args, **kwargs)

    monkeypatch.setattr(pfungst, "load", noisy_load)
    result = runner.invoke(app, ["inspect", str(_items(tmp_path))])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines.count("warning: The least populated class in y has only 1 members") == 1
    assert "warning: another message" in lines
    assert "UserWarning" not in result.stderr
    assert "warnings.warn" not in result.stderr
    assert not any(line.startswith("warning:") for line in result.stdout.splitlines())


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)


def test_ctrl_c_while_the_commands_load_exits_130_with_one_line() -> None:
    """Issue 15: a Ctrl-C in the first seconds (scipy, scikit-learn, pandas loading) printed a traceback. The
    interrupt is simulated deterministically: importing the commands' common module raises KeyboardInterrupt."""
    code = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'pfungst.cli.common':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "sys.argv = ['pfungst', '--version']\n"
        "from pfungst.cli import main\n"
        "main()\n"
    )
    finished = _python(code)
    assert finished.returncode == 130, finished.stderr
    assert finished.stderr == "interrupted\n"


def test_importing_the_command_line_loads_no_heavy_library() -> None:
    """``pfungst --version`` and ``--help`` should not wait for scipy, scikit-learn, pandas or jinja2 to load."""
    heavy = ("scipy", "sklearn", "pandas", "jinja2")
    finished = _python(f"import sys, pfungst, pfungst.cli; print([m for m in {heavy!r} if m in sys.modules])")
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == "[]"
