"""Property tests: whatever file a user hands pfungst, it answers with a result (exit 0) or a clear user error
(exit 2), never a crash (exit 1, a traceback), and never changes the input file.

Hypothesis generates JSON Lines, CSV, TSV and Parquet benchmark files (arbitrary JSON values, and rows in the common
question/choices/answer layout with values of any type), and result files for ``pfungst report`` (arbitrary JSON,
and a real result with one field replaced by an arbitrary value). Other tools' logs too: benchmark files for
``pfungst export lm-eval``, lm-eval samples for ``pfungst stress --from-logs`` and inspect logs (``.json`` and
``.eval``) for ``pfungst inspect-log``, each a real one with one field replaced, or arbitrary lines or bytes; and
suite folders: trees of such files, truncated ``.gz`` files, BIG-bench ``task.json`` files anywhere, hidden and odd
names, nesting hundreds of folders deep.
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.data.synthetic import make_synthetic

RUNS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LOG_RUNS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""Fewer examples for the commands that analyse a whole log (each run a fraction of a second)."""
DEEP = "[" * 1000 + "]" * 1000
"""JSON nested 1,000 deep: a RecursionError in the reader, detection and report before issue 15."""
DEEPER = "[" * 100_000 + "]" * 100_000
"""JSON nested 100,000 deep: a RecursionError in Python's own parser."""

scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
)
row_values = {
    "question": json_values,
    "choices": st.lists(scalars, max_size=5) | json_values,
    "answer": json_values,
}
layout_rows = st.fixed_dictionaries({}, optional=row_values)


def _run(args: list[str], inputs: list[Path]) -> None:
    """Run the CLI; assert exit 0 or 2 and that no input changed."""
    before = [path.read_bytes() for path in inputs]
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 2), f"exit {result.exit_code}: {result.output[-2000:]}\n{result.exception!r}"
    assert [path.read_bytes() for path in inputs] == before, "an input file changed"


def _inspect(name: str, text: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
        _run(["inspect", str(path)], [path])
        _run(["inspect", str(path), "--on-error", "skip"], [path])


@RUNS
@given(st.lists(json_values, max_size=6))
def test_any_json_lines_file_is_read_or_refused_cleanly(values: list[Any]) -> None:
    _inspect("data.jsonl", "".join(json.dumps(value) + "\n" for value in values))


@RUNS
@given(st.lists(layout_rows, min_size=1, max_size=6))
def test_rows_in_the_common_layout_with_values_of_any_type_are_read_or_refused_cleanly(rows: list[Any]) -> None:
    _inspect("data.jsonl", "".join(json.dumps(row) + "\n" for row in rows))


@pytest.mark.parametrize(("name", "delimiter"), [("data.csv", ","), ("data.tsv", "\t")])
@RUNS
@given(st.lists(st.lists(st.text(max_size=12), min_size=1, max_size=5), min_size=1, max_size=6))
def test_any_csv_or_tsv_file_is_read_or_refused_cleanly(name: str, delimiter: str, rows: list[list[str]]) -> None:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter).writerows(rows)
    _inspect(name, buffer.getvalue())


@RUNS
@given(st.lists(st.sampled_from(["question", "choices", "answer", "A", "B"]), min_size=1, max_size=6))
def test_a_csv_header_of_any_columns_repeated_or_not_is_read_or_refused_cleanly(header: list[str]) -> None:
    _inspect("data.csv", ",".join(header) + "\n" + ",".join("x" for _ in header) + "\n")


parquet_rows = st.fixed_dictionaries(
    {
        "question": st.text(max_size=20),
        "choices": st.lists(st.text(max_size=8), max_size=5),
        "answer": st.integers(-3, 6),
    }
)


