"""Output paths that need absurdly many folders created, or are too long for the system, are user errors (exit 2)
naming the option and the path, not a RecursionError or OSError with a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.errors import ConfigError
from pfungst.path_checks import check_outputs


def _items(folder: Path) -> Path:
    data = folder / "items.jsonl"
    data.write_text('{"question": "One?", "choices": ["a", "b"], "answer": 1}\n')
    return data


def test_an_output_needing_1200_nested_folders_exits_2_naming_the_option_and_creates_nothing(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["d"] * 1200) / "out.json"
    result = CliRunner().invoke(app, ["inspect", str(_items(tmp_path)), "--json", str(deep)])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert f"error: --json {str(tmp_path)[:20]}" in text and f"({len(str(deep))} characters)" in text
    assert "the path needs 1200 nested folders created; pfungst creates at most 100" in text
    assert not (tmp_path / "d").exists()


def test_an_output_path_too_long_for_the_system_is_a_config_error(tmp_path: Path) -> None:
    too_long = tmp_path / ("x" * 300) / "out.json"  # one name past the usual 255-byte limit
    with pytest.raises(ConfigError, match=r"--json .*: cannot create the folder .*\(File name too long\)"):
        check_outputs([], {"--json": too_long})
