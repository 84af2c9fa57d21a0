"""One reader contract for every file a command reads: what ``report`` refuses, ``reliance`` and ``validity`` refuse
too, each with one message naming the file and the field, and exit 2.

Property tests take a real result file (the demo's audit and stress results under ``tests/golden``), replace one
value anywhere in it by a value of any type or size, and check that no reader accepts what another refuses and that
none fails with anything but a user error. The cases of issue 37 are explicit examples.
"""

from __future__ import annotations

import copy
import gzip
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.errors import PfungstError
from pfungst.reliance import read_outcomes, shortcut_items
from pfungst.report.loading import load_result

GOLDEN = Path(__file__).parent / "golden" / "demo"
RUNS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
runner = CliRunner()


def _golden(name: str) -> dict[str, Any]:
    with gzip.open(GOLDEN / name, "rt", encoding="utf-8") as handle:
        return json.load(handle)


AUDIT = _golden("gold-position.audit.json.gz")
STRESS = _golden("gold-position.stress.json.gz")


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a scalar of ``value`` (lists: their first two entries)."""
    if isinstance(value, dict):
        return [path for key, item in value.items() for path in _paths(item, (*prefix, key))]
    if isinstance(value, list):
        return [path for index, item in enumerate(value[:2]) for path in _paths(item, (*prefix, index))]
    return [prefix]


def _replaced(document: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    holder = changed
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return changed


AUDIT_PATHS = _paths(AUDIT)
OUTCOME_PATHS = [path for path in _paths(STRESS) if path[:1] == ("outcomes",)]
VALUES = st.one_of(
    st.integers(min_value=-(10**400), max_value=10**400),
    st.sampled_from([0, -1, 99, 10**400, 2.5, -0.5, math.nan, math.inf, -math.inf, None, True, "", "x"]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=3),
    st.text(max_size=5),
)


def _outcome(call: Callable[[], Any]) -> str:
    """``ok``, or the user error's message; anything else fails the test (a crash)."""
    try:
        call()
    except PfungstError as error:
        return str(error)
    return "ok"


def _write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document))  # NaN and Infinity as JSON's NaN / Infinity tokens
    return path


@RUNS
@given(path=st.sampled_from(AUDIT_PATHS), value=VALUES)
@example(path=("benchmark", "n_items"), value=-5)
@example(path=("probes", 0, "kappa", "ci", "low"), value=0.99)
@example(path=("schema_version",), value="pfungst.audit/9")
@example(path=("controls", "constant_answer", "n_items"), value=10**400)
@example(path=("probes", 0, "kappa", "pvalue"), value=2.5)
@example(path=("probes", 0, "items", 0, "item_id"), value={"a": 1})
@example(path=("probes", 0, "items", 0, "gold"), value=7)
@example(path=("probes", 0, "settings", "chance"), value="half")
@example(path=("heuristics", "results", 1, "accuracy", "baseline"), value=10**400)
def test_reliance_refuses_every_audit_file_report_refuses(
    tmp_path_factory: pytest.TempPathFactory, path: tuple[Any, ...], value: Any
) -> None:
    file = _write(tmp_path_factory.mktemp("audit") / "audit.json", _replaced(AUDIT, path, value))
    reported = _outcome(lambda: load_result(file))
    relied = _outcome(lambda: shortcut_items(file))
    if reported != "ok":
        assert relied != "ok", f"report refuses ({reported}) what reliance accepts"
        assert "audit.json" in relied


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("benchmark", "n_items"), -5, r"field 'benchmark\.n_items': a count cannot be negative, found -5"),
        (("probes", 0, "kappa", "ci", "low"), 0.99, r"field 'probes\[0\]\.kappa\.ci': low 0\.99 is above high"),
        (("schema_version",), "pfungst.audit/9", r"(expected 'pfungst\.audit/\d+'|unknown sch)"),
        (("controls", "constant_answer", "n_items"), 10**400, r"n_items': a whole number of about 401 digits is out"),
        (("probes", 0, "kappa", "pvalue"), 2.5, r"field 'probes\[0\]\.kappa\.pvalue': 2\.5 is outside \[0, 1\]"),
        (("probes", 0, "items", 0, "item_id"), {"a": 1}, r"items\[0\]\.item_id': expected a string, found an object"),
    ],
)
@pytest.mark.parametrize("command", ["report", "reliance"])
def test_each_bad_audit_exits_2_with_one_message_naming_the_field(
    tmp_path: Path, command: str, path: tuple[Any, ...], value: Any, message: str
) -> None:
    file = _write(tmp_path / "audit.json", _replaced(AUDIT, path, value))
    outcomes = _write(tmp_path / "stress.json", STRESS)
    args = {
        "report": ["report", str(file), "-o", str(tmp_path / "report.html")],
        "reliance": ["reliance", str(file), "--outcomes", str(outcomes)],
    }[command]
    result = runner.invoke(app, args)
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in text and text.count("error:") == 1
    assert re.search(message, text) and "audit.json" in text, text


def _outcome_readers(file: Path) -> dict[str, str]:
    return {
        "report": _outcome(lambda: load_result(file)),
        "outcomes": _outcome(lambda: read_outcomes(file, format="pfungst-stress")),
    }