@RUNS
@given(st.lists(parquet_rows, min_size=1, max_size=6))
def test_parquet_rows_in_the_common_layout_are_read_or_refused_cleanly(rows: list[dict[str, Any]]) -> None:
    pyarrow = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    buffer = pyarrow.BufferOutputStream()
    parquet.write_table(pyarrow.Table.from_pylist(rows), buffer)
    _inspect("data.parquet", buffer.getvalue().to_pybytes())


def test_json_nested_a_thousand_deep_is_refused_with_its_line() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "deep.jsonl"
        path.write_text('{"question": "q", "choices": ["a", "b"], "answer": 0}\n' + DEEP + "\n")
        before = path.read_bytes()
        result = CliRunner().invoke(app, ["inspect", str(path), "--reader", "jsonl"])
        assert result.exit_code == 2, result.output
        assert "deep.jsonl:2" in result.output
        assert path.read_bytes() == before


def _real_result() -> dict[str, Any]:
    from pfungst.data.summary import summarize

    data: dict[str, Any] = summarize(make_synthetic("control", 30)).to_dict()
    return data


def _replace(data: Any, path: list[int], value: Any) -> Any:
    """``data`` with the node that ``path`` picks (indices into keys or items, wrapped) replaced by ``value``."""
    if not path or not isinstance(data, dict | list) or not data:
        return value
    keys = list(data) if isinstance(data, dict) else list(range(len(data)))
    key = keys[path[0] % len(keys)]
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[key] = _replace(data[key], path[1:], value)  # type: ignore[index]
    return copy


@RUNS
@given(json_values)
def test_any_json_handed_to_report_is_rendered_or_refused_cleanly(value: Any) -> None:
    _report(json.dumps(value))


@RUNS
@given(st.lists(st.integers(0, 50), min_size=1, max_size=4), json_values)
def test_a_result_file_with_one_field_of_any_type_is_rendered_or_refused_cleanly(path: list[int], value: Any) -> None:
    _report(json.dumps(_replace(_real_result(), path, value)))


def test_a_result_nested_a_thousand_deep_is_refused() -> None:
    _report(DEEP)
    _report(json.dumps({**_real_result(), "benchmark": json.loads("[" * 400 + "]" * 400)}))


