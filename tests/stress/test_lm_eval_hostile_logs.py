"""lm-eval samples files that were not written for an export, or were damaged: each is a ReaderError naming the file,
the line and the field, and ``pfungst stress --from-logs`` exits 2 without a traceback."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.errors import ReaderError
from pfungst.stress import StressConfig
from pfungst.stress.lm_eval import export_lm_eval, stress_from_logs
from tests.stress.test_lm_eval_round_trip import _benchmark, _score, run_like_lm_eval


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """lm-eval's output folder for an export of the identity pass (one samples file, twelve lines)."""
    folder = tmp_path_factory.mktemp("lm-eval")
    export_lm_eval(_benchmark(), folder / "tasks", StressConfig(perturbations=(), rules=("letter",), n_bootstrap=50))
    run_like_lm_eval(folder / "tasks", folder / "out", _score)
    return folder / "out"


def _changed(logged: Path, tmp_path: Path, change: Callable[[dict[str, Any]], Any]) -> Path:
    """A copy of the logs whose second line is ``change``d (a function of the parsed line, returning the new line:
    a dict, or the line's text)."""
    out = tmp_path / "out"
    shutil.copytree(logged, out)
    samples = next(out.rglob("samples_*.jsonl"))
    lines = samples.read_text().splitlines()
    new = change(json.loads(lines[1]))
    lines[1] = new if isinstance(new, str) else json.dumps(new)
    samples.write_text("\n".join(lines) + "\n")
    return out


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(line: dict[str, Any]) -> dict[str, Any]:
        *parents, last = path.split(".")
        node = line
        for key in parents:
            node = node[key]
        node[last] = value
        return line

    return change


HOSTILE = [
    (lambda line: "[" * 100_000 + "]" * 100_000, r"jsonl:2: .*nested deeper than 200 levels"),
    (_set("doc.item_id", 7), r"jsonl:2: field 'doc\.item_id': expected a string, found int"),
    (_set("doc.options", [1, 2]), r"jsonl:2: field 'doc\.options': expected a list of strings"),
    (_set("doc.variants", ["a", "b"]), r"jsonl:2: field 'doc\.rules': expected one rule per variant"),
    (_set("resps", [{"a": 1}] * 8), r"jsonl:2: field 'resps': not \[\[log-likelihood, is_greedy\]\]"),
    (_set("resps", [[["nan", "False"]]] * 8), r"jsonl:2: field 'resps': choice 0 has log-likelihood nan"),
    (_set("arguments", {f"gen_args_{i}": 3 for i in range(8)}), r"jsonl:2: field 'arguments': expected an object"),
]


@pytest.mark.parametrize(("change", "message"), HOSTILE)
def test_a_damaged_line_is_named_by_file_line_and_field(
    logged: Path, tmp_path: Path, change: Callable[[dict[str, Any]], Any], message: str
) -> None:
    with pytest.raises(ReaderError, match=message):
        stress_from_logs(_changed(logged, tmp_path, change))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ("[1, 2]", r"jsonl:1: field 'doc\.settings': expected a JSON object"),
        ('{"schema": "pfungst.lm-eval-plan/1"}', r"jsonl:1: field 'doc\.settings': not the settings of an export"),
        ("[" * 5000 + "]" * 5000, r"jsonl:1: field 'doc\.settings': .*nested deeper than 200"),
    ],
)
def test_settings_that_are_not_an_exports_are_named(logged: Path, tmp_path: Path, settings: str, message: str) -> None:
    out = tmp_path / "out"
    shutil.copytree(logged, out)
    samples = next(out.rglob("samples_*.jsonl"))
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    for line in lines:
        line["doc"]["settings"] = settings
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(ReaderError, match=message):
        stress_from_logs(out)


def test_the_command_line_exits_2_on_deep_json_naming_the_line(logged: Path, tmp_path: Path) -> None:
    out = _changed(logged, tmp_path, lambda line: "[" * 100_000 + "]" * 100_000)
    result = CliRunner().invoke(app, ["stress", "--from-logs", str(out)])
    assert result.exit_code == 2, result.output
    assert ".jsonl:2:" in result.output and "Traceback" not in result.output


def test_stress_outcome_lines_nested_too_deep_are_a_user_error(tmp_path: Path) -> None:
    from pfungst.errors import ConfigError
    from pfungst.stress.stress_result import read_outcomes

    path = tmp_path / "items.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ConfigError, match=r"items\.jsonl:1: not an outcome line \(nested deeper than 200 levels"):
        read_outcomes(path)