@RUNS
@given(path=st.sampled_from(OUTCOME_PATHS), value=VALUES)
@example(path=("outcomes", 0, "chosen"), value=99)
@example(path=("outcomes", 0, "scores", 0), value=math.nan)
@example(path=("outcomes", 0, "scores"), value=[-1.0])
@example(path=("outcomes", 0, "item_id"), value={"a": 1})
@example(path=("outcomes", 0, "order"), value=[0, 0, 1, 2])
@example(path=("outcomes", 0, "correct"), value=False)
def test_report_and_the_outcome_reader_accept_the_same_stress_files(
    tmp_path_factory: pytest.TempPathFactory, path: tuple[Any, ...], value: Any
) -> None:
    folder = tmp_path_factory.mktemp("stress")
    document = _replaced(STRESS, path, value)
    found = _outcome_readers(_write(folder / "stress.json", document))
    assert (found["report"] == "ok") == (found["outcomes"] == "ok"), found
    lines = folder / "stress.jsonl"  # the same outcomes as stress --items lines
    lines.write_text("".join(json.dumps(entry) + "\n" for entry in document["outcomes"]))
    if found["report"] != "ok" and re.search(r"field 'outcomes\[\d+\]", found["report"]):
        refused = _outcome(lambda: read_outcomes(lines, format="pfungst-stress", model="m"))
        assert refused != "ok" and re.search(r"stress\.jsonl:\d+: field", refused), refused


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("chosen", 99), r"field 'outcomes\[0\]\.chosen': 99 is not an option index \(-1\.\.3\) of the 4 options"),
        (("scores", [math.nan] * 4), r"field 'outcomes\[0\]\.scores\[0\]': expected a finite number or null"),
        (("scores", [-1.0]), r"field 'outcomes\[0\]\.scores': expected one entry per option \(4\), found 1"),
        (("item_id", {"a": 1}), r"field 'outcomes\[0\]\.item_id': expected a string, found an object"),
    ],
)
@pytest.mark.parametrize("command", ["report", "reliance", "validity"])
def test_each_bad_outcome_exits_2_with_one_message_naming_the_field(
    tmp_path: Path, command: str, change: tuple[str, Any], message: str
) -> None:
    file = _write(tmp_path / "stress.json", _replaced(STRESS, ("outcomes", 0, change[0]), change[1]))
    audit = _write(tmp_path / "audit.json", AUDIT)
    args = {
        "report": ["report", str(file), "-o", str(tmp_path / "report.html")],
        "reliance": ["reliance", str(audit), "--outcomes", str(file)],
        "validity": ["validity", "--outcomes", str(file)],
    }[command]
    result = runner.invoke(app, args)
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in text and text.count("error:") == 1
    assert re.search(message, text) and "stress.json" in text, text


def test_stress_lines_breaking_the_contract_name_their_line(tmp_path: Path) -> None:
    rows = copy.deepcopy(STRESS["outcomes"][:3])
    rows[2]["chosen"] = 99
    lines = tmp_path / "stress.jsonl"
    lines.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(PfungstError, match=r"stress\.jsonl:3: field 'chosen': 99 is not an option index"):
        read_outcomes(lines, format="pfungst-stress")


def test_a_score_of_no_items_or_with_a_p_value_above_one_is_refused(tmp_path: Path) -> None:
    import pfungst
    from tests.evaluate.fakes import ScriptedModel

    benchmark = pfungst.Benchmark("toy", [pfungst.Item(f"q{i}", f"{i}?", ("x", "y"), i % 2) for i in range(4)])
    scored = pfungst.score(benchmark, ScriptedModel(), cache=False).to_dict()
    for change, message in (
        ({"n_items": 0}, r"field 'n_items': a score covers at least one item, found 0"),
        ({"accuracy": {**scored["accuracy"], "pvalue": 2.5}}, r"field 'accuracy\.pvalue': 2\.5 is outside \[0, 1\]"),
        ({"n_refused": 9}, r"field 'n_items': 9 items refused, unparseable or skipped, more than the 4 scored"),
    ):
        file = _write(tmp_path / "score.json", {**scored, **change})
        result = runner.invoke(app, ["report", str(file), "-o", str(tmp_path / "r.html")])
        assert result.exit_code == 2 and re.search(message, " ".join(result.output.split())), result.output


def test_a_gzip_benchmark_inflating_past_the_limit_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pfungst.data import records

    monkeypatch.setattr(records, "MAX_INFLATED_TEXT", 1024 * 1024)  # the 512 MiB limit, scaled down
    path = tmp_path / "bomb.jsonl.gz"
    with gzip.open(path, "wb") as handle:  # one line of 2 MiB, 2 KB compressed
        handle.write(b'{"question": "' + b"a" * (2 * 1024 * 1024) + b'", "choices": ["x", "y"], "answer": 0}\n')
    assert path.stat().st_size < 10_000
    result = runner.invoke(app, ["inspect", str(path)])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert re.search(r"bomb\.jsonl\.gz: inflates past 1,048,576 bytes from [\d,]+ compressed", text), text
