"""``pfungst reliance`` reads a gzip-compressed audit (``.json.gz``) as ``pfungst report`` does: inflated through the
one bounded reader (:func:`pfungst.data.result_bytes.result_bytes`), so a decompression bomb is refused early with
an error naming the file."""

from __future__ import annotations

import gzip
import time
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst.data.result_bytes
from pfungst.cli import app
from pfungst.reliance.shortcut import read_audit
from tests.reliance.audit_files import TEMPLATE


def _zeros_gzipped(path: Path, megabytes: int) -> Path:
    """``megabytes`` MiB of zero bytes, gzip-compressed into ``path`` a MiB at a time (a few hundred KB on disk)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: the gzip container
    chunk = bytes(1024 * 1024)
    with path.open("wb") as handle:
        for _ in range(megabytes):
            handle.write(packer.compress(chunk))
        handle.write(packer.flush())
    return path


def test_a_gzipped_audit_reads_like_the_plain_one(tmp_path: Path) -> None:
    plain = tmp_path / "control.audit.json"
    plain.write_bytes(gzip.decompress(TEMPLATE.read_bytes()))
    assert repr(read_audit(TEMPLATE).verdict) == repr(read_audit(plain).verdict)
    assert read_audit(TEMPLATE).to_dict() == read_audit(plain).to_dict()


def test_a_gzip_bomb_given_as_an_audit_exits_2_fast_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pfungst.data.result_bytes, "MAX_INFLATED_BYTES", 64 * 1024 * 1024)  # 1 GiB by default
    bomb = _zeros_gzipped(tmp_path / "bomb.audit.json.gz", 200)
    assert bomb.stat().st_size < 1024 * 1024
    table = tmp_path / "outcomes.csv"
    table.write_text("model,dataset,item_id,correct\nm,d,q1,1\n")
    started = time.perf_counter()
    result = CliRunner().invoke(
        app, ["reliance", str(bomb), "--outcomes", str(table), "--json", str(tmp_path / "r.json")]
    )
    assert time.perf_counter() - started < 20
    message = " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"{bomb}: inflates past 67,108,864 bytes from {bomb.stat().st_size:,} compressed: refusing" in message
    assert not (tmp_path / "r.json").exists()


def test_a_200_mb_gzip_of_zeros_within_the_default_bound_is_refused_as_not_json_naming_the_file(
    tmp_path: Path,
) -> None:
    bomb = _zeros_gzipped(tmp_path / "zeros.audit.json.gz", 200)
    table = tmp_path / "outcomes.csv"
    table.write_text("model,dataset,item_id,correct\nm,d,q1,1\n")
    result = CliRunner().invoke(
        app, ["reliance", str(bomb), "--outcomes", str(table), "--json", str(tmp_path / "r.json")]
    )
    message = " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"{bomb}:1: field '(json)': malformed JSON" in message