def _report(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "result.json"
        path.write_text(text, encoding="utf-8")
        _run(["report", str(path), "-o", str(Path(folder) / "report.html")], [path])


@LOG_RUNS
@given(st.lists(layout_rows, min_size=1, max_size=6))
def test_any_benchmark_handed_to_export_lm_eval_is_exported_or_refused_cleanly(rows: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        _run(["export", "lm-eval", str(path), "-p", "cyclic", "-o", str(Path(folder) / "tasks")], [path])


@functools.cache
def _lm_eval_logs() -> Path:
    """lm-eval's output folder for an exported identity and cyclic pass (built once; tests copy it)."""
    from pfungst.stress import StressConfig
    from pfungst.stress.lm_eval import export_lm_eval
    from tests.stress.test_lm_eval_round_trip import _benchmark, _score, run_like_lm_eval

    folder = Path(tempfile.mkdtemp(prefix="pfungst-properties-"))
    config = StressConfig(perturbations=("cyclic",), rules=("letter",), n_bootstrap=20)
    export_lm_eval(_benchmark(), folder / "tasks", config)
    run_like_lm_eval(folder / "tasks", folder / "out", _score)
    return folder / "out"


def _from_logs(change: Any, every_file: bool = False) -> None:
    """``stress --from-logs`` on a copy of the logs whose sample lines ``change`` rewrote (a list of parsed lines
    in, a list of lines out: parsed lines or text), in the first samples file or in each."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        shutil.copytree(_lm_eval_logs(), out)
        files = sorted(out.rglob("samples_*.jsonl"))
        for path in files if every_file else files[:1]:
            lines = change([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])
            text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
        _run(["stress", "--from-logs", str(out), "--n-bootstrap", "20"], files)


@LOG_RUNS
@given(st.integers(0, 30), st.lists(st.integers(0, 50), min_size=1, max_size=4), json_values)
@example(1, [1, 1], 7)  # doc.item_id a number
def test_lm_eval_samples_with_one_field_of_any_type_are_analysed_or_refused_cleanly(
    line: int, path: list[int], value: Any
) -> None:
    def change(lines: list[Any]) -> list[Any]:
        lines[line % len(lines)] = _replace(lines[line % len(lines)], path, value)
        return lines

    _from_logs(change)


@LOG_RUNS
@given(st.lists(st.integers(0, 50), min_size=1, max_size=3), json_values)
@example([2], 5)  # instructions a number (the settings' keys are sorted)
@example([11], None)  # the rule null: a TypeError in the registry's close-match search
def test_lm_eval_samples_with_one_setting_of_any_type_are_analysed_or_refused_cleanly(
    path: list[int], value: Any
) -> None:
    def change(lines: list[Any]) -> list[Any]:
        settings = json.dumps(_replace(json.loads(lines[0]["doc"]["settings"]), path, value))
        for line in lines:
            line["doc"]["settings"] = settings
        return lines

    _from_logs(change, every_file=True)


@LOG_RUNS
@given(st.lists(json_values | st.text(max_size=30) | st.just(DEEPER), min_size=1, max_size=4))
@example([DEEPER])
def test_lm_eval_samples_of_any_lines_are_refused_cleanly(lines: list[Any]) -> None:
    _from_logs(lambda _: lines)


def _inspect_log() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An inspect header and the samples of a task expanded by pfungst (three items, each in three cyclic orders)."""
    samples = []
    for item in range(3):
        for shift in range(3):
            order = [(k + shift) % 3 for k in range(3)]
            record = {"item_id": f"q{item}", "perturbation": "cyclic", "variant": f"shift {shift}", "order": order}
            metadata = {"pfungst": {**record, "gold": 0, "gold_position": order.index(0), "labels": ["A", "B", "C"]}}
            score = {
                "value": "C" if order[0] == 0 else "I",
                "answer": "A",
                "metadata": {"pfungst": {"chosen_position": 0}},
            }
            samples.append(
                {
                    "id": f"q{item}|cyclic|shift {shift}",
                    "epoch": 1,
                    "metadata": metadata,
                    "scores": {"pfungst_choice": score},
                }
            )
    evaluation = {"task": "t", "model": "m", "dataset": {"name": "d", "sample_ids": [s["id"] for s in samples]}}
    results = {"scores": [{"name": "pfungst_choice", "metrics": {"accuracy": {"value": 0.33}}}]}
    return {"version": 2, "status": "success", "eval": evaluation, "results": results}, samples


def _inspect_log_file(name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        _run(["inspect-log", str(path)], [path])


@LOG_RUNS
@given(st.lists(st.integers(0, 50), min_size=1, max_size=5), json_values)
@example([2], True)  # eval: true
def test_an_inspect_json_log_with_one_field_of_any_type_is_read_or_refused_cleanly(path: list[int], value: Any) -> None:
    header, samples = _inspect_log()
    _inspect_log_file("log.json", json.dumps(_replace({**header, "samples": samples}, path, value)).encode())


@LOG_RUNS
@given(st.integers(0, 9), st.lists(st.integers(0, 50), min_size=1, max_size=4), json_values)
@example(0, [2], True)  # the header's eval: true
def test_an_inspect_eval_log_with_one_member_changed_is_read_or_refused_cleanly(
    member: int, path: list[int], value: Any
) -> None:
    from tests.integrations.test_inspect_log import write_eval

    header, samples = _inspect_log()
    documents = [header, *samples]
    documents[member] = _replace(documents[member], path, value)
    names = ["header.json", *(f"samples/{number}_epoch_1.json" for number in range(len(samples)))]
    with tempfile.TemporaryDirectory() as folder:
        log = write_eval(
            Path(folder) / "log.eval", {n: json.dumps(d).encode() for n, d in zip(names, documents, strict=True)}
        )
        _inspect_log_file("log.eval", log.read_bytes())


@LOG_RUNS
@given(st.integers(0, 4000), st.binary(min_size=1, max_size=40))
@example(45, b"\xff" * 8)  # the first member's Zstandard frame header
@example(547, b"\x01\x00\x00")  # a member's flag bits: encrypted
def test_an_inspect_eval_log_with_bytes_overwritten_is_read_or_refused_cleanly(offset: int, garbage: bytes) -> None:
    from tests.integrations.test_inspect_log import write_eval

    header, samples = _inspect_log()
    members = {"header.json": json.dumps(header).encode(), "samples/0_epoch_1.json": json.dumps(samples[0]).encode()}
    with tempfile.TemporaryDirectory() as folder:
        raw = write_eval(Path(folder) / "log.eval", members).read_bytes()
    start = offset % len(raw)
    _inspect_log_file("log.eval", raw[:start] + garbage + raw[start + len(garbage) :])


# Suite folders: any tree of files of any kind under any names is audited, skipped or ignored with a reason.
_GOOD_ROWS = "".join(
    json.dumps({"question": f"What is {i} + {i}?", "choices": [str(2 * i), str(2 * i + 1)], "answer": i % 2}) + "\n"
    for i in range(40)
)
file_names = st.sampled_from(
    [
        "task.json",
        "data.jsonl",
        "data.json",
        "data.csv",
        "data.tsv",
        "data.jsonl.gz",
        "data.json.gz",
        "README.md",
        ".hidden.jsonl",
        "_private.csv",
        "-dash.jsonl",
        "sp ace.csv",
        "ünïcödé.jsonl",
        "no-suffix",
        "x.parquet",
        "a.b.c.tsv",
    ]
)


def _gz_truncated(text: str, keep: float) -> bytes:
    data = gzip.compress(text.encode())
    return data[: max(0, int(len(data) * keep))]


file_contents = (
    st.lists(json_values, max_size=4).map(lambda values: "".join(json.dumps(v) + "\n" for v in values).encode())
    | st.lists(layout_rows, min_size=1, max_size=4).map(
        lambda rows: "".join(json.dumps(r) + "\n" for r in rows).encode()
    )
    | json_values.map(lambda value: json.dumps({"examples": value}).encode())
    | st.binary(max_size=64)
    | st.floats(0, 1).map(lambda keep: _gz_truncated(_GOOD_ROWS, keep))
    | st.just(_GOOD_ROWS.encode())
    | st.just(gzip.compress(_GOOD_ROWS.encode()))
)
folder_paths = st.lists(st.sampled_from(["a", "b", ".git", "_x", "deep", "task"]), max_size=4)
suite_trees = st.lists(st.tuples(folder_paths, file_names, file_contents), min_size=1, max_size=6)
SUITE_RUNS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
QUICK_SUITE = ["--quiet", "--n-bootstrap", "20", "--n-permutations", "10", "--n-repeats", "1", "--n-splits", "2"]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@SUITE_RUNS
@given(suite_trees, st.integers(0, 300), file_contents)
def test_any_suite_folder_is_audited_skipped_or_refused_cleanly(tree: list[Any], depth: int, deepest: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "suite"
        root.mkdir()
        for parts, name, content in tree:
            path = root.joinpath(*parts, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        deep = root.joinpath(*["d"] * depth)  # nesting to any depth (the path stays under the OS limit)
        deep.mkdir(parents=True, exist_ok=True)
        (deep / "data.jsonl").write_bytes(deepest)
        before = _snapshot(root)
        result = CliRunner().invoke(app, ["suite", str(root), "--out", str(Path(folder) / "out"), *QUICK_SUITE])
        assert result.exit_code in (0, 2), f"exit {result.exit_code}: {result.output[-2000:]}\n{result.exception!r}"
        assert _snapshot(root) == before, "a file in the suite folder changed, appeared or vanished"
