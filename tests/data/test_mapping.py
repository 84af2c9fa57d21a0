"""A ``text_template`` is checked before the data is read: unbalanced braces and placeholders naming no column."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.errors import ConfigError, ReaderError

ROWS = '{"premise": "p", "hypothesis": "h", "label": "yes"}\n{"premise": "q", "hypothesis": "i", "label": "no"}\n'


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("Premise: {premise", r"expected '\}' before end of string"),
        ("Premise: premise}", r"Single '\}' encountered"),
        ("Premise: {}", r"the placeholder \{\} names no column"),
        ("Premise: {0}", r"the placeholder \{0\} names no column"),
        ("Premise: {premise.upper}", r"the placeholder \{premise\.upper\} names no column"),
        ("Premise: {premise!x}", r"it cannot be filled with text"),
        ("Premise: {premise:d}", r"it cannot be filled with text"),
    ],
)
def test_a_bad_template_is_a_config_error_naming_it(tmp_path: Path, template: str, reason: str) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(ROWS)
    with pytest.raises(ConfigError, match=r"--map text_template='Premise: .*': " + reason):
        pfungst.load(path, reader="jsonl", text_template=template, label="label")


def test_a_bad_template_is_refused_before_the_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text("{not json\n")
    with pytest.raises(ConfigError, match=r"text_template='\{premise': expected '\}'"):
        pfungst.load(path, reader="jsonl", text_template="{premise", label="label")


def test_a_template_placeholder_naming_a_missing_column_names_the_template(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(ROWS)
    with pytest.raises(
        ReaderError, match=r"pairs\.jsonl:1: field 'context': no column 'context' in the file \(text_template '"
    ):
        pfungst.load(path, reader="jsonl", text_template="{context}: {premise}", label="label")


def test_an_unbalanced_brace_on_the_command_line_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(ROWS)
    args = ["inspect", str(path), "--reader", "jsonl", "--map", "text_template={premise", "--map", "label=label"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "text_template='{premise': expected '}' before end of string" in " ".join(result.output.split())
