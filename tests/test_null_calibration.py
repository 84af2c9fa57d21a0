"""``benchmarks/null_calibration.py``: null copies carry no signal, each audit is read, the table counts them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pfungst.data.synthetic import make_synthetic

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))  # the script imports results_file from its own folder
    try:
        spec = importlib.util.spec_from_file_location("null_calibration", BENCHMARKS / "null_calibration.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["null_calibration"] = module  # its dataclass looks itself up there
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def test_a_planted_cue_sits_with_the_gold_in_the_share_of_items_asked_for(script: ModuleType) -> None:
    original = make_synthetic("gold-position", 200)
    copy = script.planted(original, 0.25, seed=0)
    carriers = [item for item in copy if any(script.CUE in option for option in item.options)]
    assert len(carriers) == 50
    assert all(script.CUE in item.options[item.gold] for item in carriers)  # always in the gold option
    assert [item.gold for item in copy] == [item.gold for item in original]


def test_a_shared_label_plant_gives_its_items_one_label(script: ModuleType) -> None:
    copy = script.planted(make_synthetic("cue-word", 200), 0.1, seed=1)
    carriers = [item for item in copy if script.CUE in item.text]
    assert len(carriers) == 20 and len({item.gold for item in carriers}) == 1


def test_null_audits_of_a_tiny_task_are_read_and_tabled(script: ModuleType) -> None:
    task = make_synthetic("gold-position", 60)
    jobs = [script.Job("tiny", task, seed) for seed in range(2)]
    outcomes = [script.run_job(job) for job in jobs]
    assert {o.label for o in outcomes} <= {"predictable", "inconclusive", "no evidence"}
    assert all(o.low <= o.high for o in outcomes)
    table = script.null_table(outcomes)
    assert '| verdict "predictable" | ' in table and " of 2 | " in table


def test_the_table_gives_each_rate_with_its_exact_interval_and_nominal_bound(script: ModuleType) -> None:
    assert script.exact(0, 200) == "0 of 200 | 0.0% | [0.0%, 1.8%]"
    outcome = script.Outcome("t", -1.0, "no evidence", False, -0.1, 0.1, -0.05, 0.05, 0, 1.0)
    table = script.null_table([outcome] * 4)
    assert "| verdict interval covers 0 (the true null value) | 4 of 4 | 100.0% |" in table
    assert "at most 2.5%" in table and "at least 95%" in table


def test_a_rate_is_said_to_meet_its_nominal_bound_or_not(script: ModuleType) -> None:
    assert script.meets(5, 200, "at most 2.5%") == "yes" and script.meets(6, 200, "at most 2.5%") == "**no**"
    assert script.meets(190, 200, "at least 95%") == "yes" and script.meets(189, 200, "at least 95%") == "**no**"
    assert script.meets(3, 200, "(the rest)") == "-"


def test_the_readme_quote_is_replaced_between_its_markers(script: ModuleType, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# x\n<!-- begin: null_calibration -->\nstale quote\n<!-- end: null_calibration -->\nafter\n")
    above = script.Outcome("t", -1.0, "inconclusive", True, 0.01, 0.3, 0.02, 0.2, 20, 1.0)
    clean = script.Outcome("t", -1.0, "no evidence", False, -0.1, 0.1, -0.05, 0.05, 0, 1.0)
    script.record_readme(script.readme_section([above] + [clean] * 39, 8, "abc1234"), readme)
    text = readme.read_text()
    assert "stale quote" not in text and text.endswith("<!-- end: null_calibration -->\nafter\n")
    assert "commit `abc1234`" in text and "40 audits" in text
    assert "| verdict interval excludes 0 (lower bound above 0) | 1 of 40 | 2.5% |" in text
    assert "Every verdict and flag with a nominal rate meets it" in text
    assert "Not at the nominal rate" in script.verdict_line([above] * 2 + [clean] * 38)
