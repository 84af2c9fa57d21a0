"""An estimate is read from JSON by the schema, and the statistics package knows nothing of schemas (issue 38)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pfungst.stats
from pfungst.errors import ReaderError
from pfungst.schema import Fields, read_estimate
from pfungst.stats import ConfidenceInterval, Estimate

STATS = Path(pfungst.stats.__file__).parent


def test_an_estimate_reads_back_from_its_dict() -> None:
    estimate = Estimate(0.4, "wilson", 20, ConfidenceInterval(0.2, 0.6), pvalue=0.03, baseline=0.25)
    assert read_estimate(Fields(estimate.to_dict(), "e.json")) == estimate


def test_an_interval_upside_down_is_named_by_file_and_field() -> None:
    data = {"value": 0.4, "ci": {"low": 0.6, "high": 0.2, "level": 0.95}, "method": "wilson", "n": 20}
    with pytest.raises(ReaderError, match=r"e\.json: field 'ci': low 0\.6 is above high 0\.2"):
        read_estimate(Fields(data, "e.json"))


def test_no_module_of_stats_imports_the_schema() -> None:
    found = []
    for path in sorted(STATS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pfungst.schema"):
                found.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Import) and any(alias.name.startswith("pfungst.schema") for alias in node.names):
                found.append(f"{path.name}:{node.lineno}")
    assert not found, found
