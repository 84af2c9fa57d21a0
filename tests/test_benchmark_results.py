"""``benchmarks/results_file.py``: each benchmark script owns one section of RESULTS.md, stamped with its provenance."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load_results_file() -> ModuleType:
    spec = importlib.util.spec_from_file_location("results_file", BENCHMARKS / "results_file.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def results_file() -> ModuleType:
    return _load_results_file()


def _section(text: str, name: str) -> str:
    found = re.search(rf"<!-- begin: {name} -->\n(.*?)<!-- end: {name} -->", text, re.S)
    assert found, f"no section {name!r} in:\n{text}"
    return found.group(1)


def test_a_new_run_replaces_its_own_section_and_keeps_the_others(results_file: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    results_file.record_results("speed", "Speed", "| a |\n|---|\n| 1 |", command="python speed.py", path=path)
    results_file.record_results("memory", "Memory", "| m |\n|---|\n| 9 |", command="python memory.py", path=path)
    results_file.record_results("speed", "Speed", "| a |\n|---|\n| 2 |", command="python speed.py --x", path=path)

    text = path.read_text()
    assert text.startswith("# Measured results")
    assert text.count("<!-- begin: speed -->") == 1
    speed, memory = _section(text, "speed"), _section(text, "memory")
    assert "| 2 |" in speed and "| 1 |" not in speed
    assert "Command: `python speed.py --x`" in speed
    assert "| 9 |" in memory
    assert text.index("<!-- begin: speed -->") < text.index("<!-- begin: memory -->")


def test_a_section_names_commit_date_and_machine(results_file: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    results_file.record_results("speed", "Speed", "figures", command="python speed.py", path=path)

    provenance = _section(path.read_text(), "speed").splitlines()[2]
    assert re.match(r"Commit `[0-9a-f]+(\+changes)?`, \d{4}-\d\d-\d\d \d\d:\d\d UTC; .* logical cores", provenance)


def test_the_load_recorded_is_the_load_when_the_benchmark_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long benchmark loads the machine itself: the load it writes beside its figures is the one it started under."""
    monkeypatch.setattr("os.getloadavg", lambda: (0.3, 0.2, 0.1))
    started = _load_results_file()  # a script imports it first thing
    monkeypatch.setattr("os.getloadavg", lambda: (2.0, 1.5, 1.0))
    started.record_results("speed", "Speed", "figures", command="python speed.py", path=tmp_path / "RESULTS.md")

    assert "load 0.3 at start" in _section((tmp_path / "RESULTS.md").read_text(), "speed")


def test_recording_records_what_was_printed_unless_told_not_to(
    results_file: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "RESULTS.md"
    with results_file.recording("table", "Table", path=path):
        print("| n | s |\n| 1 | 2.0 |")
    with results_file.recording("quiet", "Quiet", enabled=False, path=path):
        print("not recorded")
    with results_file.recording("absent", "Absent", path=path):
        print("skipped: the data is absent")

    text = path.read_text()
    assert "```text\n| n | s |\n| 1 | 2.0 |\n```" in _section(text, "table")
    assert "quiet" not in text and "absent" not in text
    assert "not recorded" in capsys.readouterr().out


def test_recording_keeps_the_old_figures_when_the_run_fails(results_file: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    results_file.record_results("speed", "Speed", "old figures", command="python speed.py", path=path)
    with pytest.raises(RuntimeError), results_file.recording("speed", "Speed", path=path):
        print("half a table")
        raise RuntimeError("the server died")

    assert "old figures" in _section(path.read_text(), "speed")


RUN_BY_OTHERS = {"paper_code.py"}
"""Helpers other scripts run as a child process in another environment (the paper's, without pfungst): the script
that runs one records its figures."""
SCRIPTS = sorted(
    p.name
    for p in BENCHMARKS.glob("*.py")
    if 'if __name__ == "__main__":' in p.read_text() and p.name not in RUN_BY_OTHERS
)
"""The benchmark scripts; the other modules (``results_file``, ``matmul_limit``) are helpers they import."""


def test_the_helpers_are_not_mistaken_for_scripts() -> None:
    assert "compare_lm_eval.py" in SCRIPTS
    assert not {"results_file.py", "matmul_limit.py", "paper_code.py"} & set(SCRIPTS)


def test_the_paper_code_runner_imports_nothing_from_pfungst() -> None:
    """It runs under the paper's pinned environment, where pfungst is not installed."""
    source = (BENCHMARKS / "paper_code.py").read_text()
    assert "pfungst" not in "".join(
        line for line in source.splitlines() if line.lstrip().startswith(("import", "from"))
    )


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_script_records_its_figures_and_offers_no_record(script: str) -> None:
    source = (BENCHMARKS / script).read_text()
    assert "add_record_option(parser)" in source
    name = Path(script).stem
    assert f'recording("{name}", TITLE' in source or f'record_results("{name}",' in source


def test_the_seeded_results_file_says_where_each_figure_came_from() -> None:
    text = (BENCHMARKS / "RESULTS.md").read_text()
    sections = re.findall(r"<!-- begin: (\S+) -->\n(.*?)<!-- end: \1 -->", text, re.S)
    assert sections
    for name, body in sections:
        assert re.search(r"Commit `[0-9a-f]{7,}", body), name
        assert re.search(r"\d{4}-\d\d-\d\d", body), name


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
