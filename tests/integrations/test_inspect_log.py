"""Hostile inspect logs: decompression bombs, corrupt members and deep JSON are user errors naming file and member.

The ``.eval`` archives are built here as inspect writes them (a zip whose members are Zstandard, method 93), so the
tests need ``zstandard`` but not inspect_ai.
"""

from __future__ import annotations

import json
import re
import struct
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.errors import ReaderError
from pfungst.integrations.inspect_log import read_inspect_log

zstandard = pytest.importorskip("zstandard")

HEADER = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "dataset": {"name": "d"}}}
SAMPLE = {"id": "q1", "epoch": 1, "scores": {"choice": {"value": "C"}}}


def write_eval(path: Path, members: dict[str, bytes]) -> Path:
    """A zip whose members are the Zstandard frames given (compression method 93, as inspect writes)."""
    compressed = {name: zstandard.ZstdCompressor(level=19).compress(data) for name, data in members.items()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in compressed.items():
            archive.writestr(name, data)
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        directory = archive.start_dir
    for info in infos:  # the local header: method at 8, uncompressed size at 22
        struct.pack_into("<H", raw, info.header_offset + 8, 93)
        struct.pack_into("<I", raw, info.header_offset + 22, min(len(members[info.filename]), 2**32 - 1))
    offset = directory
    for info in infos:  # the central directory: method at 10, uncompressed size at 24
        struct.pack_into("<H", raw, offset + 10, 93)
        struct.pack_into("<I", raw, offset + 24, min(len(members[info.filename]), 2**32 - 1))
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", raw, offset + 28)
        offset += 46 + name_length + extra_length + comment_length
    path.write_bytes(bytes(raw))
    return path


def _log(path: Path, sample: bytes) -> Path:
    return write_eval(path, {"header.json": json.dumps(HEADER).encode(), "samples/q1_epoch_1.json": sample})


def test_a_member_inflating_past_the_cap_is_refused_as_a_bomb(tmp_path: Path) -> None:
    path = _log(tmp_path / "bomb.eval", b" " * (4 * 1024 * 1024) + json.dumps(SAMPLE).encode())
    assert path.stat().st_size < 4096
    log = read_inspect_log(path, max_member_bytes=8 * 1024 * 1024)  # within the cap it reads
    assert (log.model, dict(log.correct)) == ("m", {"q1": True})
    with pytest.raises(
        ReaderError, match=r"bomb\.eval: member samples/q1_epoch_1\.json: inflates past 1,048,576 bytes"
    ):
        read_inspect_log(path, max_member_bytes=1024 * 1024)


def test_a_member_inflating_a_thousandfold_past_16_mib_is_refused_by_default(tmp_path: Path) -> None:
    path = _log(tmp_path / "bomb.eval", b" " * (20 * 1024 * 1024) + json.dumps(SAMPLE).encode())
    with pytest.raises(ReaderError, match=r"inflates past 16,777,216 bytes from \d+ compressed: refusing \(a decomp"):
        read_inspect_log(path)


def test_a_corrupt_zstd_member_names_the_file_and_the_member(tmp_path: Path) -> None:
    path = _log(tmp_path / "log.eval", json.dumps(SAMPLE).encode() * 50)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("samples/q1_epoch_1.json")
    raw = path.read_bytes()
    start = info.header_offset + 30 + len(info.filename) + 8  # 8 bytes into the frame: past its magic number
    path.write_bytes(raw[:start] + bytes(b ^ 0xFF for b in raw[start : start + 40]) + raw[start + 40 :])
    with pytest.raises(ReaderError, match=r"log\.eval: field 'samples/q1_epoch_1\.json': corrupt"):
        read_inspect_log(path)


def test_a_member_nested_a_hundred_thousand_deep_is_refused_with_the_cap(tmp_path: Path) -> None:
    path = _log(tmp_path / "deep.eval", b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ReaderError, match=r"deep\.eval: member samples/q1_epoch_1\.json:1: .*nested deeper than 200"):
        read_inspect_log(path)


def test_a_json_log_nested_too_deep_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text('{"version": 2, "status": "success", "samples": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ReaderError, match=r"log\.json:1: .*nested deeper than 200"):
        read_inspect_log(path)


@pytest.mark.parametrize(
    ("header", "field"),
    [({**HEADER, "eval": [1]}, "eval"), ({**HEADER, "results": {"scores": 3}}, "results.scores")],
)
def test_a_header_field_of_the_wrong_kind_is_named(tmp_path: Path, header: dict, field: str) -> None:
    members = {"header.json": json.dumps(header).encode(), "samples/q1_epoch_1.json": json.dumps(SAMPLE).encode()}
    with pytest.raises(ReaderError, match=rf"field '{field}': expected"):
        read_inspect_log(write_eval(tmp_path / "log.eval", members))


def test_the_command_line_exits_2_on_a_bomb_without_a_traceback(tmp_path: Path) -> None:
    path = _log(tmp_path / "bomb.eval", b" " * (20 * 1024 * 1024) + b"{}")
    result = CliRunner().invoke(app, ["inspect-log", str(path)])
    assert result.exit_code == 2, result.output
    assert "decompression bomb" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_members_each_within_their_limit_are_refused_past_the_archive_total(tmp_path: Path) -> None:
    padded = b" " * (1024 * 1024) + json.dumps(SAMPLE).encode()  # 1 MiB each, well within a member's limit
    members = {"header.json": json.dumps(HEADER).encode()}
    members |= {f"samples/q{i}_epoch_1.json": padded.replace(b'"q1"', f'"q{i}"'.encode()) for i in range(12)}
    path = write_eval(tmp_path / "many.eval", members)
    assert len(read_inspect_log(path, max_total_bytes=16 * 1024 * 1024).correct) == 12  # within the total it reads
    with pytest.raises(
        ReaderError,
        match=r"many\.eval: field 'samples/q\d+_epoch_1\.json': the archive's members inflate past "
        r"8,388,608 bytes in all: refusing",
    ):
        read_inspect_log(path, max_total_bytes=8 * 1024 * 1024)


def test_a_member_name_twice_in_one_archive_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "twice.eval"
    with zipfile.ZipFile(path, "w") as archive, pytest.warns(UserWarning, match="Duplicate name"):
        archive.writestr("header.json", json.dumps(HEADER))
        archive.writestr("samples/q1_epoch_1.json", json.dumps(SAMPLE))
        archive.writestr("samples/q1_epoch_1.json", json.dumps({**SAMPLE, "scores": {"choice": {"value": "I"}}}))
    with pytest.raises(
        ReaderError, match=r"twice\.eval: field 'samples/q1_epoch_1\.json': this member name occurs more than once"
    ):
        read_inspect_log(path)


def test_the_command_line_sets_the_inflate_limits_and_the_refusal_names_the_option(tmp_path: Path) -> None:
    padded = b" " * (2 * 1024 * 1024) + json.dumps(SAMPLE).encode()  # 2 MiB, within every default limit
    path = _log(tmp_path / "big.eval", padded)
    assert CliRunner().invoke(app, ["inspect-log", str(path)]).exit_code == 0
    total = CliRunner().invoke(app, ["inspect-log", str(path), "--max-total-mib", "1"])
    assert total.exit_code == 2, total.output
    assert "inflate past 1,048,576 bytes in all" in " ".join(total.output.split())
    assert "--max-total-mib" in total.output
    member = CliRunner().invoke(app, ["inspect-log", str(path), "--max-member-mib", "1"])
    assert member.exit_code == 2, member.output
    assert "inflates past 1,048,576 bytes" in " ".join(member.output.split())
    assert "--max-member-mib" in member.output


def _json_log(path: Path, samples: list[dict]) -> Path:
    path.write_text(json.dumps({**HEADER, "samples": samples}))
    return path


@pytest.mark.parametrize(
    ("samples", "args", "message"),
    [
        ([SAMPLE], ["--scorer", "nope"], r"log\.json: Unknown scorer of this log 'nope'\. Available: choice"),
        ([SAMPLE], ["--scorer", "choise"], r"Unknown scorer of this log 'choise'\. Did you mean: choice\?"),
        ([], [], r"log\.json: field 'samples': the log holds no samples \(its status is 'success'\)"),
        ([{**SAMPLE, "epoch": 2}], [], r"field 'scores': none of the 1 samples has a score of scorer 'choice' in ep"),
    ],
)
def test_a_scorer_or_a_log_with_nothing_to_read_exits_2_naming_it(
    tmp_path: Path, samples: list[dict], args: list[str], message: str
) -> None:
    path = _json_log(tmp_path / "log.json", samples)
    result = CliRunner().invoke(app, ["inspect-log", str(path), *args])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert re.search(message, text), text
    assert "0 samples" not in text and "Traceback" not in text
