"""The one serializer: plain JSON values, indented JSON with one-line scalar containers, and atomic files."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pfungst
from pfungst.data import Benchmark, Item, make_synthetic
from pfungst.data.summary import summarize
from pfungst.errors import ConfigError
from pfungst.path_checks import check_outputs
from pfungst.serialization import atomic_write, frame_records, to_jsonable, write_json, write_jsonl, write_records
from tests.evaluate.fakes import ScriptedModel, by_continuation

SOURCE = Path(pfungst.__file__).parents[1]


@dataclass(frozen=True)
class _Plain:
    name: str
    ratio: float


@dataclass(frozen=True)
class _WithToDict:
    value: float

    def to_dict(self) -> dict[str, Any]:
        return {"shown": self.value}


def _old_json(data: Any) -> str:
    """How every result was written before the one serializer: NaN as null, then ``json.dumps`` (indent 2)."""

    def nan_to_none(value: Any) -> Any:
        if isinstance(value, float) and math.isnan(value):
            return None
        if isinstance(value, dict):
            return {k: nan_to_none(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [nan_to_none(v) for v in value]
        return value

    return json.dumps(nan_to_none(data), indent=2, ensure_ascii=False) + "\n"


def _benchmark() -> Benchmark:
    items = tuple(
        Item(f"q{i}", f"Frage {i}: welche? é 漢", tuple(f"Option {i}-{k} ß" for k in range(2 + i % 3)), i % 2)
        for i in range(12)
    )
    return Benchmark("tößy", items)


def test_to_jsonable_gives_plain_values_with_nan_and_infinity_as_null() -> None:
    value = {
        "tuple": (1, 2.5, float("nan")),
        "inf": [float("inf"), -math.inf],
        "numpy": [np.int64(3), np.float32(0.5), np.bool_(True), np.float64("nan")],
        "array": np.array([[1, 2], [3, 4]]),
        "path": Path("a") / "b.json",
        "plain": _Plain("x", float("inf")),
        "own": _WithToDict(float("nan")),
        1: "int key",
        None: "none key",
    }
    assert to_jsonable(value) == {
        "tuple": [1, 2.5, None],
        "inf": [None, None],
        "numpy": [3, 0.5, True, None],
        "array": [[1, 2], [3, 4]],
        "path": str(Path("a") / "b.json"),
        "plain": {"name": "x", "ratio": None},
        "own": {"shown": None},
        "1": "int key",
        "null": "none key",
    }
    assert list(to_jsonable({"b": 1, "a": 2})) == ["b", "a"]  # key order kept


def test_to_jsonable_refuses_what_json_cannot_hold_unless_given_a_default() -> None:
    with pytest.raises(TypeError, match="cannot write a object as JSON"):
        to_jsonable({"x": object()})
    assert to_jsonable({"x": {1, 2}}, default=repr) == {"x": "{1, 2}"}


def test_score_stress_audit_and_summary_json_hold_the_values_json_dumps_would_write(tmp_path: Path) -> None:
    """``save_json`` writes the values (and key order) of ``json.dumps(indent=2)`` with NaN as null, UTF-8
    unescaped, with a final newline; below the top, a container of scalars takes one line."""
    model = ScriptedModel(loglikelihood_script=by_continuation({"Option 1-1 ß": float("-inf")}))
    score = pfungst.score(_benchmark(), model, rule="cloze-raw", cache=False)
    stress = pfungst.stress.stress(_benchmark(), ScriptedModel(), perturbations=("cyclic", "pride"), cache=False)
    audit = pfungst.audit.audit(
        make_synthetic("gold-position", n_items=60, seed=1), n_bootstrap=20, n_permutations=20, n_repeats=1, n_splits=3
    )
    summary = summarize(_benchmark())
    for name, result, data in (
        ("score", score, score.to_dict(items=True)),
        ("stress", stress, stress.to_dict(items=True)),
        ("audit", audit, audit.to_dict(items=True)),
        ("summary", summary, summary.to_dict()),
    ):
        path = tmp_path / f"{name}.json"
        written = (result.save_json(path, items=True) if name != "summary" else result.save_json(path)).read_text()
        assert _pairs(written) == _pairs(_old_json(data)), name  # the same values, keys in the same order
        assert written.endswith("}\n") and written.startswith("{\n  ")
    text = (tmp_path / "score.json").read_text(encoding="utf-8")
    assert "tößy" in text and "null" in text
    audit_text = (tmp_path / "audit.json").read_text()
    record = audit.probes[0].to_dict(items=True)["items"][0]
    assert json.dumps(record, ensure_ascii=False) in audit_text  # one item's record on one line
    assert (
        sum(line.lstrip().startswith('{"item_id": ') for line in audit_text.splitlines()) >= audit.benchmark["n_items"]
    )
    assert '"ci": {"low": ' in audit_text  # an interval on one line


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(value=JSON_VALUES)
def test_any_json_value_reads_back_as_written(value: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = write_json(tmp_path_factory.mktemp("json") / "v.json", {"value": value})
    assert _pairs(path.read_text(encoding="utf-8")) == _pairs(json.dumps({"value": value}))


def test_frame_records_are_the_records_pandas_gives_converted() -> None:
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "ß", "d"],
            "count": np.array([1, 2, 3, 4]),
            "big": np.array([2**64 - 1, 0, 1, 2], dtype=np.uint64),
            "flag": np.array([True, False, True, False]),
            "maybe_int": pd.array([1, None, 3, None], dtype="Int64"),
            "maybe_bool": pd.array([True, None, False, None], dtype="boolean"),
            "x": [0.5, float("nan"), float("inf"), -1.0],
            "label": ["yes", None, "no", None],
            3: [np.float64(1.5), 2.0, 3.0, 4.0],
        }
    )
    old = to_jsonable(frame.astype(object).where(frame.notna(), None).to_dict(orient="records"))
    new = frame_records(frame)
    assert json.dumps(new) == json.dumps(old)  # the same values and types (true is not 1), keys in order
    assert new[0]["big"] == 2**64 - 1
    assert new[1] == {
        "id": "b", "count": 2, "big": 0, "flag": False, "maybe_int": None, "maybe_bool": None, "x": None,
        "label": None, "3": 2.0,
    }  # fmt: skip


def _pairs(text: str) -> Any:
    """The JSON value of ``text`` with every object as its list of (key, value) pairs, so that order counts."""
    return json.loads(text, object_pairs_hook=list)


def test_records_are_json_lines_or_parquet_and_nothing_else(tmp_path: Path) -> None:
    rows = [{"id": "q1", "scores": (0.5, float("-inf"))}, {"id": "q2", "scores": (np.float64(1.0), 2.0)}]
    frame = pd.DataFrame({"id": ["q1", "q2"]})
    lines = write_records(tmp_path / "r.jsonl", rows, lambda: frame).read_text().splitlines()
    assert lines == ['{"id": "q1", "scores": [0.5, null]}', '{"id": "q2", "scores": [1.0, 2.0]}']
    assert list(pd.read_parquet(write_records(tmp_path / "r.parquet", rows, lambda: frame))["id"]) == ["q1", "q2"]
    with pytest.raises(ConfigError, match=r"suffix '.csv' is not one of \['.jsonl', '.parquet'\]. Name the file"):
        write_records(tmp_path / "r.csv", rows, lambda: frame, "outcomes")


def test_a_writer_failing_midway_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "result.jsonl"
    target.write_text("previous run\n")

    def rows() -> Any:
        yield {"id": "q1"}
        raise RuntimeError("killed midway")

    with pytest.raises(RuntimeError, match="killed midway"):
        write_jsonl(target, rows())
    assert target.read_text() == "previous run\n"
    assert [path.name for path in tmp_path.iterdir()] == ["result.jsonl"]


def test_a_full_disk_leaves_the_old_file_and_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "result.json"
    target.write_text("{}\n")

    def no_space(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(ConfigError, match=r"cannot write .*result\.json: No space left on device"):
        write_json(target, {"value": 1})
    assert target.read_text() == "{}\n"
    assert [path.name for path in tmp_path.iterdir()] == ["result.json"]


def test_a_process_killed_while_writing_leaves_the_previous_file_intact(tmp_path: Path) -> None:
    """A real ``kill -9`` in the middle of a write: the old bytes stay, the half-written text never shows."""
    target = tmp_path / "result.json"
    target.write_text("old\n")
    child = (
        "import sys, time\n"
        "from pfungst.serialization import atomic_write\n"
        "with atomic_write(sys.argv[1]) as handle:\n"
        "    handle.write('half of the new'); handle.flush()\n"
        "    print('writing', flush=True); time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SOURCE), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-c", child, str(target)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "writing"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        process.kill()
        if process.stdout is not None:
            process.stdout.close()
    assert target.read_text() == "old\n"
    assert [path.read_text() for path in tmp_path.glob(".result.json.*.tmp")] == ["half of the new"]


def test_a_symbolic_link_is_written_through_and_new_files_get_the_usual_permissions(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_json(link, [1])
    assert link.is_symlink() and real.read_text() == "[\n  1\n]\n"
    umask = os.umask(0o022)
    os.umask(umask)
    fresh = write_json(tmp_path / "new" / "fresh.json", {})
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask


def test_check_outputs_names_the_option_and_passes_standard_output(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("x\n")
    check_outputs([data], {"--json": "-", "--items": None, "--out": tmp_path / "out.jsonl"})
    with pytest.raises(ConfigError, match=r"^--out .*data\.jsonl: this is the input .*data\.jsonl; writing there"):
        check_outputs([data], {"--out": tmp_path / "." / "data.jsonl"})
    hard = tmp_path / "hard.jsonl"
    os.link(data, hard)
    with pytest.raises(ConfigError, match="this is the input"):
        check_outputs([data], {"--json": hard})


def test_atomic_write_writes_bytes_and_text_as_given(tmp_path: Path) -> None:
    with atomic_write(tmp_path / "b.bin", binary=True) as handle:
        handle.write(b"\x00\x01")
    with atomic_write(tmp_path / "t.txt") as handle:
        handle.write("line\nänd\n")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert (tmp_path / "t.txt").read_bytes() == "line\nänd\n".encode()


def test_a_replaced_file_keeps_its_permission_bits(tmp_path: Path) -> None:
    private = tmp_path / "private.json"
    private.write_text("old\n")
    private.chmod(0o600)
    write_json(private, {"new": True})
    assert stat.S_IMODE(private.stat().st_mode) == 0o600 and json.loads(private.read_text()) == {"new": True}
    shared = tmp_path / "shared.csv"
    shared.write_text("old\n")
    shared.chmod(0o664)
    with atomic_write(shared) as handle:
        handle.write("new\n")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o664


def test_a_fifo_is_refused_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match=r"^--json .*pipe: this is a FIFO \(named pipe\), not a regular file"):
        check_outputs([], {"--json": fifo})
    with pytest.raises(ConfigError, match=r"^cannot write .*pipe: a FIFO \(named pipe\), not a regular file"):
        write_json(fifo, {})
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and list(tmp_path.iterdir()) == [fifo]


def test_a_device_node_is_refused_not_replaced(tmp_path: Path) -> None:
    """A device of our own, so that a regression replaces nothing of the system's."""
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    link = tmp_path / "link"
    link.symlink_to(node)
    for target in (node, link):
        with pytest.raises(ConfigError, match="a device, not a regular file"):
            write_json(target, {})
    assert stat.S_ISCHR(os.stat(node).st_mode) and os.stat(node).st_rdev == os.makedev(1, 3)


