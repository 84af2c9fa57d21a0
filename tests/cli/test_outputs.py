"""Output paths on the command line: an input is never overwritten and a bad path costs no work (issue 15).

Each refused case exits 2 with one message that names the option and the path, and leaves the input's bytes as
they were. Commands that ask a model are given a model file that does not exist, so a check that came too late
would fail on the model instead of on the path (and no real model ever runs here).
"""

from __future__ import annotations

import gzip
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

import pfungst
import pfungst.serialization
from pfungst.audit.fixing import fix
from pfungst.cli import app
from pfungst.errors import ConfigError

runner = CliRunner()

ITEMS = (
    '{"question": "One?", "choices": ["a", "b"], "answer": 1}\n'
    '{"question": "Two?", "choices": ["c", "d"], "answer": 0}\n'
    '{"question": "Three?", "choices": ["e", "f", "g"], "answer": 2}\n'
)
NO_MODEL = "missing-model.gguf"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text(ITEMS)
    return path


@pytest.fixture
def summary(tmp_path: Path, data: Path) -> Path:
    """A result file (``inspect --json``) to give ``report`` and ``reliance``."""
    path = tmp_path / "summary.json"
    result = runner.invoke(app, ["inspect", str(data), "--reader", "jsonl", "--json", str(path)])
    assert result.exit_code == 0, result.output
    return path


def _said(result: Result) -> str:
    """The command's messages without whitespace: the console wraps long paths at any width."""
    return "".join(result.output.split())


def _refused(result: Result, message: str) -> None:
    assert result.exit_code == 2, result.output
    assert "".join(message.split()) in _said(result)
    assert "Traceback" not in result.output


def _overwrite_case(command: str, option: str) -> Callable[[Path], list[str]]:
    """The arguments of ``pfungst <command> DATA <option> DATA`` (plus what the command needs to start)."""
    extra = {"score": ["--model", NO_MODEL], "stress": ["--model", NO_MODEL]}.get(command, [])
    return lambda path: [command, str(path), "--reader", "jsonl", *extra, option, str(path)]


@pytest.mark.parametrize(
    "command, option",
    [
        ("inspect", "--json"),
        ("score", "--out"),
        ("score", "--json"),
        ("audit", "--json"),
        ("audit", "--items"),
        ("stress", "--json"),
        ("stress", "--items"),
    ],
)
def test_an_output_that_is_the_input_is_refused_before_any_work(data: Path, command: str, option: str) -> None:
    result = runner.invoke(app, _overwrite_case(command, option)(data))
    _refused(result, f"{option} {data}: this is the input {data}; writing there would overwrite it.")
    assert data.read_text() == ITEMS


def test_audit_fix_into_the_input_file_is_refused(data: Path) -> None:
    result = runner.invoke(app, ["audit", str(data), "--reader", "jsonl", "--fix", str(data)])
    _refused(result, f"--fix {data}: this is the input {data}")
    assert data.read_text() == ITEMS


def test_audit_fix_never_writes_over_the_benchmark_in_its_folder(tmp_path: Path) -> None:
    """The copies ``fix`` writes are named after the benchmark; one of them may be the very file being audited."""
    data = tmp_path / "toy.filtered.jsonl"
    data.write_text(ITEMS)
    benchmark = pfungst.load(data, "jsonl").with_name("toy")
    with pytest.raises(ConfigError, match=r"fix \(filtered\) .*toy\.filtered\.jsonl: this is the input"):
        fix(benchmark, tmp_path)
    assert data.read_text() == ITEMS


def test_report_onto_its_own_result_file_is_refused(summary: Path) -> None:
    before = summary.read_bytes()
    result = runner.invoke(app, ["report", str(summary), "-o", str(summary)])
    _refused(result, f"--out {summary}: this is the input {summary}")
    assert summary.read_bytes() == before


def test_reliance_json_onto_an_input_is_refused(tmp_path: Path, summary: Path) -> None:
    outcomes = tmp_path / "outcomes.csv"
    outcomes.write_text("model,item_id,correct\nm,q1,1\n")
    before = outcomes.read_bytes()
    result = runner.invoke(app, ["reliance", str(summary), "--outcomes", str(outcomes), "--json", str(outcomes)])
    _refused(result, f"--json {outcomes}: this is the input {outcomes}")
    assert outcomes.read_bytes() == before


