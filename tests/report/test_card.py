"""Benchmark cards (``audit --card``, ``suite --card``): text from the data is shown as text, never as markup.

A benchmark file may be named anything a file system allows; its name reaches the card as the benchmark's name,
its source and the command that reproduces the run. Rendered by a CommonMark renderer that passes HTML through
(as README viewers do), the card must hold no element the data made.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from pfungst.audit import AuditConfig, audit
from pfungst.cli import app
from pfungst.data.synthetic import make_synthetic
from pfungst.report.card import render_card
from pfungst.serialization import write_jsonl

runner = CliRunner()

QUICK = ["--n-bootstrap", "20", "--n-permutations", "10", "--n-repeats", "1", "--n-splits", "2", "--quiet"]
SETS = ["--feature-set", "options", "--feature-set", "options_no_position"]
PAYLOAD = "<img src=x onerror=alert(1)>"
BREAKOUT = "```\n<script>alert(2)</script>"
"""A name that would close a three-backtick fence and start raw HTML on the next line."""


def _benchmark(folder: Path, name: str) -> Path:
    items = make_synthetic("gold-position", 60, seed=0)
    rows = [{"question": i.text, "choices": list(i.options), "answer": i.gold} for i in items]
    return write_jsonl(folder / f"{name}.jsonl", rows)


def _outside_code(card: str) -> str:
    """The card without its fenced code blocks (whose text is shown as typed)."""
    return re.sub(r"^(`{3,})[^\n]*\n.*?^\1\s*$", "", card, flags=re.MULTILINE | re.DOTALL)


def _assert_inert(card: str) -> None:
    page = MarkdownIt("commonmark").render(card)  # HTML passes through, as on GitHub before sanitising
    assert "<img" not in page and "<script" not in page, page
    assert PAYLOAD not in _outside_code(card) and "<script" not in _outside_code(card)


def test_an_audit_card_shows_a_hostile_file_name_as_text(tmp_path: Path) -> None:
    data = _benchmark(tmp_path, PAYLOAD)
    card = tmp_path / "card.md"
    result = runner.invoke(app, ["audit", str(data), *QUICK, *SETS, "--card", str(card)])
    assert result.exit_code == 0, result.output
    text = card.read_text()
    _assert_inert(text)
    assert "&lt;img src=x onerror=alert(1)&gt;" in text  # named, as text
    assert str(data) in text.split("```bash", 1)[1]  # the reproduce command still names the very file


def test_a_suite_card_shows_hostile_benchmark_names_as_text(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    _benchmark(folder, PAYLOAD)
    card = tmp_path / "card.md"
    result = runner.invoke(
        app, ["suite", str(folder), "--out", str(tmp_path / "out"), *QUICK, *SETS, "--card", str(card)]
    )
    assert result.exit_code == 0, result.output
    text = card.read_text()
    _assert_inert(text)
    assert "| 1 | &lt;img src=x onerror=alert(1)&gt;.jsonl |" in text


@pytest.mark.parametrize("command", ["audit", "suite"])
def test_the_reproduce_fence_outlasts_backticks_in_a_file_name(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "suite"
    data = _benchmark(folder, BREAKOUT)
    card = tmp_path / "card.md"
    where = [str(data)] if command == "audit" else [str(folder), "--out", str(tmp_path / "out")]
    result = runner.invoke(app, [command, *where, *QUICK, *SETS, "--card", str(card)])
    assert result.exit_code == 0, result.output
    _assert_inert(card.read_text())


def test_a_card_from_the_python_api_reproduces_every_setting_that_moves_the_verdict(tmp_path: Path) -> None:
    config = AuditConfig(
        feature_sets=("options",), n_bootstrap=20, n_permutations=10, n_repeats=1, n_splits=2, n_refits=5, seed=3
    )
    card = render_card(audit(make_synthetic("gold-position", 60, seed=0), config))
    command = next(line for line in card.splitlines() if line.startswith("pfungst audit"))
    for option in ("--seed 3", "--n-splits 2", "--n-repeats 1", "--n-bootstrap 20", "--n-permutations 10"):
        assert option in command
    assert "--n-refits 5" in command
