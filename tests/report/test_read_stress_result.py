"""A corrupted stress file: every analysis kind, the verdict and the outcomes name the file and full field path."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import pfungst
from pfungst.errors import ReaderError

ANALYSIS_KINDS = (
    "selection-bias",
    "circular",
    "answer-moved",
    "paired-difference",
    "pride",
    "format-spread",
    "spread-search",
    "multiprompt",
    "choices-only",
    "none-of-the-above",
    "letter-text",
)
"""Every built-in analysis kind a stress run writes."""


def _json(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str).replace("NaN", "null"))


def _first_number(value: Any, path: str) -> tuple[list[Any], Any, str] | None:
    """The container, key and path of the first number under ``value`` (objects in key order, lists in order)."""
    entries = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in entries:
        where = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"
        if isinstance(item, int | float) and not isinstance(item, bool):
            return value, key, where
        found = _first_number(item, where)
        if found is not None:
            return found
    return None


def _corrupt_analysis(data: dict[str, Any], kind: str) -> str:
    """Write ``"x"`` over the first number inside the first analysis of ``kind``; the field path it sits at."""
    number = next(n for n, entry in enumerate(data["analyses"]) if entry["kind"] == kind)
    found = _first_number(data["analyses"][number]["result"], f"analyses[{number}].result")
    assert found is not None, f"{kind}: no number in its result"
    holder, key, path = found
    holder[key] = "x"
    return path


def _corrupt_verdict(data: dict[str, Any], kind: str) -> str:
    data["verdict"]["checks"][1]["status"] = "x"
    return "verdict.checks[1].status"


def _corrupt_outcome(data: dict[str, Any], kind: str) -> str:
    data["outcomes"][3]["chosen"] = "x"
    return "outcomes[3].chosen"


CASES = [*((kind, _corrupt_analysis) for kind in ANALYSIS_KINDS), ("verdict", _corrupt_verdict)]
CASES.append(("outcome", _corrupt_outcome))


@pytest.mark.parametrize(("kind", "corrupt"), CASES, ids=[kind for kind, _ in CASES])
def test_one_wrong_value_in_a_stress_file_is_named_by_file_and_full_field_path(
    demo_objects: dict[str, Any], tmp_path: Path, kind: str, corrupt: Any
) -> None:
    data = _json(demo_objects["stress"][0].to_dict(items=True))
    path = corrupt(data, kind)
    written = tmp_path / "stress.json"
    written.write_text(json.dumps(data))
    with pytest.raises(ReaderError, match=rf"stress\.json: field '{re.escape(path)}': expected .*found 'x'"):
        pfungst.read_result(written)


def test_a_selection_bias_without_ckld_is_named_as_missing(demo_objects: dict[str, Any], tmp_path: Path) -> None:
    data = _json(demo_objects["stress"][0].to_dict())
    number = next(n for n, entry in enumerate(data["analyses"]) if entry["kind"] == "selection-bias")
    del data["analyses"][number]["result"]["ckld"]
    written = tmp_path / "stress.json"
    written.write_text(json.dumps(data))
    with pytest.raises(ReaderError, match=rf"stress\.json: field 'analyses\[{number}\]\.result\.ckld': missing"):
        pfungst.read_result(written)


def test_a_wrong_value_in_a_compared_run_is_named_by_its_path_in_the_comparison_file(
    demo_objects: dict[str, Any], tmp_path: Path
) -> None:
    comparison = {
        "schema_version": "pfungst.stress-comparison/2",
        "kind": "stress-comparison",
        "results": [_json(run.to_dict()) for run in demo_objects["stress"]],
        "rank_stability": _json(demo_objects["ranks"].to_dict()),
    }
    comparison["results"][1]["verdict"]["checks"][0]["status"] = "x"
    written = tmp_path / "comparison.json"
    written.write_text(json.dumps(comparison))
    with pytest.raises(ReaderError, match=r"comparison\.json: field 'results\[1\]\.verdict\.checks\[0\]\.status'"):
        pfungst.read_result(written)