def test_the_same_file_by_another_name_is_the_input_too(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A symbolic link, ``./x`` against ``x``, and ``folder/../x`` all name the input."""
    link = tmp_path / "link.jsonl"
    link.symlink_to(data)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    for output in (str(link), f"./{data.name}", f"sub/../{data.name}"):
        result = runner.invoke(app, ["inspect", data.name, "--reader", "jsonl", "--json", output])
        _refused(result, f"--json {Path(output)}: this is the input {data.name}")
    assert data.read_text() == ITEMS and link.is_symlink()


def test_a_missing_output_folder_is_created(tmp_path: Path, data: Path) -> None:
    out = tmp_path / "new" / "folder" / "summary.json"
    result = runner.invoke(app, ["inspect", str(data), "--reader", "jsonl", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["benchmark"]["n_items"] == 3


def test_score_creates_a_missing_output_folder_before_loading_the_model(tmp_path: Path, data: Path) -> None:
    out = tmp_path / "results" / "score.json"
    result = runner.invoke(app, ["score", str(data), "--reader", "jsonl", "--model", NO_MODEL, "--json", str(out)])
    assert result.exit_code == 2 and NO_MODEL in result.output  # the model fails after the folder was made
    assert out.parent.is_dir() and not out.exists()


def test_an_output_onto_a_directory_is_refused(tmp_path: Path, data: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    result = runner.invoke(app, ["score", str(data), "--reader", "jsonl", "--model", NO_MODEL, "--json", str(folder)])
    _refused(result, f"--json {folder}: this is a directory. Give a file name")


def test_an_output_under_a_file_is_refused(tmp_path: Path, data: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("keep me")
    out = blocker / "score.jsonl"
    result = runner.invoke(app, ["score", str(data), "--reader", "jsonl", "--model", NO_MODEL, "--out", str(out)])
    _refused(result, f"--out {out}: {blocker} is a file, not a folder.")
    assert blocker.read_text() == "keep me"


def test_an_output_in_a_read_only_folder_is_refused(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    if os.geteuid() == 0:  # root may write anywhere: make os.access answer as for any other user
        real = os.access
        monkeypatch.setattr(
            pfungst.serialization.os, "access", lambda p, mode: False if Path(p) == folder else real(p, mode)
        )
    out = folder / "score.json"
    try:
        result = runner.invoke(app, ["score", str(data), "--reader", "jsonl", "--model", NO_MODEL, "--json", str(out)])
    finally:
        folder.chmod(0o755)
    _refused(result, f"--json {out}: the folder {folder} is not writable.")
    assert not out.exists()


def test_two_outputs_on_one_path_are_refused(tmp_path: Path, data: Path) -> None:
    out = tmp_path / "both.jsonl"
    args = ["score", str(data), "--reader", "jsonl", "--model", NO_MODEL, "--out", str(out), "--json", str(out)]
    _refused(runner.invoke(app, args), f"--json {out}: --out writes there too.")


def test_output_folders_that_are_files_are_refused(tmp_path: Path, summary: Path) -> None:
    blocker = tmp_path / "plots"
    blocker.write_text("keep me")
    report = ["report", str(summary), "-o", str(tmp_path / "r.html"), "--plots", str(blocker)]
    _refused(runner.invoke(app, report), f"--plots {blocker}: {blocker} is a file, not a folder.")
    _refused(runner.invoke(app, ["demo", "--out", str(blocker)]), f"--out {blocker}: {blocker} is a file")
    assert blocker.read_text() == "keep me"


def _benchmark_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "items.jsonl").write_text(ITEMS)
    return folder


@pytest.mark.parametrize("option", ["--card", "--json"])
def test_suite_outputs_onto_the_benchmark_folder_or_a_file_in_it_are_refused(tmp_path: Path, option: str) -> None:
    folder = _benchmark_folder(tmp_path)
    link = tmp_path / "link.jsonl"
    link.symlink_to(folder / "items.jsonl")
    for target, shown in ((folder, folder), (folder / "items.jsonl", folder / "items.jsonl"), (link, link)):
        result = runner.invoke(app, ["suite", str(folder), "--out", str(tmp_path / "out"), option, str(target)])
        _refused(result, f"{option} {shown}: this is the input")
    assert (folder / "items.jsonl").read_text() == ITEMS and folder.is_dir() and not (tmp_path / "out").exists()


def test_suite_out_onto_the_benchmark_folder_is_refused_before_writing_into_it(tmp_path: Path) -> None:
    folder = _benchmark_folder(tmp_path)
    result = runner.invoke(app, ["suite", str(folder), "--out", str(folder)])
    _refused(result, f"--out {folder}: this is the input {folder}")
    assert sorted(p.name for p in folder.iterdir()) == ["items.jsonl"]


def test_stress_from_logs_json_onto_one_of_the_samples_files_is_refused(tmp_path: Path) -> None:
    samples = tmp_path / "out" / "model" / "samples_pfungst_toy_identity_2025-01-01T00-00-00.jsonl"
    samples.parent.mkdir(parents=True)
    samples.write_text('{"doc": {}}\n')
    for option in ("--json", "--items"):
        result = runner.invoke(app, ["stress", "--from-logs", str(tmp_path / "out"), option, str(samples)])
        _refused(result, f"{option} {samples}: this is the input {samples}")
    assert samples.read_text() == '{"doc": {}}\n'


def test_the_cache_is_never_the_benchmark_nor_another_output(tmp_path: Path, data: Path) -> None:
    start = ["score", str(data), "--reader", "jsonl", "--model", NO_MODEL]
    _refused(runner.invoke(app, [*start, "--cache", str(data)]), f"--cache {data}: this is the input {data}")
    cache = tmp_path / "cache.sqlite"
    result = runner.invoke(app, [*start, "--cache", str(cache), "--json", str(cache)])
    _refused(result, f"--json {cache}: --cache writes there too.")
    assert data.read_text() == ITEMS


def test_json_onto_a_fifo_is_refused_and_the_fifo_kept(tmp_path: Path, data: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = runner.invoke(app, ["inspect", str(data), "--reader", "jsonl", "--json", str(fifo)])
    _refused(result, f"--json {fifo}: this is a FIFO (named pipe), not a regular file")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_json_over_a_private_file_keeps_it_private(tmp_path: Path, data: Path) -> None:
    out = tmp_path / "summary.json"
    out.write_text("old\n")
    out.chmod(0o600)
    result = runner.invoke(app, ["inspect", str(data), "--reader", "jsonl", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["benchmark"]["n_items"] == 3 and stat.S_IMODE(out.stat().st_mode) == 0o600


def _unwritable(tmp_path: Path, case: str) -> Path:
    """An output folder that cannot be made or written, of the kind ``case`` names (root passes os.access)."""
    if case == "a file":
        (tmp_path / "taken").write_text("keep me")
        return tmp_path / "taken"
    if case == "under a file":
        (tmp_path / "taken").write_text("keep me")
        return tmp_path / "taken" / "tasks"
    if case == "under a FIFO":
        os.mkfifo(tmp_path / "pipe")
        return tmp_path / "pipe" / "tasks"
    return Path("/proc/pfungst-tasks") if case == "under /proc" else Path("/proc")


@pytest.mark.parametrize("case", ["a file", "under a file", "under a FIFO", "under /proc", "/proc itself"])
def test_export_into_a_folder_it_cannot_write_is_a_user_error_naming_the_option(
    tmp_path: Path, data: Path, case: str
) -> None:
    out = _unwritable(tmp_path, case)
    result = runner.invoke(app, ["export", "lm-eval", str(data), "--reader", "jsonl", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert _said(result).startswith("error:--out" + "".join(str(out).split()) + ":"), result.output
    if case in ("a file", "under a file"):
        assert (tmp_path / "taken").read_text() == "keep me"


def test_export_never_removes_the_benchmark_as_an_earlier_export(tmp_path: Path) -> None:
    """An earlier export's files are removed before a new one; the benchmark may carry such a name."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    data = folder / "pfungst_toy_identity.jsonl"
    data.write_text(ITEMS)
    args = ["export", "lm-eval", str(data), "--reader", "jsonl", "--out", str(folder), "--name", "toy"]
    _refused(runner.invoke(app, args), f"({data.name}) {data}: this is the input {data}")
    assert data.read_text() == ITEMS


def test_a_json_output_named_gz_is_written_compressed_and_reads_back_as_the_same_result(
    tmp_path: Path, data: Path
) -> None:
    plain, packed = tmp_path / "summary.json", tmp_path / "summary.json.gz"
    for path in (plain, packed):
        assert runner.invoke(app, ["inspect", str(data), "--reader", "jsonl", "--json", str(path)]).exit_code == 0
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    unpacked, written = json.loads(gzip.decompress(packed.read_bytes())), json.loads(plain.read_bytes())
    assert _timeless(unpacked) == _timeless(written)
    assert _timeless(pfungst.read_result(packed).to_dict()) == _timeless(pfungst.read_result(plain).to_dict())


def _timeless(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` less its creation time: each run's own, to the second."""
    del result["provenance"]["environment"]["created"]
    return result