def test_dev_null_is_refused_as_an_output_before_any_work() -> None:
    """Only checked, never written: a regression here must not replace the system's /dev/null."""
    before = os.stat("/dev/null")
    with pytest.raises(ConfigError, match=r"^--json /dev/null: this is a device, not a regular file"):
        check_outputs([], {"--json": "/dev/null"})
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_file_beneath_an_input_folder_is_an_input(tmp_path: Path) -> None:
    folder = tmp_path / "mmlu"
    (folder / "test").mkdir(parents=True)
    data = folder / "test" / "anatomy_test.csv"
    data.write_text("q,a,b,c,d,A\n")
    outside = tmp_path / "elsewhere.csv"
    outside.write_text("kept\n")
    (folder / "linked.csv").symlink_to(outside)
    hard = tmp_path / "hard.csv"
    os.link(data, hard)
    for output, shown in ((data, data), (outside, folder / "linked.csv"), (hard, data)):
        with pytest.raises(ConfigError, match=re.escape(f"--json {output}: this is the input {shown};")):
            check_outputs([folder], {"--json": output})
    check_outputs([folder], {"--json": folder / "test" / "new.json"})  # a new file beside the data is no input


def test_a_folder_that_takes_no_new_file_is_refused_though_root_may_pass_os_access() -> None:
    with pytest.raises(ConfigError, match=r"^--json /proc/x\.json: the folder /proc is not writable"):
        check_outputs([], {"--json": "/proc/x.json"})
