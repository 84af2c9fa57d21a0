"""A gzip-compressed result file (``gzip audit.json``) reads like the plain one; a truncated, corrupt or bomb-like
one is a user error naming the file, and its JSON is still depth-bounded."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.data.result_bytes import result_bytes
from pfungst.errors import ReaderError
from pfungst.report.loading import load_result, read_result

runner = CliRunner()


def _summary(folder: Path) -> Path:
    data = folder / "items.jsonl"
    data.write_text('{"question": "One?", "choices": ["a", "b"], "answer": 1}\n')
    result = runner.invoke(app, ["inspect", str(data), "--json", str(folder / "summary.json")])
    assert result.exit_code == 0, result.output
    return folder / "summary.json"


def test_a_gzipped_result_renders_as_the_plain_one(tmp_path: Path) -> None:
    plain = _summary(tmp_path)
    packed = tmp_path / "summary.json.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert repr(read_result(packed)) == repr(read_result(plain))
    assert load_result(packed).sha256 != load_result(plain).sha256  # the hash is the file's as given
    result = runner.invoke(app, ["report", str(packed), "--out", str(tmp_path / "report.md")])
    assert result.exit_code == 0, result.output
    assert "items" in (tmp_path / "report.md").read_text()


def test_a_truncated_gzipped_result_exits_2_naming_the_file(tmp_path: Path) -> None:
    packed = tmp_path / "summary.json.gz"
    whole = gzip.compress(_summary(tmp_path).read_bytes())
    packed.write_bytes(whole[: len(whole) // 2])
    result = runner.invoke(app, ["report", str(packed), "--out", str(tmp_path / "report.md")])
    assert result.exit_code == 2, result.output
    assert "summary.json.gz: the gzip stream ends early: the file is truncated" in " ".join(result.output.split())


def test_a_gzipped_result_inflating_past_the_limit_is_refused(tmp_path: Path) -> None:
    packed = gzip.compress(b" " * (4 * 1024 * 1024) + b"{}")
    assert len(packed) < 8192
    with pytest.raises(ReaderError, match=r"bomb\.json\.gz: inflates past 1,048,576 bytes from [\d,]+ compressed"):
        result_bytes(Path("bomb.json.gz"), packed, max_bytes=1024 * 1024)


def test_a_gzipped_result_nested_too_deep_is_refused(tmp_path: Path) -> None:
    packed = tmp_path / "deep.json.gz"
    packed.write_bytes(
        gzip.compress(json.dumps({"kind": "audit"}).encode()[:-1] + b', "x": ' + b"[" * 500 + b"]" * 500 + b"}")
    )
    with pytest.raises(ReaderError, match=r"deep\.json\.gz.*nested deeper than 200 levels"):
        load_result(packed)
