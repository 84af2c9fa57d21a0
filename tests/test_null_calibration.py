"""``benchmarks/null_calibration.py``: null copies carry no signal, each audit is read, the table counts them."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from pfungst.audit import AuditConfig
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


def test_a_per_item_null_copy_shuffles_each_items_options_and_redraws_its_gold(script: ModuleType) -> None:
    original = make_synthetic("gold-position", 400)
    copy = script.null_benchmark(original, np.random.default_rng(0))

    assert [sorted(item.options) for item in copy] == [sorted(item.options) for item in original]
    assert sum(a.options != b.options for a, b in zip(copy, original, strict=True)) > 300
    first_slot = Counter(item.gold for item in copy)[0]
    assert 60 < first_slot < 140  # a quarter of 400, not the planted two thirds


def test_a_shared_label_null_copy_permutes_the_labels(script: ModuleType) -> None:
    original = make_synthetic("cue-word", 200)
    copy = script.null_benchmark(original, np.random.default_rng(1))
    assert Counter(item.gold for item in copy) == Counter(item.gold for item in original)
    assert [item.gold for item in copy] != [item.gold for item in original]


def test_three_null_audits_of_a_tiny_task_are_read_and_tabled(script: ModuleType) -> None:
    config = AuditConfig(
        feature_sets=("1-grams_presence",), n_splits=3, n_repeats=1, n_bootstrap=200, n_permutations=200,
        n_refits=4, cues=False, heuristics=False,
    )  # fmt: skip
    audits = script.calibrate([("control", make_synthetic("control", 90))], 3, config)

    assert [audit.task for audit in audits] == ["control"] * 3
    assert not any(audit.predictable for audit in audits)
    assert all(audit.refits in (0, 4) for audit in audits)
    table = script.table(audits)
    assert "| verdict 'predictable' | 0 of 3 | 0.0% | [0.0%, 70.8%] | 0.0% |" in table


def test_the_table_gives_each_rate_with_its_exact_interval_and_nominal_bound(script: ModuleType) -> None:
    audits = [script.NullAudit("t", False, i < 3, i < 1, 20 if i < 3 else 0, 1.0) for i in range(40)]
    table = script.table(audits)
    assert "| signal below threshold (the flag) | 1 of 40 | 2.5% | [0.1%, 13.2%] | 2.5% |" in table
    assert "| 3 of 40 | 7.5% | [1.6%, 20.4%] | 2.5% |" in table
    assert "1 flagged" in script.summary(audits)
