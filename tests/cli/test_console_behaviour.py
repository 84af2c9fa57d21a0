"""How the command line talks to people under stress (issue 15): Python warnings as one line each, once."""

from __future__ import annotations

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
